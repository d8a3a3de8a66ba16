/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.c: the services of slurmctld that the files without a Slurm header
 * (the decay thread and pass, the state files, the ledger's file, the
 * configuration store) need, behind functions that name no Slurm type.
 * Keeping those files free of Slurm's headers keeps the code every Slurm
 * release difference can touch (fw_plugin.h and the files that include it)
 * small. */
#ifndef FAIRWAY_PLUGIN_FW_HOST_H_
#define FAIRWAY_PLUGIN_FW_HOST_H_

#include <stdbool.h>
#include <stdint.h>

#include "api/fairway_api.h"

/* Reads slurm_conf (and slurmctld_tres_cnt) and publishes the result
 * (fw_config_publish). Reads slurm_conf without a lock, as multifactor
 * does. */
void fw_load_config(bool with_slurmdbd, bool log_summary);
/* One line to slurmctld's log, with the plugin's prefix. Any thread. */
void fw_log_line(fw_log_level_t level, const char *line);
/* StateSaveLocation ("." when unset). */
const char *fw_host_state_dir(void);
/* Slurm's state-file lock (lock_state_files), last in the lock order. */
void fw_host_lock_state_files(void);
void fw_host_unlock_state_files(void);
/* The protocol versions this Slurm reads assoc_usage in. */
void fw_host_protocol_versions(uint16_t *min_version, uint16_t *max_version);
/* Whether slurmctld has a job list (not in clients and test programs). */
bool fw_host_has_jobs(void);
/* Takes FW_SITE_FACTORS (the caller holds no lock): the site factor
 * plugin's periodic update; nothing with site_factor/none, Slurm's
 * default. */
void fw_host_update_site_factors(void);
/* PriorityCalcPeriod in seconds, read live. */
uint32_t fw_host_calc_period(void);

#endif /* FAIRWAY_PLUGIN_FW_HOST_H_ */
