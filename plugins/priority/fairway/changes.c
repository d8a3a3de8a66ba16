/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fingerprint of what moves priorities without telling the plugin
 * (changes.h). Only a hash: no formula, and nothing written. */
#include "fw_plugin.h"

#include <string.h>

#include "changes.h"
#include "fw_prefetch.h"
#include "locks.h"

/* slurmctld's partitions; weak, so that the plugin still loads in sshare
 * and the test programs, which have none (NULL there). */
#pragma weak part_list
#pragma weak slurmctld_diag_stats

/* One multiply and one shift per word: enough to make an accidental
 * collision negligible, cheap enough for 10,000 associations every two
 * seconds (doc/benchmark.md). */
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

static int hash_assoc(void *x, void *arg)
{
	const slurmdb_assoc_rec_t *a = x;
	fw_changes_t *c = arg;
	/* usage_raw as a double's bits: a long double has padding bytes. */
	double usage = a->usage ? (double) a->usage->usage_raw : 0;
	uint64_t usage_bits;
	memcpy(&usage_bits, &usage, sizeof(usage_bits));
	c->assocs = mix(c->assocs, ((uint64_t) a->id << 32) | a->parent_id);
	c->assocs =
		mix(c->assocs, ((uint64_t) a->shares_raw << 32) | a->priority);
	c->assocs = mix(c->assocs, a->def_qos_id);
	c->usage = mix(c->usage, usage_bits);
	c->records++;
	return 0;
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
	if (assoc_mgr_assoc_list)
		list_for_each_ro(assoc_mgr_assoc_list, hash_assoc, c);
	if (assoc_mgr_qos_list)
		list_for_each_ro(assoc_mgr_qos_list, hash_qos, c);
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
