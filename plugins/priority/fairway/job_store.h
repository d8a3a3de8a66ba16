/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_store.c: priorities, priority_array and prio_factors written into
 * the job records. */
#ifndef FAIRWAY_PLUGIN_JOB_STORE_H_
#define FAIRWAY_PLUGIN_JOB_STORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"
#include "locks.h"

/* Requires job W and part R, and no assoc_mgr lock (a job changed since
 * the gather is recomputed under FW_ASSOCS_READ, taken here), after
 * fw_jobs_gather of the same pass. Stores the next slice of changed jobs,
 * finding each by id. Returns true when all are stored (the pass's table
 * is then sprio's); *recomputed is increased by the jobs recomputed. */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t now,
			 size_t *recomputed);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
/* Requires job W (the caller's), and no assoc_mgr lock: takes assoc R and
 * qos R itself (recorded in *held). Computes the job's priority (pass:
 * NULL, by fw_job_priority; else in the pass's store, by
 * fw_pass_store_recompute), stores its factors and priority_array and
 * returns the priority (the caller sets job->priority). An operator-set
 * priority is returned as it is, and a job without details gets 0
 * (logged), both with their factors cleared. Any thread (priority_p_set
 * runs on RPC threads): it shares no scratch. */
uint32_t fw_jobs_compute_and_store(fw_held_t *held, job_record_t *job,
				   const fw_config_t *config, time_t now,
				   fw_pass_t *pass);
#endif

#endif /* FAIRWAY_PLUGIN_JOB_STORE_H_ */
