/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decay_pass.c: the decay pass and the start-up that precedes the first
 * one. Only the decay thread calls them (or init() once, without
 * slurmdbd); every lock is taken inside, the caller holds none (decay_pass.c
 * states which step takes which). No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_DECAY_PASS_H_
#define FAIRWAY_PLUGIN_DECAY_PASS_H_

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "api/fairway_api.h"

/* What one pass hands the next: the decay clock and the reset schedule. */
typedef struct {
	time_t last_ran; /* the previous pass; 0: none (charge from job starts) */
	fw_reset_state_t reset; /* PriorityUsageResetPeriod */
	bool rebuild_usage; /* assoc_usage was missing: the bootstrap replaces usage */
	bool bootstrap_pending; /* a usage bootstrap still to run (slurmdbd did not answer) */
	bool without_accounting; /* no slurmdbd: no decay, no clock, jobs only */
} fw_decay_clock_t;

/* What a pass did: the decay thread logs it. */
struct fw_pass_cpu {
	double decay, find, charge, fairshare, priority, state; /* ms of CPU */
};
typedef struct {
	struct fw_pass_cpu cpu;
	size_t charged, job_records, holds;
	size_t recomputed; /* jobs changed between the gather and the store */
	fw_pass_stats_t jobs;
	bool walked;
	double gather_ms, held_ms, longest_hold_ms; /* wall time */
	double wall_ms; /* the whole pass: set by its caller */
	/* Set by the caller too: what started the pass ("timer",
	 * "job_end+assoc", ...), and the looks for changes since the last
	 * pass: how many, their mean and longest hold of assoc R + QOS R,
	 * their mean CPU, and how many records each hashed. */
	char trigger[80];
	/* With looks for changes on (change_check > 0 in the pass's
	 * configuration), the associations' usage hash (changes.h) right
	 * after the pass's fairshare; 0 otherwise. */
	uint64_t usage_after;
	size_t looks, look_records;
	double look_ms, longest_look_ms, look_cpu_ms;
} fw_pass_report_t;

/* At init: recovers the decay clock from the state files, so that a job
 * that ends before the first pass is charged from it. */
void fw_decay_recover_clock(const fw_config_t *config, time_t now,
			    fw_decay_clock_t *clock);
/* At the thread's start, once slurmctld has loaded its jobs: releases the
 * GrpTRESRunMins slurmctld re-reserved for running jobs, loads the
 * planned-use ledger and tries the usage bootstrap when one is due. */
void fw_decay_recover_usage(const fw_config_t *config, time_t now,
			    fw_decay_clock_t *clock);
/* Runs a pending usage bootstrap; retry: a later pass (said less). */
void fw_decay_bootstrap(const fw_config_t *config, time_t now,
			fw_decay_clock_t *clock, bool retry);
/* One pass at now; advances *clock. */
void fw_decay_pass(const fw_config_t *config, time_t now,
		   fw_decay_clock_t *clock, fw_pass_report_t *report);
void fw_decay_pass_log(const fw_pass_report_t *report);
/* The pass statistics file StateSaveLocation/fairway_pass_stats, read by
 * `fairway metrics` (tool/pass_stats.h parses it; doc/metrics.md): one
 * "key=value" line each, after a "format=1" line. Requires that no Slurm
 * lock is held (it takes the state-file lock only); a failure is logged
 * once, never fatal. started, ended: the pass's wall clock (unix seconds). */
void fw_decay_pass_save(const fw_pass_report_t *report, time_t started,
			time_t ended);
/* init() without slurmdbd: the jobs' factors once, no thread. */
void fw_decay_pass_once_without_thread(time_t now);

#endif /* FAIRWAY_PLUGIN_DECAY_PASS_H_ */
