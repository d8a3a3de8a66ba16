/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's inputs for the core: the fields of its record, its partitions,
 * QOS and association, copied under the read locks; the decay pass's
 * gather (the core computes as the jobs are added); sprio's rows of a job.
 * All arithmetic is the core's (fairway_api.h): this file copies fields. */
#include "fw_plugin.h"

#include "job_gather.h"
#include "assocs.h"
#include "fw_prefetch.h"
#include "job_find.h"
#include "lock_witness.h"
#include "locks.h"

#include <string.h>

/* A pass reads a dozen fields of each of tens of thousands of job records
 * scattered over the heap: it is bound by memory latency, not arithmetic.
 * The loops ask for the cache lines of the jobs a few places ahead, first
 * the record's own lines, then (once the record has arrived) the separate
 * allocations it points to. */
#define RECORDS_AHEAD 16
#define ALLOCATIONS_AHEAD 8
/* The gather lets sprio in (releases the table lock) once per this many
 * records: a sprio call then waits for a few hundred jobs, not for the
 * whole queue. */
#define RECORDS_PER_TABLE_HOLD 512

/* The gather's cache (the decay thread's, or init's without one), kept
 * from pass to pass and emptied at each gather. */
static fw_jobs_cache_t pass_partitions;

/* A job with several QOS (--qos=a,b, 24.11 and later; slurmctld makes no
 * list for one) is queued once per (partition, QOS), reading the array
 * partition-major (slurm-24-11-5-1:src/slurmctld/job_scheduler.c), even in
 * one partition: the core computes one priority per pair. */
list_t *fw_jobs_qos_list(const job_record_t *job)
{
#if FW_SLURM_AT_LEAST(24, 11, 0)
	return job->qos_list && list_count(job->qos_list) ? job->qos_list :
							    NULL;
#else
	(void) job;
	return NULL;
#endif
}

/* ---- a job's inputs ------------------------------------------------------------ */

/* Reads the record, which has arrived by now (job R held). */
FW_PREFETCH_HELPER void prefetch_allocations(const job_record_t *job)
{
	const job_details_t *details = job->details;
	if (details) {
		FW_PREFETCH(&details->accrue_time);
		FW_PREFETCH(&details->max_cpus);
		FW_PREFETCH(&details->min_cpus);
		FW_PREFETCH(&details->nice);
		FW_PREFETCH(&details->min_nodes);
	}
	if (job->tres_req_cnt)
		FW_PREFETCH(job->tres_req_cnt);
	if (job->assoc_ptr)
		FW_PREFETCH(job->assoc_ptr->usage);
}

/* v mixed into h with splitmix64's finaliser: a changed v leaves the
 * result equal with a chance of 2^-64. */
static uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t z = h + v + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int add_partition_to_order(void *object, void *arg)
{
	const part_record_t *part = object;
	uint64_t *stamp = arg;
	*stamp = mix(mix(*stamp, (uintptr_t) part), part->priority_tier);
	return 0;
}

/* What must not have changed between computing and storing for a computed
 * priority to be stored: only fields on the lines the store touches anyway
 * (state, priority, partitions, QOS), so that the write lock waits for no
 * other line. A job update ends in priority_p_set, whose newer factors
 * the store leaves (set_since_gather); Slurm's other writers change the
 * priority itself; the rest (accrue_time) leaves the result as if it had
 * changed just after the store (doc/slurm-integration.md). A
 * multi-partition job's partitions count in list order with their tiers:
 * when a PriorityTier changes, Slurm re-sorts part_ptr_list in place
 * under the job write lock (sort_all_jobs_partition_lists; from 26.11 it
 * also repoints a pending job's part_ptr,
 * 284c3b95f0:src/slurmctld/job_mgr.c), so the list's address would not
 * show that priority_array's order changed. */
uint64_t fw_jobs_stamp(const job_record_t *job)
{
	/* Independent products, not a chain of mixes (their latency was in
	 * every stored job's hold): an odd factor is invertible modulo 2^64,
	 * so a change of one field always changes the sum. */
	uint64_t h = ((uint64_t) job->job_state << 32 | job->priority) *
			     0x9e3779b97f4a7c15ull +
		     (uint64_t) job->direct_set_prio * 0xbf58476d1ce4e5b9ull +
		     (uintptr_t) job->part_ptr * 0x94d049bb133111ebull +
		     (uintptr_t) job->part_ptr_list * 0xd6e8feb86659fd93ull +
		     (uintptr_t) job->qos_ptr * 0xa0761d6478bd642full +
		     (uintptr_t) fw_jobs_qos_list(job) * 0xe7037ed1a0b428dbull;
	if (job->part_ptr_list)
		list_for_each_ro(job->part_ptr_list, add_partition_to_order,
				 &h);
	return h;
}

/* The core reads the configuration's tres_cnt entries of a job's TRES
 * arrays, which hold slurmctld_tres_cnt. */
static const uint64_t *tres_counts(const uint64_t *counts,
				   const fw_settings_t *settings)
{
	if (slurmctld_tres_cnt < 0 ||
	    (uint32_t) slurmctld_tres_cnt < settings->tres_cnt)
		return NULL;
	return counts;
}

/* Requires assoc R. Fair Tree and Fairway's modes read the association's
 * fs_factor; classic modes the effective usage and shares of its
 * fairshare association (its parent's, for a USE_PARENT one: the core's
 * rule, fw_fairshare_from_parent). */
static void fairshare_inputs(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			     const fw_config_t *config,
			     const fw_settings_t *settings, fw_job_input_t *in)
{
	if (!settings->weight_fairshare || !settings->calc_fairshare)
		return;
	if (settings->fair_tree_shares) {
		in->scalars.fairshare_factor = assoc->usage->fs_factor;
		return;
	}
	const slurmdb_assoc_rec_t *fs_assoc = assoc;
	if (fw_fairshare_from_parent(assoc->shares_raw,
				     assoc->usage->fs_assoc_ptr != NULL))
		fs_assoc = assoc->usage->fs_assoc_ptr;
	long double efctv = fs_assoc->usage->usage_efctv;
	/* An association added since the last pass has no effective usage yet.
   * multifactor stores one here, under the read lock (a data race); it is
   * computed without storing it, and the next pass stores it. */
	const long double distance = efctv - (long double) NO_VAL;
	if (distance > -1e-6 && distance < 1e-6 && assoc_mgr_root_assoc)
		efctv = fw_assocs_efctv(held, fs_assoc, config);
	in->scalars.fairshare_factor = fw_calc_fs_factor(
		efctv, fs_assoc->usage->shares_norm, settings->damp_factor);
}

/* Requires job R (details set), assoc R and qos R. All but the partitions. */
static void job_inputs(fw_held_t *held, job_record_t *job, uint32_t job_id,
		       const fw_config_t *config, fw_job_input_t *in)
{
	const fw_settings_t *settings = fw_settings(config);
	const job_details_t *details = job->details;
	const slurmdb_assoc_rec_t *assoc = job->assoc_ptr;
	const slurmdb_qos_rec_t *qos = job->qos_ptr;
	memset(in, 0, sizeof(*in));
	in->job_id = job_id;
	in->priority = job->priority;
	in->scalars.accrue_time = details->accrue_time;
	in->scalars.total_cpus = job->total_cpus;
	in->scalars.max_cpus = details->max_cpus;
	in->scalars.min_cpus = details->min_cpus;
	in->scalars.min_nodes = details->min_nodes;
	in->scalars.time_limit_min = job->time_limit;
	in->scalars.site_factor = job->site_factor;
	in->scalars.nice = details->nice;
	in->tres_alloc = tres_counts(job->tres_alloc_cnt, settings);
	in->tres_req = tres_counts(job->tres_req_cnt, settings);
	in->scalars.has_assoc = assoc != NULL;
	if (assoc) {
		in->scalars.assoc_priority = assoc->priority;
		in->scalars.assoc_priority_norm = assoc->usage->priority_norm;
		fairshare_inputs(held, assoc, config, settings, in);
	}
	in->scalars.has_qos = qos != NULL;
	if (qos) {
		in->scalars.qos_priority = qos->priority;
		in->scalars.qos_norm_priority = qos->usage->norm_priority;
	}
}

static void partition_input(const part_record_t *part, fw_partition_input_t *in)
{
	in->priority_job_factor = part->priority_job_factor;
	in->priority_tier = part->priority_tier;
	in->norm_priority = part->norm_priority;
	in->max_time_min = part->max_time;
	in->tres_cnt = part->tres_cnt;
}

/* part's index in the cache's partitions. */
static uint32_t partition_of(fw_jobs_cache_t *cache, const part_record_t *part)
{
	if (cache->count && cache->parts[cache->last_hit] == part)
		return cache->last_hit;
	for (cache->last_hit = 0; cache->last_hit < cache->count;
	     ++cache->last_hit) {
		if (cache->parts[cache->last_hit] == part)
			return cache->last_hit;
	}
	size_t size = cache->size; /* the same for both arrays */
	FW_GROW(cache->parts, cache->size, cache->count + 1);
	FW_GROW(cache->inputs, size, cache->count + 1);
	cache->parts[cache->count] = part;
	partition_input(part, &cache->inputs[cache->count]);
	return cache->count++;
}

/* The job's partition list, from the cache. */
static void partition_list_into(fw_jobs_cache_t *cache, job_record_t *job,
				fw_job_input_t *in)
{
	FW_GROW(cache->list, cache->list_size, list_count(job->part_ptr_list));
	uint32_t count = 0;
	list_itr_t *it = list_iterator_create(job->part_ptr_list);
	part_record_t *part;
	while ((part = list_next(it)) && count < cache->list_size) {
		cache->list[count++] = partition_of(cache, part);
	}
	list_iterator_destroy(it);
	in->partition_list = cache->list;
	in->partition_count = count;
}

static fw_qos_input_t qos_input(const slurmdb_qos_rec_t *qos)
{
	return (fw_qos_input_t){ qos->priority, qos->usage->norm_priority };
}

/* Requires qos R. A job's several QOS, in list order, into the cache. */
static void qos_list_into(fw_jobs_cache_t *cache, list_t *qos_list,
			  fw_job_input_t *in)
{
	FW_GROW(cache->qos, cache->qos_size, list_count(qos_list));
	uint32_t count = 0;
	list_itr_t *it = list_iterator_create(qos_list);
	const slurmdb_qos_rec_t *qos;
	while ((qos = list_next(it)) && count < cache->qos_size) {
		cache->qos[count++] = qos_input(qos);
	}
	list_iterator_destroy(it);
	in->qos_list = cache->qos;
	in->qos_count = count;
}

/* Requires qos R. The job's partitions and QOS list (from the cache), and
 * its current priorities when its array holds as many as the core
 * computes. */
static void partitions_of(fw_jobs_cache_t *cache, job_record_t *job,
			  fw_job_input_t *in)
{
	in->partition = job->part_ptr ? partition_of(cache, job->part_ptr) :
					FW_NO_PARTITION;
	list_t *qos_list = fw_jobs_qos_list(job);
	if (qos_list)
		qos_list_into(cache, qos_list, in);
	if (job->part_ptr_list)
		partition_list_into(cache, job, in);
	const uint32_t *array = FW_PRIO_ARRAY(job);
	in->priority_array = fw_jobs_array_holds(array, fw_priority_count(in)) ?
				     array :
				     NULL;
}

void fw_jobs_cache_free(fw_jobs_cache_t *cache)
{
	xfree(cache->parts);
	xfree(cache->inputs);
	xfree(cache->list);
	xfree(cache->qos);
	memset(cache, 0, sizeof(*cache));
}

void fw_jobs_inputs(fw_held_t *held, job_record_t *job, uint32_t job_id,
		    const fw_config_t *config, fw_jobs_cache_t *cache,
		    fw_job_input_t *in)
{
	job_inputs(held, job, job_id, config, in);
	partitions_of(cache, job, in);
}

/* ---- the pass ------------------------------------------------------------------------ */

void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
		    time_t now)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_READ_LOCK, FW_READ_LOCK,
		   FW_READ_LOCK);
	const bool running_too = fw_jobs_calculate_running(config);
	const fw_cluster_t cluster = { cluster_cpus, (uint32_t) FW_NODE_COUNT };
	job_record_t *const *records;
	const uint32_t *ids;
	const size_t count = fw_jobs_found(pass, &records, &ids);
	pass_partitions.count = pass_partitions.last_hit = 0;
	fw_jobs_table_lock();
	fw_pass_begin(pass, config, &cluster, now);
	for (size_t i = 0; i < count; ++i) {
		if (i % RECORDS_PER_TABLE_HOLD == RECORDS_PER_TABLE_HOLD - 1) {
			fw_jobs_table_unlock();
			fw_jobs_table_lock();
		}
		if (i + RECORDS_AHEAD < count)
			fw_jobs_prefetch_record(records[i + RECORDS_AHEAD]);
		if (i + ALLOCATIONS_AHEAD < count)
			prefetch_allocations(records[i + ALLOCATIONS_AHEAD]);
		job_record_t *job = records[i];
		if (!fw_jobs_eligible(job, running_too))
			continue;
		/* An operator-set priority (or a job without details) keeps what
     * priority_p_set gave it. */
		if (fw_jobs_operator_set(job) || !job->details)
			continue;
		fw_job_input_t in;
		job_inputs(held, job, ids[i], config, &in);
		partitions_of(&pass_partitions, job, &in);
		in.record_index = i;
		/* Only a job the store will visit is stamped. */
		uint64_t *stamp =
			fw_pass_add(pass, &in, pass_partitions.inputs);
		if (stamp)
			*stamp = fw_jobs_stamp(job);
	}
	fw_pass_end_gather(pass);
	fw_jobs_table_unlock();
}

/* ---- sprio's partition rows, and fini ------------------------------------------------- */

double fw_jobs_partition_row(const job_record_t *job, const part_record_t *part,
			     const fw_config_t *config, double *row_tres,
			     uint32_t tres_cnt)
{
	/* fw_sprio_partition_row reads the job's TRES counts only. */
	fw_job_input_t in;
	memset(&in, 0, sizeof(in));
	in.job_id = job->job_id;
	in.tres_alloc = tres_counts(job->tres_alloc_cnt, fw_settings(config));
	in.tres_req = tres_counts(job->tres_req_cnt, fw_settings(config));
	in.partition = FW_NO_PARTITION;
	fw_partition_input_t partition;
	partition_input(part, &partition);
	return fw_sprio_partition_row(config, &in, &partition, row_tres,
				      tres_cnt);
}

double fw_jobs_qos_row(const slurmdb_qos_rec_t *qos, const fw_config_t *config,
		       double job_weighted_qos)
{
	const fw_qos_input_t in = qos_input(qos);
	return fw_sprio_qos_row(config, &in, job_weighted_qos);
}

void fw_jobs_gather_release(void)
{
	fw_jobs_cache_free(&pass_partitions);
}
