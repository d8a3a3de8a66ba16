/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobs.c: job records <-> the core. */
#ifndef FAIRWAY_PLUGIN_JOBS_H_
#define FAIRWAY_PLUGIN_JOBS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"
#include "locks.h"

/* The decay pass's steps (the decay thread's, or init's without one). */
/* The pass's tables, created on first use (any thread: sprio may ask
 * first); never NULL. */
fw_pass_t *fw_jobs_pass(void);
/* Requires job R. Finds job_list's records (by id, or by walking the list);
 * returns whether it walked (false without a job list: no records). The
 * records are valid while job R is held. */
bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass);
/* Requires job R, part R, assoc R and qos R, and the records of
 * fw_jobs_find under the same hold of job R. Gathers and computes every
 * eligible job of the records found. */
void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
		    time_t now);
/* Requires job W and part R, and no assoc_mgr lock (a job changed since
 * the gather is recomputed under FW_ASSOCS_READ, taken here). Stores the
 * next slice of changed jobs, finding each by id. Returns true when all
 * are stored (the pass's table is then sprio's); *recomputed is
 * increased by the jobs recomputed. */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t now,
			 size_t *recomputed);
/* At fini, with the decay thread stopped: frees the pass's tables. */
void fw_jobs_release(void);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
/* Requires job W (the caller's), and no assoc_mgr lock: takes assoc R and
 * qos R itself (recorded in *held). Computes the job's priority, stores its
 * factors and priority_array and returns the priority (the caller sets
 * job->priority). An operator-set priority is returned as it is, and a
 * job without details gets 0 (logged), both with their factors cleared. */
uint32_t fw_jobs_compute_and_store(fw_held_t *held, job_record_t *job,
				   const fw_config_t *config, time_t now);
/* Requires job R. job_list's records in list order into *records, an
 * xmalloc array of *size entries grown as needed (xfree it). Returns the
 * count. */
size_t fw_jobs_walk(fw_held_t *held, job_record_t ***records, size_t *size);
/* Requires job R. sprio's row for one partition of a job: returns the
 * weighted partition factor and fills row_tres[tres_cnt] (when given)
 * with the job's weighted TRES factors in that partition. */
double fw_jobs_partition_row(const job_record_t *job, const part_record_t *part,
			     const fw_config_t *config, double *row_tres,
			     uint32_t tres_cnt);
/* Requires job R. A job's several QOS (--qos=a,b, 24.11 and later), in the
 * order its priorities are indexed, or NULL for a job with one. */
list_t *fw_jobs_qos_list(const job_record_t *job);
/* Requires qos R. sprio's QOS factor of qos in a row of such a job
 * (job_weighted_qos: the job's own). */
double fw_jobs_qos_row(const slurmdb_qos_rec_t *qos, const fw_config_t *config,
		       double job_weighted_qos);
#endif

#endif /* FAIRWAY_PLUGIN_JOBS_H_ */
