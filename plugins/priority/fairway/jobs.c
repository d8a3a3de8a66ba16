/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Job records <-> the core. A decay pass finds job_list's records, gathers
 * each eligible job's inputs under the read locks (the core computes as
 * they are added), then stores the jobs whose priority changed under the
 * job write lock, a slice at a time; priority_p_set computes one job. All
 * arithmetic is the core's (fairway_api.h): this file copies fields and
 * takes locks. */
#include "fw_plugin.h"

#include "jobs.h"
#include "assocs.h"
#include "fw_prefetch.h"
#include "lock_witness.h"
#include "locks.h"
#include "sprio.h"

#include <string.h>

/* A pass reads a dozen fields of each of tens of thousands of job records
 * scattered over the heap: it is bound by memory latency, not arithmetic.
 * The loops ask for the cache lines of the jobs a few places ahead, first
 * the record's own lines, then (once the record has arrived) the separate
 * allocations it points to. */
#define RECORDS_AHEAD 16
#define ALLOCATIONS_AHEAD 8
#define IDS_AHEAD 8

/* The pass's tables. The decay thread (or init) creates them, possibly
 * while sprio asks for them on an RPC thread: the pointer is atomic. */
static fw_pass_t *pass_tables;

/* The partitions met, one entry each (consecutive jobs mostly share one,
 * so the last hit is tried first), and a multi-partition job's list as
 * pointers to entries, in list order. Valid while part R is held (or the
 * caller's locks of priority_p_set); the core reads them during the call
 * they are given to only, so the list is reused from job to job. */
typedef struct {
	fw_partition_input_t *
		*entries; /* each its own allocation: it keeps its address */
	size_t count, size, last_hit;
	const fw_partition_input_t **list;
	size_t list_size;
	fw_qos_input_t *
		qos; /* a job's several QOS (24.11 and later), reused likewise */
	size_t qos_size;
} partitions_t;

/* Scratch of the only thread that finds, gathers and stores (the decay
 * thread, or init without one), kept from pass to pass. */
static job_record_t **walked; /* fw_jobs_find's walk, with the ids */
static uint32_t *walked_ids;
static size_t walked_size, walked_ids_size;
static partitions_t pass_partitions; /* emptied at each gather */

/* Grows an xmalloc array of size entries (contents kept) to hold want. */
#define GROW(array, size, want) \
	do { \
		if ((size_t) (want) > (size)) { \
			(size) = MAX((size_t) (want), 2 * (size)); \
			xrecalloc(array, size, sizeof(*(array))); \
		} \
	} while (0)

fw_pass_t *fw_jobs_pass(void)
{
	fw_pass_t *pass = __atomic_load_n(&pass_tables, __ATOMIC_ACQUIRE);
	if (pass)
		return pass;
	fw_pass_t *made = fw_pass_create();
	if (__atomic_compare_exchange_n(&pass_tables, &pass, made, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		return made;
	}
	fw_pass_destroy(made); /* another thread made them first */
	return pass;
}

/* ---- per-partition priorities, by release ------------------------------------ */
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

/* Whether array (Slurm's allocation, or NULL) holds count entries: a job
 * whose QOS list changed keeps an array sized for the old one. */
static bool array_holds(const uint32_t *array, uint32_t count)
{
	return array && xsize((void *) array) >= count * sizeof(uint32_t);
}

/* Requires job W. The job's array for count priorities, allocated with
 * Slurm's allocator (slurmctld frees it), renewed after a partition change
 * (or when it is too small: multifactor writes past it) with the names
 * squeue shows (24.05 and later, as multifactor). */
static uint32_t *prio_array_for(job_record_t *job, int count)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	if (!job->FW_PRIO_MULT)
		job->FW_PRIO_MULT = xmalloc(sizeof(*job->FW_PRIO_MULT));
	if (!array_holds(job->FW_PRIO_MULT->priority_array, count) ||
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
	if (!array_holds(job->priority_array, count)) {
		xfree(job->priority_array);
		job->priority_array = xcalloc(count + 1, sizeof(uint32_t));
	}
	return job->priority_array;
#endif
}

/* The nodes the job-size factor divides by: from 23.02 the nodes that
 * exist, not the node table's slots (multifactor, slurm-23-02-8-1). */
#if FW_SLURM_AT_LEAST(23, 2, 0)
#define FW_NODE_COUNT active_node_record_count
#else
#define FW_NODE_COUNT node_record_count
#endif

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

/* ---- finding the records ---------------------------------------------------- */

typedef struct {
	job_record_t **records;
	size_t count, size;
} walk_t;

static int append_record(void *record, void *arg)
{
	walk_t *walk = arg;
	if (walk->count < walk->size)
		walk->records[walk->count++] = record;
	return 0;
}

size_t fw_jobs_walk(fw_held_t *held, job_record_t ***records, size_t *size)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK, 0);
	if (!job_list)
		return 0;
	GROW(*records, *size, list_count(job_list));
	walk_t walk = { *records, 0, *size };
	/* One traversal under the list's lock taken once (list_next takes it
   * for every job). */
	list_for_each_ro(job_list, append_record, &walk);
	return walk.count;
}

static void *find_record(uint32_t job_id)
{
	return find_job_record(job_id);
}

/* Only an address is computed from a record of the last pass (it may be
 * gone): the line find_job_record compares. */
static void prefetch_job_id(const void *record)
{
	FW_PREFETCH(&((const job_record_t *) record)->job_id);
}

/* A job array's records move in the list when a task is split off. */
static bool in_id_order(const void *record)
{
	return ((const job_record_t *) record)->array_job_id == 0;
}

bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   false);
	if (!job_list) {
		fw_pass_assign_walked(pass, NULL, NULL, 0);
		return false;
	}
	if (fw_pass_refind(pass, list_count(job_list), slurm_conf.max_job_id,
			   find_record, prefetch_job_id, in_id_order)) {
		return false;
	}
	const size_t count = fw_jobs_walk(held, &walked, &walked_size);
	GROW(walked_ids, walked_ids_size, count);
	for (size_t i = 0; i < count; ++i) {
		if (i + IDS_AHEAD < count)
			FW_PREFETCH(&walked[i + IDS_AHEAD]->job_id);
		walked_ids[i] = walked[i]->job_id;
	}
	fw_pass_assign_walked(pass, (void *const *) walked, walked_ids, count);
	return true;
}

/* ---- prefetching -------------------------------------------------------------- */

/* Every field the gather and the store read: a field left out costs a full
 * miss per job (in 22.05 they lie on about ten of the record's seventeen
 * lines, and which depends on the allocation). Not the job id: the pass
 * has it from its records. */
FW_PREFETCH_HELPER void prefetch_record(const job_record_t *job)
{
	FW_PREFETCH(&job->assoc_ptr);
	FW_PREFETCH(&job->details);
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
	FW_PREFETCH(&job->site_factor);
	FW_PREFETCH(&job->time_limit);
	FW_PREFETCH(&job->total_cpus);
	FW_PREFETCH(&job->tres_req_cnt);
	FW_PREFETCH(&job->tres_alloc_cnt);
}

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

/* The lines the store reads and writes of a job a few items ahead: the
 * record, the details its key reads and the factors object it rewrites.
 * Addresses from the gather, never read through (the job may be gone). */
FW_PREFETCH_HELPER void prefetch_for_store(const fw_store_item_t *item)
{
	const job_record_t *job = item->ahead_record;
	const job_details_t *details = item->ahead_details;
	const char *factors = item->ahead_factors;
	if (job) {
		FW_PREFETCH(&job->job_id); /* find_job_record's */
		prefetch_record(job);
	}
	if (details) {
		FW_PREFETCH(&details->accrue_time);
		FW_PREFETCH(&details->nice);
		FW_PREFETCH(&details->min_nodes);
	}
	if (factors) {
		FW_PREFETCH_WRITE(factors);
		FW_PREFETCH_WRITE(factors + sizeof(priority_factors_t) - 1);
	}
}

/* ---- a job's inputs ------------------------------------------------------------ */

static bool eligible(const job_record_t *job, bool running_too)
{
	if (job->priority == 0 || IS_JOB_POWER_UP_NODE(job))
		return false;
	return IS_JOB_PENDING(job) || running_too;
}

/* An operator set the priority (scontrol update priority=N): it is kept as
 * it is, with no factors, until the operator resets it. */
static bool operator_set_priority(const job_record_t *job)
{
	return job->direct_set_prio && job->priority > 0;
}

static bool calculate_running(const fw_config_t *config)
{
	return fw_settings(config)->flags & PRIORITY_FLAGS_CALCULATE_RUNNING;
}

static int add_partition_to_order(void *object, void *arg)
{
	const part_record_t *part = object;
	uint64_t *digest = arg;
	*digest = fw_partition_order_step(*digest, part, part->priority_tier);
	return 0;
}

/* Requires part R (or priority_p_set's caller's locks). The partitions of
 * a multi-partition job in list order, with their tiers. Slurm keeps
 * part_ptr_list sorted by PriorityTier (from 24.05.5 and 24.11.0) and,
 * when a tier changes, re-sorts it in place under the job write lock
 * (sort_all_jobs_partition_lists; from 26.11 it also rebuilds the
 * Partition string and repoints a pending job's part_ptr,
 * 284c3b95f0:src/slurmctld/job_mgr.c). A change between the gather and the
 * store would otherwise leave the list's address as it was and the store
 * would write priorities in the old order under the names of the new. */
static uint64_t partition_order(const job_record_t *job)
{
	uint64_t digest = 0;
	if (job->part_ptr_list)
		list_for_each_ro(job->part_ptr_list, add_partition_to_order,
				 &digest);
	return digest;
}

/* What must not change between the gather and the store. */
static void key_of(const job_record_t *job, fw_job_key_t *key)
{
	const job_details_t *details = job->details;
	key->job_state = job->job_state;
	key->priority = job->priority;
	key->direct_set_prio = job->direct_set_prio;
	key->nice = details ? details->nice : 0;
	key->site_factor = job->site_factor;
	key->time_limit = job->time_limit;
	key->total_cpus = job->total_cpus;
	key->min_nodes = details ? details->min_nodes : 0;
	key->accrue_time = details ? details->accrue_time : 0;
	key->part = job->part_ptr;
	key->part_list = job->part_ptr_list;
	key->qos = job->qos_ptr;
	key->assoc = job->assoc_ptr;
	key->qos_list = fw_jobs_qos_list(job);
	key->part_order = partition_order(job);
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
 * fairshare association (its parent's, for a USE_PARENT one). */
static void fairshare_inputs(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			     const fw_config_t *config,
			     const fw_settings_t *settings, fw_job_input_t *in)
{
	if (!settings->weight_fairshare || !settings->calc_fairshare)
		return;
	if (settings->fair_tree_shares) {
		in->fs_factor = assoc->usage->fs_factor;
		return;
	}
	const slurmdb_assoc_rec_t *fs_assoc = assoc;
	if (assoc->shares_raw == SLURMDB_FS_USE_PARENT &&
	    assoc->usage->fs_assoc_ptr) {
		fs_assoc = assoc->usage->fs_assoc_ptr;
	}
	in->fs_usage_efctv = fs_assoc->usage->usage_efctv;
	in->fs_shares_norm = fs_assoc->usage->shares_norm;
	/* An association added since the last pass has no effective usage yet.
   * multifactor stores one here, under the read lock (a data race); it is
   * computed without storing it, and the next pass stores it. */
	const long double distance = in->fs_usage_efctv - (long double) NO_VAL;
	if (distance > -1e-6 && distance < 1e-6 && assoc_mgr_root_assoc) {
		in->fs_usage_efctv = fw_assocs_efctv(held, fs_assoc, config);
	}
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
	key_of(job, &in->key);
	in->max_cpus = details->max_cpus;
	in->min_cpus = details->min_cpus;
	in->tres_alloc = tres_counts(job->tres_alloc_cnt, settings);
	in->tres_req = tres_counts(job->tres_req_cnt, settings);
	in->has_assoc = assoc != NULL;
	if (assoc) {
		in->assoc_priority = assoc->priority;
		in->assoc_priority_norm = assoc->usage->priority_norm;
		fairshare_inputs(held, assoc, config, settings, in);
	}
	in->has_qos = qos != NULL;
	if (qos) {
		in->qos_priority = qos->priority;
		in->qos_norm_priority = qos->usage->norm_priority;
	}
}

static void partition_input(const part_record_t *part, fw_partition_input_t *in)
{
	in->key = part;
	in->priority_job_factor = part->priority_job_factor;
	in->priority_tier = part->priority_tier;
	in->norm_priority = part->norm_priority;
	in->max_time_min = part->max_time;
	in->tres_cnt = part->tres_cnt;
}

/* part's entry in the cache. */
static const fw_partition_input_t *partition_of(partitions_t *cache,
						const part_record_t *part)
{
	fw_partition_input_t *const last =
		cache->count ? cache->entries[cache->last_hit] : NULL;
	if (last && last->key == part)
		return last;
	for (cache->last_hit = 0; cache->last_hit < cache->count;
	     ++cache->last_hit) {
		if (cache->entries[cache->last_hit]->key == part)
			return cache->entries[cache->last_hit];
	}
	GROW(cache->entries, cache->size, cache->count + 1);
	fw_partition_input_t **entry = &cache->entries[cache->count++];
	if (!*entry)
		*entry =
			xmalloc(sizeof(**entry)); /* kept for the next gather */
	partition_input(part, *entry);
	return *entry;
}

/* The job's partition list, from the cache. */
static void partition_list_into(partitions_t *cache, job_record_t *job,
				fw_job_input_t *in)
{
	GROW(cache->list, cache->list_size, list_count(job->part_ptr_list));
	uint32_t count = 0;
	list_itr_t *it = list_iterator_create(job->part_ptr_list);
	part_record_t *part;
	while ((part = list_next(it)) && count < cache->list_size) {
		cache->list[count++] = partition_of(cache, part);
	}
	list_iterator_destroy(it);
	in->partitions = cache->list;
	in->partition_count = count;
}

static fw_qos_input_t qos_input(const slurmdb_qos_rec_t *qos)
{
	return (fw_qos_input_t){ qos, qos->priority,
				 qos->usage->norm_priority };
}

/* Requires qos R. A job's several QOS, in list order, into the cache. */
static void qos_list_into(partitions_t *cache, list_t *qos_list,
			  fw_job_input_t *in)
{
	GROW(cache->qos, cache->qos_size, list_count(qos_list));
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
static void partitions_of(partitions_t *cache, job_record_t *job,
			  fw_job_input_t *in)
{
	in->partition =
		job->part_ptr ? partition_of(cache, job->part_ptr) : NULL;
	list_t *qos_list = fw_jobs_qos_list(job);
	if (qos_list)
		qos_list_into(cache, qos_list, in);
	if (job->part_ptr_list)
		partition_list_into(cache, job, in);
	const uint32_t *array = FW_PRIO_ARRAY(job);
	in->priority_array =
		array_holds(array, fw_priority_count(in)) ? array : NULL;
}

static void partitions_free(partitions_t *cache)
{
	for (size_t i = 0; i < cache->size; ++i)
		xfree(cache->entries[i]);
	xfree(cache->entries);
	xfree(cache->list);
	xfree(cache->qos);
	memset(cache, 0, sizeof(*cache));
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
	const uint32_t partitions =
		job->part_ptr_list ? list_count(job->part_ptr_list) : 0;
	const uint32_t count =
		qos_list ? MAX(partitions, 1) * list_count(qos_list) :
			   partitions;
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

/* Requires job W. Stores the factors in job->prio_factors, all but the
 * TRES (freeing TRES arrays left there): they are the only factors that
 * need arrays of their own, two small blocks per job. sprio reads the
 * pass's table for the jobs it covers and computes the others' TRES from
 * the job (fw_jobs_partition_row), which is what stored values would be.
 * Stores priority_array; does not set job->priority. */
static void store_factors(job_record_t *job, const fw_factors_t *factors)
{
	fw_factors_t without_tres = *factors;
	without_tres.tres = NULL;
	without_tres.tres_cnt = 0;
	without_tres.tres_columns = NULL;
	without_tres.tres_values = 0;
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(*job->prio_factors));
	fw_factors_fill(job->prio_factors, &without_tres, NULL);
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
				   const fw_config_t *config, time_t now)
{
	FW_REQUIRE(held, FW_WRITE_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   job->priority);
	if (operator_set_priority(job)) {
		clear_factors(job);
		return job->priority;
	}
	if (!job->details) {
		fw_error(
			"job %u has no details, so no priority can be computed",
			job->job_id);
		clear_factors(job);
		return 0;
	}
	fw_job_input_t in;
	partitions_t own = {
		0
	}; /* priority_p_set runs on RPC threads: nothing shared */
	fw_lock(held, FW_ASSOCS_READ);
	job_inputs(held, job, job->job_id, config, &in);
	partitions_of(&own, job, &in);
	fw_unlock(held, FW_ASSOCS_READ);
	const fw_cluster_t cluster = { cluster_cpus, (uint32_t) FW_NODE_COUNT };
	const uint32_t pairs = fw_priority_count(&in);
	uint32_t *partition_priorities = NULL;
	if (pairs)
		partition_priorities = xcalloc(pairs, sizeof(uint32_t));
	fw_factors_t factors;
	fw_job_priority(config, &in, &cluster, now, &factors, NULL,
			partition_priorities);
	store_factors(job, &factors);
	xfree(partition_priorities);
	partitions_free(&own);
	return factors.priority;
}

/* ---- the pass ------------------------------------------------------------------------ */

void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
		    time_t now)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_READ_LOCK, FW_READ_LOCK,
		   FW_READ_LOCK);
	const bool running_too = calculate_running(config);
	const fw_cluster_t cluster = { cluster_cpus, (uint32_t) FW_NODE_COUNT };
	void *const *records;
	const uint32_t *ids;
	const size_t count = fw_pass_jobs(pass, &records, &ids);
	pass_partitions.count = pass_partitions.last_hit = 0;
	fw_pass_begin(pass, config, &cluster, now);
	for (size_t i = 0; i < count; ++i) {
		if (i + RECORDS_AHEAD < count)
			prefetch_record(records[i + RECORDS_AHEAD]);
		if (i + ALLOCATIONS_AHEAD < count)
			prefetch_allocations(records[i + ALLOCATIONS_AHEAD]);
		job_record_t *job = records[i];
		if (!eligible(job, running_too))
			continue;
		/* An operator-set priority (or a job without details) keeps what
     * priority_p_set gave it. */
		if (operator_set_priority(job) || !job->details)
			continue;
		fw_job_input_t in;
		job_inputs(held, job, ids[i], config, &in);
		partitions_of(&pass_partitions, job, &in);
		fw_pass_add(pass, &in, job, job->details, job->prio_factors);
	}
	fw_pass_end_gather(pass);
}

/* The store finds each job by id (a hash lookup) before it reads the job;
 * the core hands the addresses of a job a few items ahead to prefetch. */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t now,
			 size_t *recomputed)
{
	/* false: the pass is not finished; the caller takes the lock again. */
	FW_REQUIRE(held, FW_WRITE_LOCK, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   false);
	const bool running_too = calculate_running(config);
	const time_t stored_at = time(NULL);
	fw_store_item_t item;
	while (fw_pass_store_next(pass, &item)) {
		prefetch_for_store(&item);
		job_record_t *job = find_job_record(item.job_id);
		if (!job || !eligible(job, running_too) ||
		    operator_set_priority(job)) {
			fw_pass_store_done(pass, item.position, false);
			continue;
		}
		fw_job_key_t key;
		key_of(job, &key);
		const bool changed =
			fw_job_key_fingerprint(&key) != item.key_fingerprint;
		uint32_t priority = item.factors.priority;
		if (changed) {
			priority = fw_jobs_compute_and_store(
				held, job, config,
				now); /* its own factors win */
			++*recomputed;
		} else {
			store_factors(job, &item.factors);
		}
		const uint32_t stored = fw_priority_after_incr_only(
			config, priority, job->priority);
		if (stored != job->priority) {
			job->priority = stored;
			last_job_update = stored_at;
		}
		fw_pass_store_done(pass, item.position, !changed);
	}
	return fw_pass_store_end_slice(pass);
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

void fw_jobs_release(void)
{
	fw_pass_t *pass =
		__atomic_exchange_n(&pass_tables, NULL, __ATOMIC_ACQ_REL);
	if (pass)
		fw_pass_destroy(pass);
	xfree(walked);
	xfree(walked_ids);
	walked_size = walked_ids_size = 0;
	partitions_free(&pass_partitions);
}
