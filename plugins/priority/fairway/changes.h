/* SPDX-License-Identifier: GPL-2.0-or-later */
/* changes.c: a fingerprint of the records whose changes move priorities
 * and reach the plugin through no callback (doc/slurm-integration.md §3):
 * associations (updates from slurmdbd end in assoc_mgr_update_object),
 * QOS and partitions. The decay thread compares it every change_check
 * seconds. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_CHANGES_H_
#define FAIRWAY_PLUGIN_CHANGES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locks.h"

/* 64-bit hashes, each over its list (in list order, but the associations'
 * in any order); equal hashes: nothing of it changed (but for a 2^-64
 * chance). */
typedef struct {
	uint64_t partitions; /* name, PriorityJobFactor, PriorityTier */
	uint64_t assocs; /* parent, raw shares, priority; a sum of terms */
	uint64_t qos; /* id, priority */
	/* Each association's raw usage (an admin's RawUsage=0). The plugin's
	 * own charges and decay change it too: a pass takes it again right
	 * after its fairshare (fw_changes_usage). */
	uint64_t usage;
	size_t records; /* partitions + associations + QOS hashed */
	/* assoc R + QOS R held (wall; waits for a writer excluded), and the
	 * CPU the hash took meanwhile (less when slurmctld's threads wait
	 * for a CPU) */
	double held_ms, cpu_ms;
} fw_changes_t;

/* Takes part R, then assoc R + QOS R (FW_PARTS_READ, FW_ASSOCS_READ), one
 * after the other; requires no Slurm lock. */
void fw_changes_fingerprint(fw_changes_t *out);

/* Requires assoc R. What fw_changes_fingerprint would give as usage now:
 * the decay pass takes it right after its fairshare, whose snapshot has
 * just read the same records, instead of a whole fingerprint after the
 * pass (0 without assoc_mgr's list, as there). */
uint64_t fw_changes_usage(const fw_held_t *held);

/* sdiag's counters (slurmctld_diag_stats), read without a lock: each is
 * one aligned word that only slurmctld's threads write, and a torn or late
 * read costs one pass more or less. All 0 outside slurmctld. */
typedef struct {
	/* jobs completed + canceled + failed: the ends that reach no
	 * priority_p_job_end when AccountingStorageEnforce lacks limits */
	uint64_t ended;
	bool backfill_active; /* a backfill cycle is under way */
	uint32_t backfill_cycles; /* cycles completed */
} fw_sched_counters_t;
void fw_changes_scheduler(fw_sched_counters_t *out);

#endif /* FAIRWAY_PLUGIN_CHANGES_H_ */
