/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fingerprint of what moves priorities without telling the plugin
 * (changes.h). Only a hash: no formula, and nothing written. */
#include "fw_plugin.h"

#include <string.h>

#include "changes.h"
#include "fw_prefetch.h"
#include "fw_thread.h"
#include "lock_witness.h"
#include "locks.h"

/* slurmctld's partitions; weak, so that the plugin still loads in sshare
 * and the test programs, which have none (NULL there). */
#pragma weak part_list
#pragma weak slurmctld_diag_stats

/* One multiply and one shift per word: enough to make an accidental
 * collision negligible, cheap enough for 10,000 associations every two
 * seconds (doc/benchmark.md §4). */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t mix_text(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = mix(h, (unsigned char) *s);
	return mix(h, 0);
}

static int hash_partition(void *x, void *arg)
{
	const part_record_t *p = x;
	fw_changes_t *c = arg;
	c->partitions = mix_text(c->partitions, p->name);
	c->partitions =
		mix(c->partitions, ((uint64_t) p->priority_job_factor << 16) |
					   p->priority_tier);
	c->records++;
	return 0;
}

/* The associations' records, listed once per look so that the hash can
 * prefetch ahead of itself: they are scattered over the heap, and a walk
 * of the list alone waits on each (doc/benchmark.md §4). The decay
 * thread's own. */
static const slurmdb_assoc_rec_t **listed;
static size_t listed_count, listed_capacity;

static int append_assoc(void *x, void *unused)
{
	if (listed_count < listed_capacity)
		listed[listed_count++] = x;
	return 0;
}

FW_PREFETCH_HELPER void prefetch_assoc(const slurmdb_assoc_rec_t *a)
{
	FW_PREFETCH(&a->parent_id);
	FW_PREFETCH(&a->priority);
	FW_PREFETCH(&a->shares_raw);
	FW_PREFETCH(&a->usage);
}

/* Each record's hash is added, not chained: the records do not wait on
 * one another, and the list's order does not matter. Only what moves
 * priorities, so that a look reads two or three cache lines per record
 * (parent_id to usage lie within 56 bytes in every release; a record
 * takes more than 300): an association added or removed changes the sum,
 * and its id and default QOS move no pending job's priority. */
static void hash_assocs(fw_changes_t *c)
{
	size_t n = list_count(assoc_mgr_assoc_list);
	if (n > listed_capacity) {
		listed_capacity = n + n / 4;
		xrecalloc(listed, listed_capacity, sizeof(*listed));
	}
	listed_count = 0;
	list_for_each_ro(assoc_mgr_assoc_list, append_assoc, NULL);
	for (size_t i = 0; i < listed_count; i++) {
		if (i + 16 < listed_count)
			prefetch_assoc(listed[i + 16]);
		if (i + 8 < listed_count && listed[i + 8]->usage)
			FW_PREFETCH(&listed[i + 8]->usage->usage_raw);
		const slurmdb_assoc_rec_t *a = listed[i];
		/* usage_raw as a double's bits: a long double has padding. */
		double usage = a->usage ? (double) a->usage->usage_raw : 0;
		uint64_t usage_bits;
		memcpy(&usage_bits, &usage, sizeof(usage_bits));
		c->assocs += mix((uint64_t) a->parent_id << 32 | a->priority,
				 a->shares_raw);
		c->usage += mix(a->parent_id, usage_bits);
	}
	c->records += listed_count;
}

uint64_t fw_changes_usage(const fw_held_t *held)
{
	FW_REQUIRE(held, FW_NO_LOCK, FW_NO_LOCK, FW_READ_LOCK, FW_NO_LOCK, 0);
	fw_changes_t c = { 0 };
	if (assoc_mgr_assoc_list)
		hash_assocs(&c);
	return c.usage;
}

static int hash_qos(void *x, void *arg)
{
	const slurmdb_qos_rec_t *q = x;
	fw_changes_t *c = arg;
	c->qos = mix(c->qos, ((uint64_t) q->id << 32) | q->priority);
	c->records++;
	return 0;
}

void fw_changes_fingerprint(fw_changes_t *c)
{
	*c = (fw_changes_t){ 0 };
	fw_held_t held = { 0 };
	fw_lock(&held, FW_PARTS_READ);
	if (&part_list && part_list)
		list_for_each_ro(part_list, hash_partition, c);
	fw_unlock(&held, FW_PARTS_READ);
	fw_lock(&held, FW_ASSOCS_READ);
	const double start = fw_wall_ms(), cpu_start = fw_thread_cpu_ms();
	if (assoc_mgr_assoc_list)
		hash_assocs(c);
	if (assoc_mgr_qos_list)
		list_for_each_ro(assoc_mgr_qos_list, hash_qos, c);
	c->cpu_ms = fw_thread_cpu_ms() - cpu_start;
	c->held_ms = fw_wall_ms() - start;
	fw_unlock(&held, FW_ASSOCS_READ);
}

void fw_changes_scheduler(fw_sched_counters_t *out)
{
	*out = (fw_sched_counters_t){ 0 };
	if (!&slurmctld_diag_stats)
		return;
	const volatile diag_stats_t *d = &slurmctld_diag_stats;
	out->ended = (uint64_t) d->jobs_completed + d->jobs_canceled +
		     d->jobs_failed;
	out->backfill_active = d->bf_active;
	out->backfill_cycles = d->bf_cycle_counter;
}
