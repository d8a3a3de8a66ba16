/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding job_list's records for a pass: by id, from the roster of the
 * last pass the core keeps (fw_pass_refind), or by walking the list; and
 * the pass's tables, which sprio reads. */
#include "fw_plugin.h"

#include "job_find.h"
#include "fw_prefetch.h"
#include "lock_witness.h"
#include "locks.h"

/* The ids of the walked records are read a few places ahead. */
#define IDS_AHEAD 8

/* The pass's tables. The decay thread (or init) creates them, possibly
 * while sprio asks for them on an RPC thread: the pointer is atomic. */
static fw_pass_t *pass_tables;

/* Scratch of the only thread that finds (the decay thread, or init
 * without one), kept from pass to pass. */
static job_record_t **walked; /* fw_jobs_find's walk, with the ids */
static uint32_t *walked_ids;
static size_t walked_size, walked_ids_size;

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
	FW_GROW(walked_ids, walked_ids_size, count);
	for (size_t i = 0; i < count; ++i) {
		if (i + IDS_AHEAD < count)
			FW_PREFETCH(&walked[i + IDS_AHEAD]->job_id);
		walked_ids[i] = walked[i]->job_id;
	}
	fw_pass_assign_walked(pass, (void *const *) walked, walked_ids, count);
	return true;
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
}
