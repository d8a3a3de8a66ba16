/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The thread that runs the decay pass every PriorityCalcPeriod (named
 * "fw_decay" to be told from multifactor's "decay"), and sooner when
 * something that moves priorities changed: it looks every change_check
 * seconds (PriorityParameters) for a job end or a reconfigure noted by the
 * entry points and for a changed fingerprint of associations, QOS and
 * partitions (changes.h), which no callback reports. It owns the thread,
 * its sleep and the triggers; a pass is decay_pass.c's. No Slurm header
 * here. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decay_thread.h"
#include "changes.h"
#include "config_store.h"
#include "decay_pass.h"
#include "fw_host.h"
#include "fw_thread.h"
#include "lock_witness.h"
#include "remote_sync.h"

/* decay.mutex guards decay's fields and the two below, and is held only
 * for them and the sleep between passes, never across a pass: slurmctld
 * calls priority_p_reconfig and fini holding its own locks, which a pass
 * waits for. */
static fw_thread_t decay = FW_THREAD_INITIALIZER;
/* The clock recovered at init (fw_decay_thread_prepare), handed to the
 * thread when it starts. */
static fw_decay_clock_t prepared_clock;
static bool prepared = false;
/* Set by priority_p_reconfig and read by the next pass: atomic, so that
 * the caller never waits for a pass. */
static atomic_bool reconfig_requested;
static _Atomic time_t last_ran;
/* fw_trigger_t bits noted by the entry points since the last look. */
static atomic_uint noted;

time_t fw_last_decay_ran(void)
{
	return atomic_load(&last_ran);
}

void fw_decay_charged_until(const fw_held_t *held, time_t when)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK);
	atomic_store(&last_ran, when);
}

void fw_decay_thread_reconfig(void)
{
	atomic_store(&reconfig_requested, true);
	fw_decay_thread_note(FW_TRIGGER_RECONFIG);
}

void fw_decay_thread_note(fw_trigger_t trigger)
{
	atomic_fetch_or(&noted, (unsigned) trigger);
}

/* The names of the triggers in *bits, joined by '+' ("job_end+assoc"). */
static void trigger_names(unsigned bits, char *out, size_t size)
{
	static const char *const names[] = {
		"start", "timer", "job_end", "reconfigure", "partition",
		"assoc", "qos",   "usage",   "backfill"
	};
	out[0] = '\0';
	size_t used = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(bits & (1u << i)) || used + strlen(names[i]) + 2 > size)
			continue;
		used += (size_t) snprintf(out + used, size - used, "%s%s",
					  used ? "+" : "", names[i]);
	}
}

/* The triggers the records show: which fingerprint moved since *seen. */
static unsigned changed(const fw_changes_t *now, const fw_changes_t *seen)
{
	return (now->partitions != seen->partitions ? FW_TRIGGER_PARTITION :
						      0) |
	       (now->assocs != seen->assocs ? FW_TRIGGER_ASSOC : 0) |
	       (now->qos != seen->qos ? FW_TRIGGER_QOS : 0) |
	       (now->usage != seen->usage ? FW_TRIGGER_USAGE : 0);
}

static void *thread_main(void *unused)
{
	pthread_setname_np(pthread_self(), "fw_decay");
	time_t start_time = time(NULL);
	fw_config_t *config = fw_config_get();
	pthread_mutex_lock(&decay.mutex);
	fw_decay_clock_t clock = prepared_clock;
	pthread_mutex_unlock(&decay.mutex);
	fw_decay_recover_usage(config, start_time, &clock);
	atomic_store(&last_ran, clock.last_ran);
	/* The decay clock counts whole seconds: a first pass in the second of
	 * the last one (slurmctld restarted, or re-executed by a 23.11+
	 * reconfigure, right after a pass) would decay nothing and, in a
	 * classic mode, skip its jobs, leaving the new weights unapplied
	 * until the next trigger. */
	while (clock.last_ran && time(NULL) == clock.last_ran) {
		struct timespec wake;
		clock_gettime(CLOCK_MONOTONIC, &wake);
		wake.tv_nsec += 100 * 1000 * 1000;
		if (wake.tv_nsec >= 1000 * 1000 * 1000) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000 * 1000 * 1000;
		}
		if (fw_thread_sleep_until(&decay, &wake))
			goto stop;
	}
	start_time = time(NULL);

	/* Deadlines are on the monotonic clock: a wall clock set back must
	 * not stall the passes. */
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	unsigned triggers = FW_TRIGGER_START;
	fw_changes_t seen = { 0 };
	/* The last look since the last pass, if any: the shape of the records
	 * the next pass starts from. A change between it and the pass's read
	 * costs one more pass, found by the next look, rather than a look
	 * more in every pass. */
	fw_changes_t latest = { 0 };
	bool latest_valid = false;
	fw_sched_counters_t sched_seen = { 0 }, sched_now = { 0 };
	bool backfill_overlap = false;
	/* The looks since the last pass: how many, their total and longest
	 * lock hold and their CPU (the pass's log line and
	 * fairway_pass_stats). */
	size_t looks = 0;
	double looks_ms = 0, looks_cpu_ms = 0, longest_look_ms = 0;
	for (;;) {
		fw_config_unref(config);
		config = fw_config_get();
		if (atomic_exchange(&reconfig_requested, false)) {
			clock.reset.period = fw_settings(config)->reset_period;
			clock.reset.next_reset = 0;
		}
		const bool look = fw_settings(config)->change_check_s > 0;
		/* What is noted from here on happened during this pass, perhaps
		 * after it read it: it triggers the next one. */
		triggers |= atomic_exchange(&noted, 0);
		fw_changes_scheduler(&sched_seen);
		/* The records' shape before the pass reads them: a change
		 * while it runs is seen at the next look. */
		fw_changes_t before = seen;
		if (look && latest_valid)
			before = latest;
		else if (look)
			fw_changes_fingerprint(&before);
		latest_valid = false;
		/* A rebuild that found no slurmdbd is retried every pass. One
		 * that succeeds counted running jobs up to start_time: job ends
		 * charge from there on, not from the clock before it. */
		fw_decay_bootstrap(config, start_time, &clock, true);
		atomic_store(&last_ran, clock.last_ran);
		fw_pass_report_t report;
		struct timespec pass_start, pass_end;
		clock_gettime(CLOCK_MONOTONIC, &pass_start);
		fw_decay_pass(config, start_time, &clock, &report);
		clock_gettime(CLOCK_MONOTONIC, &pass_end);
		report.wall_ms = (pass_end.tv_sec - pass_start.tv_sec) * 1e3 +
				 (pass_end.tv_nsec - pass_start.tv_nsec) / 1e6;
		atomic_store(&last_ran, clock.last_ran);
		/* The usage as this pass left it (its own charges and decay
		 * are no change to react to), which the pass took because
		 * looks are on in the configuration it ran with. */
		if (look) {
			seen = before;
			seen.usage = report.usage_after;
		}
		/* Backfill keeps each job's priority from its queue's making
		 * and writes it back when it tests the job, after yielding its
		 * locks: what this pass stored meanwhile can be undone. */
		fw_changes_scheduler(&sched_now);
		if (report.jobs.stored &&
		    (sched_seen.backfill_active || sched_now.backfill_active ||
		     sched_seen.backfill_cycles != sched_now.backfill_cycles))
			backfill_overlap = true;
		trigger_names(triggers, report.trigger, sizeof(report.trigger));
		report.looks = looks;
		report.look_ms = looks ? looks_ms / looks : 0;
		report.longest_look_ms = longest_look_ms;
		report.look_cpu_ms = looks ? looks_cpu_ms / looks : 0;
		report.look_records = seen.records;
		looks = 0;
		looks_ms = looks_cpu_ms = longest_look_ms = 0;
		fw_decay_pass_log(&report);
		/* After the pass, with no Slurm lock held: a file for `fairway
		 * metrics` and `fairway explain`. */
		fw_decay_pass_save(&report, start_time, time(NULL));
		/* PriorityCalcPeriod stays the longest time between passes. */
		deadline = pass_start;
		deadline.tv_sec += fw_host_calc_period();
		triggers = 0;
		for (;;) {
			const int64_t check =
				fw_settings(config)->change_check_s;
			struct timespec wake = deadline, now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (check > 0 && now.tv_sec + check < deadline.tv_sec) {
				wake = now;
				wake.tv_sec += check;
			}
			if (fw_thread_sleep_until(&decay, &wake))
				goto stop;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec &&
			     now.tv_nsec >= deadline.tv_nsec)) {
				triggers |= FW_TRIGGER_TIMER;
				break;
			}
			/* Whatever happened since the last look costs one
			 * pass: the interval is the debounce. */
			triggers |= atomic_exchange(&noted, 0);
			fw_changes_scheduler(&sched_now);
			if (sched_now.ended != sched_seen.ended)
				triggers |= FW_TRIGGER_JOB_END;
			if (backfill_overlap && !sched_now.backfill_active) {
				triggers |= FW_TRIGGER_BACKFILL;
				backfill_overlap = false;
			}
			if (check > 0) {
				fw_changes_t current;
				fw_changes_fingerprint(&current);
				/* The locks' hold: the look's cost to slurmctld
				 * (a wait for a writer is not); and its CPU. */
				const double took = current.held_ms;
				looks++;
				looks_ms += took;
				looks_cpu_ms += current.cpu_ms;
				if (took > longest_look_ms)
					longest_look_ms = took;
				triggers |= changed(&current, &seen);
				latest = current;
				latest_valid = true;
			}
			/* The decay clock counts whole seconds: a pass in the
			 * second of the last would charge and decay nothing, and
			 * a classic mode would skip its jobs. */
			if (triggers && time(NULL) > clock.last_ran)
				break;
		}
		start_time = time(NULL);
	}
stop:
	fw_config_unref(config);
	return NULL;
}

void fw_decay_thread_prepare(void)
{
	fw_config_t *config = fw_config_get();
	fw_decay_clock_t clock;
	fw_decay_recover_clock(config, time(NULL), &clock);
	fw_config_unref(config);
	pthread_mutex_lock(&decay.mutex);
	prepared_clock = clock;
	prepared = true;
	atomic_store(&last_ran, clock.last_ran);
	pthread_mutex_unlock(&decay.mutex);
}

void fw_decay_thread_start(void)
{
	if (!prepared)
		fw_decay_thread_prepare();
	/* The other clusters' usage lives as long as the decay does; its
	 * state is read before the first pass. */
	fw_remote_thread_start();
	pthread_mutex_lock(&decay.mutex);
	fw_thread_start_locked(
		&decay, thread_main,
		"cannot start the decay thread: %s; no decay, charging or fairshare until slurmctld restarts");
	pthread_mutex_unlock(&decay.mutex);
}

/* Wakes the thread, waits for its current pass to finish and joins it. */
void fw_decay_thread_stop(void)
{
	fw_remote_thread_stop();
	pthread_mutex_lock(&decay.mutex);
	bool was_running = fw_thread_request_stop_locked(&decay);
	prepared = false;
	pthread_mutex_unlock(&decay.mutex);
	if (was_running)
		fw_thread_join(&decay);
}
