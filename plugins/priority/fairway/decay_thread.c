/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The thread that runs the decay pass every PriorityCalcPeriod (named
 * "fw_decay" to be told from multifactor's "decay"). It owns the thread
 * and its sleep only; a pass is decay_pass.c's. No Slurm header here. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "decay_thread.h"
#include "config_store.h"
#include "decay_pass.h"
#include "fw_host.h"
#include "fw_thread.h"
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

time_t fw_last_decay_ran(void)
{
	return atomic_load(&last_ran);
}

void fw_decay_thread_reconfig(void)
{
	atomic_store(&reconfig_requested, true);
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

	/* Deadlines advance on a fixed cadence from the thread's start, on the
	 * monotonic clock: a wall clock set back must not stall the passes. */
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (;;) {
		fw_config_unref(config);
		config = fw_config_get();
		if (atomic_exchange(&reconfig_requested, false)) {
			clock.reset.period = fw_settings(config)->reset_period;
			clock.reset.next_reset = 0;
		}
		/* A rebuild that found no slurmdbd is retried every pass. */
		fw_decay_bootstrap(config, start_time, &clock, true);
		fw_pass_report_t report;
		struct timespec pass_start, pass_end;
		clock_gettime(CLOCK_MONOTONIC, &pass_start);
		fw_decay_pass(config, start_time, &clock, &report);
		clock_gettime(CLOCK_MONOTONIC, &pass_end);
		report.wall_ms = (pass_end.tv_sec - pass_start.tv_sec) * 1e3 +
				 (pass_end.tv_nsec - pass_start.tv_nsec) / 1e6;
		atomic_store(&last_ran, clock.last_ran);
		fw_decay_pass_log(&report);
		/* After the pass, with no Slurm lock held: a file for `fairway
		 * metrics`. */
		fw_decay_pass_save(&report, start_time, time(NULL));
		deadline.tv_sec += fw_host_calc_period();
		if (fw_thread_sleep_until(&decay, &deadline))
			break;
		start_time = time(NULL);
	}
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
