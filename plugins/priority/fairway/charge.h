/* SPDX-License-Identifier: GPL-2.0-or-later */
/* charge.c: usage of running and ending jobs, and GrpTRESRunMins
 * re-adjusted after a restart. */
#ifndef FAIRWAY_PLUGIN_CHARGE_H_
#define FAIRWAY_PLUGIN_CHARGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "api/fairway_api.h"
#include "locks.h"

/* Requires job R (the pass's; recorded in *held), and not the assoc_mgr
 * locks nor the ledger: takes FW_USAGE_WRITE (and, in planned use, the
 * ledger) per job charged. Charges every job of the pass's records the
 * periodic pass charges, for [start_period, now]; returns how many. */
size_t fw_charge_running(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t start_period,
			 time_t now);
/* Requires no lock: takes FW_JOB_LIST_READ, then FW_USAGE_WRITE. At
 * restart, releases from GrpTRESRunMins what running jobs used before
 * last_ran. */
void fw_charge_restart_release(time_t last_ran);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
/* Requires job R. Whether the periodic pass charges this job. */
bool fw_charge_wanted(const job_record_t *job, const fw_config_t *config);
/* Requires job R (job W with adjust_for_end), and not the assoc_mgr locks
 * nor the ledger: takes FW_USAGE_WRITE + tres R (and the ledger). Returns
 * false when the job's end was charged already; with adjust_for_end,
 * marks the end charged. */
bool fw_charge_one(fw_held_t *held, job_record_t *job, time_t start_period,
		   time_t end_period, bool adjust_for_end,
		   const fw_config_t *config);
#endif

#endif /* FAIRWAY_PLUGIN_CHARGE_H_ */
