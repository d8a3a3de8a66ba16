/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing the core's results into the job records under the job write
 * lock: job->priority, the per-partition (and per-(partition, QOS))
 * priorities by release, and job->prio_factors. The decay pass stores the
 * jobs whose priority changed a slice at a time; priority_p_set computes
 * and stores one job. */
#include "fw_plugin.h"

#include "job_store.h"
#include "fw_prefetch.h"
#include "job_find.h"
#include "job_gather.h"
#include "lock_witness.h"
#include "locks.h"
#include "sprio.h"

/* ---- per-partition priorities, by release; prefetching ------------------------- */
/* Requires job W. The job's array for count priorities, allocated with
 * Slurm's allocator (slurmctld frees it), renewed after a partition change
 * (or when it is too small: multifactor writes past it) with the names
 * squeue shows (24.05 and later, as multifactor). */
static uint32_t *prio_array_for(job_record_t *job, int count)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	if (!job->FW_PRIO_MULT)
		job->FW_PRIO_MULT = xmalloc(sizeof(*job->FW_PRIO_MULT));
	if (!fw_jobs_array_holds(job->FW_PRIO_MULT->priority_array, count) ||
	    job->FW_PRIO_MULT->last_update < last_part_update) {
		xfree(job->FW_PRIO_MULT->priority_array);
		job->FW_PRIO_MULT->priority_array =
			xcalloc(count + 1, sizeof(uint32_t));
		if (job->part_ptr_list) {
			xfree(job->FW_PRIO_MULT->FW_PRIO_NAMES);
			job->FW_PRIO_MULT->FW_PRIO_NAMES =
				part_list_to_xstr(job->part_ptr_list);
		}
		job->FW_PRIO_MULT->last_update = time(NULL);
	}
	return job->FW_PRIO_MULT->priority_array;
#else
	if (!fw_jobs_array_holds(job->priority_array, count)) {
		xfree(job->priority_array);
		job->priority_array = xcalloc(count + 1, sizeof(uint32_t));
	}
	return job->priority_array;
#endif
}

/* The lines the store reads and writes of the jobs a few items ahead: the
 * record of the farther one, found among the records of the pass's find
 * by the index the gather gave (only an address is computed: the job may
 * be gone); the factors object it rewrites of the nearer one, found by id
 * (its record is valid: job W is held). */
FW_PREFETCH_HELPER void prefetch_for_store(const fw_store_item_t *item,
					   job_record_t *const *records,
					   size_t count)
{
	if (item->ahead_record_index < count) {
		const job_record_t *job = records[item->ahead_record_index];
		FW_PREFETCH(&job->job_id); /* find_job_record's */
		fw_jobs_prefetch_stamped(job);
	}
	const job_record_t *near =
		item->ahead_job_id ? find_job_record(item->ahead_job_id) : NULL;
	if (near && near->prio_factors) {
		const char *f = (const char *) near->prio_factors;
		for (size_t at = 0; at < sizeof(*near->prio_factors); at += 64)
			FW_PREFETCH_WRITE(f + at);
		FW_PREFETCH_WRITE(f + sizeof(*near->prio_factors) - 1);
	}
}

/* ---- storing ---------------------------------------------------------------------- */

/* Requires job W. A job that no longer has several partitions or QOS
 * drops its array, which the scheduler would otherwise read for its one
 * (partition, QOS) (24.05 and later, as multifactor's
 * _get_priority_internal in
 * slurm-24-11-5-1:src/plugins/priority/multifactor/priority_multifactor.c). */
static void drop_prio_array(job_record_t *job)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	if (!job->FW_PRIO_MULT)
		return;
	xfree(job->FW_PRIO_MULT->priority_array);
	xfree(job->FW_PRIO_MULT->FW_PRIO_NAMES);
	xfree(job->FW_PRIO_MULT);
#else
	(void) job;
#endif
}

/* Requires job W. Slurm's scheduler indexes priority_array by the position
 * in part_ptr_list, which is sorted by tier as multifactor does (the core
 * computed the priorities in the same, stable, order), and for a job with
 * several QOS by (partition, QOS), partition-major. */
static void store_partition_priorities(job_record_t *job,
				       const fw_factors_t *factors)
{
	list_t *qos_list = fw_jobs_qos_list(job);
	const uint32_t count = fw_priority_array_count(
		job->part_ptr_list ? list_count(job->part_ptr_list) : 0,
		qos_list ? list_count(qos_list) : 0);
	if (!count) {
		drop_prio_array(job);
		return;
	}
	if (!factors->partition_count)
		return;
	if (job->part_ptr_list)
		list_sort(job->part_ptr_list, priority_sort_part_tier);
	uint32_t *array = prio_array_for(job, count);
	for (uint32_t i = 0; i < factors->partition_count && i < count; ++i) {
		array[i] = factors->partition_priorities[i];
	}
}

/* Requires job W. Stores factors (which carry no TRES: the core gives
 * none to store) in job->prio_factors, freeing TRES arrays left there:
 * they are the only factors that need arrays of their own, two small
 * blocks per job. sprio reads the pass's table for the jobs it covers and
 * computes the others' TRES from the job (fw_jobs_partition_row), which
 * is what stored values would be. Stores priority_array; does not set
 * job->priority. */
static void store_factors(job_record_t *job, const fw_factors_t *factors)
{
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(*job->prio_factors));
	fw_factors_fill(job->prio_factors, factors, NULL);
	store_partition_priorities(job, factors);
	if (factors->clamped) {
		fw_error(
			"job %u priority exceeds 32 bits; reduced to 4294967295 (2^32 - 1)",
			job->job_id);
	}
	fw_prio("job %u priority %u = age %.2f + assoc %.2f + fairshare %.2f + jobsize %.2f + "
		"partition %.2f + qos %.2f + tres + site %lld - nice %lld",
		job->job_id, factors->priority, factors->age, factors->assoc,
		factors->fairshare, factors->job_size, factors->partition,
		factors->qos, (long long) factors->site - NICE_OFFSET,
		(long long) factors->nice - NICE_OFFSET);
}

static void clear_factors(job_record_t *job)
{
	const fw_factors_t none = { 0 };
	if (job->prio_factors)
		fw_factors_fill(job->prio_factors, &none, NULL);
}

uint32_t fw_jobs_compute_and_store(fw_held_t *held, job_record_t *job,
				   const fw_config_t *config, time_t now,
				   fw_pass_t *pass)
{
	FW_REQUIRE(held, FW_WRITE_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   job->priority);
	if (fw_jobs_operator_set(job)) {
		clear_factors(job);
		return job->priority;
	}
	if (!job->details) {
		if (pass) /* as the gather skips one: it keeps what it has */
			return job->priority;
		fw_error(
			"job %u has no details, so no priority can be computed",
			job->job_id);
		clear_factors(job);
		return 0;
	}
	fw_job_input_t in;
	fw_jobs_cache_t own = {
		0
	}; /* priority_p_set runs on RPC threads: nothing shared */
	fw_lock(held, FW_ASSOCS_READ);
	fw_jobs_inputs(held, job, job->job_id, config, &own, &in);
	fw_unlock(held, FW_ASSOCS_READ);
	const fw_cluster_t cluster = { cluster_cpus, (uint32_t) FW_NODE_COUNT };
	const uint32_t pairs = fw_priority_count(&in);
	uint32_t *partition_priorities = NULL;
	if (pairs)
		partition_priorities = xcalloc(pairs, sizeof(uint32_t));
	fw_factors_t factors;
	if (pass) {
		fw_pass_store_recompute(pass, &in, own.inputs, &cluster,
					&factors, partition_priorities);
	} else {
		fw_job_priority(config, &in, own.inputs, &cluster, now,
				&factors, NULL, partition_priorities);
	}
	store_factors(job, &factors);
	xfree(partition_priorities);
	fw_jobs_cache_free(&own);
	return factors.priority;
}

/* ---- the pass ------------------------------------------------------------------------ */

/* Each job is found by id (a hash lookup); the core names the jobs a few
 * items ahead to prefetch. A job priority_p_set stored since the gather
 * keeps what it stored. At most two core calls per job: the next item
 * (retiring the one before), and for a job changed since the gather its
 * recompute (fw_pass_store_recompute: its own factors win). */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t now,
			 size_t *recomputed)
{
	/* false: the pass is not finished; the caller takes the lock again. */
	FW_REQUIRE(held, FW_WRITE_LOCK, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   false);
	const bool running_too = fw_jobs_calculate_running(config);
	const time_t stored_at = time(NULL);
	job_record_t *const *records;
	const size_t count =
		fw_jobs_found(pass, &records, &(const uint32_t *){ NULL });
	fw_store_item_t item;
	bool stored = false;
	while (fw_pass_store_next(pass, stored, &item)) {
		prefetch_for_store(&item, records, count);
		stored = false;
		if (item.set_since_gather) { /* priority_p_set's are newer */
			++*recomputed;
			continue;
		}
		job_record_t *job = find_job_record(item.job_id);
		if (!job || !fw_jobs_eligible(job, running_too) ||
		    fw_jobs_operator_set(job))
			continue;
		uint32_t priority = item.factors.priority;
		if (fw_jobs_stamp(job) != item.stamp) {
			priority = fw_jobs_compute_and_store(held, job, config,
							     now, pass);
			++*recomputed;
		} else {
			store_factors(job, &item.factors);
			stored = true;
		}
		if (priority != job->priority) {
			job->priority = priority;
			last_job_update = stored_at;
		}
	}
	return fw_pass_store_end_slice(pass);
}
