/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootstrap.c: usage rebuilt from slurmdbd's job records. Its Slurm-typed
 * function is under FW_SLURM_AT_LEAST (fw_plugin.h's). */
#ifndef FAIRWAY_PLUGIN_BOOTSTRAP_H_
#define FAIRWAY_PLUGIN_BOOTSTRAP_H_

#include <stdbool.h>
#include <time.h>

#include "api/fairway_api.h"

typedef enum {
	FW_BOOT_REBUILT,
	FW_BOOT_NOT_NEEDED,
	FW_BOOT_RETRY
} fw_boot_t;
/* Requires no lock (it queries slurmdbd first, then takes FW_BOOTSTRAP
 * and, in planned use, the ledger itself); only with an accounting
 * connection. Requires, in planned use, fw_ledger_load_once first: after a
 * rebuild the ledger is marked loaded. */
fw_boot_t fw_bootstrap_run(const fw_config_t *config, time_t now,
			   time_t configured_last_reset, bool replace,
			   bool retry);

#ifdef FW_SLURM_AT_LEAST
/* slurmdbd's records of cluster's jobs that ran in [since, now] (steps
 * left out), through slurmctld's accounting connection, or NULL when
 * slurmdbd did not answer. Requires no lock, and the caller holds none:
 * it waits for slurmdbd. The usage bootstrap asks for this cluster's,
 * remote_fetch.c for the other clusters'. */
list_t *fw_fetch_cluster_jobs(const char *cluster, time_t since, time_t now);
#endif

#endif /* FAIRWAY_PLUGIN_BOOTSTRAP_H_ */
