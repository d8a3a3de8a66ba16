/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding job_list's records for a pass: by id, the last pass's records
 * and new ids above them, as the core's roster says (fw_pass_roster,
 * fw_pass_refound), or by walking the list; and the pass's table, which
 * sprio reads, with its lock. */
#include "fw_plugin.h"

#include "job_find.h"
#include "fw_prefetch.h"
#include "lock_witness.h"
#include "locks.h"

/* The job_id lines of the records are asked for a few places ahead: of
 * those walked, and of those the lookups by id will compare. */
#define IDS_AHEAD 8
#define LOOKUPS_AHEAD 16

/* The pass's table. The decay thread (or init) creates it, possibly
 * while sprio asks for them on an RPC thread: the pointer is atomic. */
static fw_pass_t *pass_tables;
static pthread_mutex_t table_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The records of the only thread that finds (the decay thread, or init
 * without one), kept from pass to pass: the roster's, in list order (the
 * core keeps their ids). A find rewrites them in place (a record found
 * goes to an index no higher than the one it is checked against), and
 * the ids it found beside them. */
static job_record_t **roster;
static uint32_t *found_ids;
static size_t roster_size, roster_count, found_ids_size;

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

void fw_jobs_table_lock(void)
{
	slurm_mutex_lock(&table_mutex);
}

void fw_jobs_table_unlock(void)
{
	slurm_mutex_unlock(&table_mutex);
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
	FW_GROW(*records, *size, list_count(job_list));
	walk_t walk = { *records, 0, *size };
	/* One traversal under the list's lock taken once (list_next takes it
   * for every job). */
	list_for_each_ro(job_list, append_record, &walk);
	return walk.count;
}

/* Requires job R. The last pass's records found again by id, then new ids
 * above them, as fw_pass_roster says; false when the list must be walked
 * (the core's rule: fw_pass_refound). */
static bool refind(fw_pass_t *pass, size_t expected)
{
	const uint32_t *ids;
	size_t known, n = 0;
	uint32_t id;
	if (!fw_pass_roster(pass, &ids, &known, &id) || known > roster_count)
		return false;
	FW_GROW(roster, roster_size, expected);
	FW_GROW(found_ids, found_ids_size, expected);
	for (size_t i = 0; i < known; ++i) {
		/* Only an address is computed from a record of the last pass
		 * (it may be gone): the line find_job_record compares. */
		if (i + LOOKUPS_AHEAD < known)
			FW_PREFETCH(&roster[i + LOOKUPS_AHEAD]->job_id);
		job_record_t *job = find_job_record(ids[i]);
		if (!job)
			continue; /* purged since */
		if (job != roster[i] || n == expected)
			return false; /* another record under a known id */
		roster[n] = job; /* n <= i: roster[i] is read already */
		found_ids[n++] = ids[i];
	}
	const size_t first_new = n;
	for (uint32_t last = id - 1;
	     n < expected && id < slurm_conf.max_job_id &&
	     id - last <= FW_ROSTER_MAX_ID_GAP;
	     ++id) {
		job_record_t *job = find_job_record(id);
		if (!job)
			continue;
		/* A job array's records move in the list when a task is split
		 * off. */
		if (job->array_job_id)
			return false;
		roster[n] = job;
		found_ids[n++] = last = id;
	}
	return fw_pass_refound(pass, found_ids, n, first_new, expected,
			       slurm_conf.max_job_id);
}

bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK,
		   false);
	size_t count = job_list ? list_count(job_list) : 0;
	const bool walk = !job_list || !refind(pass, count);
	if (walk) { /* a failed find left the roster half rewritten */
		count = fw_jobs_walk(held, &roster, &roster_size);
		FW_GROW(found_ids, found_ids_size, count);
		for (size_t i = 0; i < count; ++i) {
			if (i + IDS_AHEAD < count)
				FW_PREFETCH(&roster[i + IDS_AHEAD]->job_id);
			found_ids[i] = roster[i]->job_id;
		}
		fw_pass_assign_walked(pass, found_ids, count);
	}
	roster_count = count;
	return walk && job_list;
}

size_t fw_jobs_found(const fw_pass_t *pass, job_record_t *const **out,
		     const uint32_t **ids)
{
	const size_t count = fw_pass_jobs(pass, ids);
	*out = roster;
	return MIN(count, roster_count);
}

void fw_jobs_release(void)
{
	fw_pass_t *pass =
		__atomic_exchange_n(&pass_tables, NULL, __ATOMIC_ACQ_REL);
	if (pass)
		fw_pass_destroy(pass);
	xfree(roster);
	xfree(found_ids);
	roster_size = roster_count = found_ids_size = 0;
}
