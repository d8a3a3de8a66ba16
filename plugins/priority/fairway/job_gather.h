/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_gather.c: a job's inputs, copied from its record, its partitions,
 * QOS and association for the core; the pass's gather; sprio's rows. */
#ifndef FAIRWAY_PLUGIN_JOB_GATHER_H_
#define FAIRWAY_PLUGIN_JOB_GATHER_H_

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"
#include "locks.h"

/* Requires job R, part R, assoc R and qos R, and the records of
 * fw_jobs_find under the same hold of job R. Gathers and computes every
 * eligible job of the records found (the core keeps the results in the
 * pass). Only the decay thread (or init without one) calls it. */
void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
		    time_t now);
/* At fini, with the decay thread stopped: frees the gather's caches. */
void fw_jobs_gather_release(void);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
#include "fw_prefetch.h"

/* The priorities the scheduler reads for a multi-partition job, indexed
 * like part_ptr_list: job->priority_array to 23.11; from 24.05 a struct
 * that also names the partitions for squeue, job->part_prio (24.05,
 * 24.11.0-.6, 25.05.0) or job->prio_mult (24.11.7, 25.05.1 and later). */
#if FW_SLURM_AT_LEAST(24, 5, 0)
#if (FW_SLURM_AT_LEAST(24, 11, 7) && !FW_SLURM_AT_LEAST(25, 5, 0)) || \
	FW_SLURM_AT_LEAST(25, 5, 1)
#define FW_PRIO_MULT prio_mult
#else
#define FW_PRIO_MULT part_prio
#endif
#if FW_SLURM_AT_LEAST(24, 11, 0)
#define FW_PRIO_NAMES priority_array_names
#else
#define FW_PRIO_NAMES priority_array_parts
#endif
#define FW_PRIO_ARRAY(job) \
	((job)->FW_PRIO_MULT ? (job)->FW_PRIO_MULT->priority_array : NULL)
#else
#define FW_PRIO_ARRAY(job) ((job)->priority_array)
#endif

/* The nodes the job-size factor divides by: from 23.02 the nodes that
 * exist, not the node table's slots (multifactor, slurm-23-02-8-1). */
#if FW_SLURM_AT_LEAST(23, 2, 0)
#define FW_NODE_COUNT active_node_record_count
#else
#define FW_NODE_COUNT node_record_count
#endif

/* Whether array (Slurm's allocation, or NULL) holds count entries: a job
 * whose QOS list changed keeps an array sized for the old one. */
static inline bool fw_jobs_array_holds(const uint32_t *array, uint32_t count)
{
	return array && xsize((void *) array) >= count * sizeof(uint32_t);
}

/* Whether the pass computes the job: pending (or running, with
 * CALCULATE_RUNNING), with a priority, its nodes not powering up. */
static inline bool fw_jobs_eligible(const job_record_t *job, bool running_too)
{
	if (job->priority == 0 || IS_JOB_POWER_UP_NODE(job))
		return false;
	return IS_JOB_PENDING(job) || running_too;
}

/* An operator set the priority (scontrol update priority=N): it is kept as
 * it is, with no factors, until the operator resets it. */
static inline bool fw_jobs_operator_set(const job_record_t *job)
{
	return job->direct_set_prio && job->priority > 0;
}

static inline bool fw_jobs_calculate_running(const fw_config_t *config)
{
	return fw_settings(config)->flags & PRIORITY_FLAGS_CALCULATE_RUNNING;
}

/* The fields fw_jobs_stamp and the store read, which is all the store
 * prefetches: under the job write lock each other line is waited for. */
FW_PREFETCH_HELPER void fw_jobs_prefetch_stamped(const job_record_t *job)
{
	FW_PREFETCH(&job->direct_set_prio);
	FW_PREFETCH(&job->job_state);
	FW_PREFETCH(&job->part_ptr_list);
	FW_PREFETCH(&job->part_ptr);
	FW_PREFETCH(&job->priority);
#if FW_SLURM_AT_LEAST(24, 5, 0)
	FW_PREFETCH(&job->FW_PRIO_MULT);
#else
	FW_PREFETCH(&job->priority_array);
#endif
	FW_PREFETCH(&job->prio_factors);
	FW_PREFETCH(&job->qos_ptr);
#if FW_SLURM_AT_LEAST(24, 11, 0)
	FW_PREFETCH(&job->qos_list);
#endif
}

/* Every field the gather reads: a field left out costs a full miss per
 * job (in 22.05 they lie on about ten of the record's seventeen lines,
 * and which depends on the allocation). Not the job id: the pass has it
 * from its records. */
FW_PREFETCH_HELPER void fw_jobs_prefetch_record(const job_record_t *job)
{
	fw_jobs_prefetch_stamped(job);
	FW_PREFETCH(&job->assoc_ptr);
	FW_PREFETCH(&job->details);
	FW_PREFETCH(&job->site_factor);
	FW_PREFETCH(&job->time_limit);
	FW_PREFETCH(&job->total_cpus);
	FW_PREFETCH(&job->tres_req_cnt);
	FW_PREFETCH(&job->tres_alloc_cnt);
}

/* The one partition array of a pass (or of one priority_p_set): one entry
 * per partition met (consecutive jobs mostly share one, so the last hit
 * is tried first), which a job's record names by index; and a
 * multi-partition job's indexes, in list order. Valid while part R is
 * held (or the caller's locks of priority_p_set); the core reads them
 * during the call they are given to only, so the arrays may grow and the
 * list is reused from job to job. */
typedef struct {
	const part_record_t **parts; /* parts[i]: inputs[i]'s record */
	fw_partition_input_t *inputs;
	size_t count, size, last_hit;
	uint32_t *list;
	size_t list_size;
	fw_qos_input_t *
		qos; /* a job's several QOS (24.11 and later), reused likewise */
	size_t qos_size;
} fw_jobs_cache_t;

/* Requires job R, part R (or priority_p_set's caller's locks), assoc R and
 * qos R, and job->details. Fills *in with the job's record (job_id: the
 * id to record), its partitions (cache->inputs) and QOS from cache; *in
 * points into cache and is valid until cache is next used or freed. */
void fw_jobs_inputs(fw_held_t *held, job_record_t *job, uint32_t job_id,
		    const fw_config_t *config, fw_jobs_cache_t *cache,
		    fw_job_input_t *in);
/* Frees a cache's entries and zeroes it. */
void fw_jobs_cache_free(fw_jobs_cache_t *cache);
/* Requires job R (or job W). A 64-bit stamp of what must not change
 * between the gather and the store: equal records give equal stamps, and
 * a record that changed gives another but with a chance of 2^-64. */
uint64_t fw_jobs_stamp(const job_record_t *job);
/* Requires job R. A job's several QOS (--qos=a,b, 24.11 and later), in the
 * order its priorities are indexed, or NULL for a job with one. */
list_t *fw_jobs_qos_list(const job_record_t *job);
/* Requires job R. sprio's row for one partition of a job: returns the
 * weighted partition factor and fills row_tres[tres_cnt] (when given)
 * with the job's weighted TRES factors in that partition. */
double fw_jobs_partition_row(const job_record_t *job, const part_record_t *part,
			     const fw_config_t *config, double *row_tres,
			     uint32_t tres_cnt);
/* Requires qos R. sprio's QOS factor of qos in a row of such a job
 * (job_weighted_qos: the job's own). */
double fw_jobs_qos_row(const slurmdb_qos_rec_t *qos, const fw_config_t *config,
		       double job_weighted_qos);
#endif

#endif /* FAIRWAY_PLUGIN_JOB_GATHER_H_ */
