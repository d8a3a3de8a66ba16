/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decay_thread.c: the thread that runs the decay pass. Called by the
 * plugin's entry points (priority_fairway.c), with no lock of the plugin's
 * held. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_DECAY_THREAD_H_
#define FAIRWAY_PLUGIN_DECAY_THREAD_H_

#include <time.h>

#include "locks.h"

/* At init: reads the decay clock (state files), so that fw_last_decay_ran
 * is right before any job ends. */
void fw_decay_thread_prepare(void);
/* Once slurmctld has loaded its jobs: starts the thread (prepared first if
 * need be); a second call does nothing. */
void fw_decay_thread_start(void);
/* Stops the thread and waits for it: no pass runs after it returns. */
void fw_decay_thread_stop(void);
/* What makes the thread run a pass before PriorityCalcPeriod is up
 * (doc/architecture.md, "What triggers a pass"). */
typedef enum {
	FW_TRIGGER_START = 1 << 0, /* the thread's first pass */
	FW_TRIGGER_TIMER = 1 << 1, /* PriorityCalcPeriod */
	FW_TRIGGER_JOB_END = 1 << 2, /* priority_p_job_end (ends, requeues) */
	FW_TRIGGER_RECONFIG = 1 << 3, /* priority_p_reconfig */
	FW_TRIGGER_PARTITION = 1 << 4, /* fingerprints (changes.h) */
	FW_TRIGGER_ASSOC = 1 << 5,
	FW_TRIGGER_QOS = 1 << 6,
	FW_TRIGGER_USAGE = 1 << 7,
	/* A pass stored priorities while backfill held a copy of them
	 * (doc/slurm-integration.md §3): once its cycle is over, another
	 * pass stores again what it put back. */
	FW_TRIGGER_BACKFILL = 1 << 8,
} fw_trigger_t;
/* The next pass reads the configuration again, and runs at the next look
 * for changes; returns at once. */
void fw_decay_thread_reconfig(void);
/* Notes an event for the next look (change_check seconds at most): one
 * pass then serves every event noted since the last. Any thread, any lock
 * held; returns at once (an atomic). */
void fw_decay_thread_note(fw_trigger_t trigger);
/* Where job-end charging starts: when the last pass charged running jobs
 * up to, or ran (0 before the first). Any thread; no lock. */
time_t fw_last_decay_ran(void);
/* Called by a pass once it has charged every running job up to when.
 * Requires job R in *held (a job end holds job W, so it sees either the
 * old value and none of these charges, or both new); does nothing else. */
void fw_decay_charged_until(const fw_held_t *held, time_t when);

#endif /* FAIRWAY_PLUGIN_DECAY_THREAD_H_ */
