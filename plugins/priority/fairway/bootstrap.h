/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootstrap.c: usage rebuilt from slurmdbd's job records. No Slurm type
 * here. */
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

#endif /* FAIRWAY_PLUGIN_BOOTSTRAP_H_ */
