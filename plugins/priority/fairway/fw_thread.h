/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_thread.c: the plugin's own threads (fw_decay, fw_remote): started
 * once, sleeping on the monotonic clock, woken and joined at stop. No
 * Slurm type here. */
#ifndef FAIRWAY_PLUGIN_FW_THREAD_H_
#define FAIRWAY_PLUGIN_FW_THREAD_H_

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

typedef struct {
	/* Guards the fields below, and whatever the thread's owner keeps
	 * beside them; never held across the thread's work. */
	pthread_mutex_t mutex;
	pthread_cond_t wakeup; /* on CLOCK_MONOTONIC */
	bool stop_requested;
	bool running;
	pthread_t thread;
} fw_thread_t;
#define FW_THREAD_INITIALIZER \
	{ \
		.mutex = PTHREAD_MUTEX_INITIALIZER \
	}

/* Starts main unless it runs already. On failure logs at error level
 * failure_format with strerror as its one %s, and returns false; never
 * fatal (not slurm_thread_create, which stops the controller). Requires
 * t->mutex held by the caller. */
bool fw_thread_start_locked(fw_thread_t *t, void *(*main)(void *),
			    const char *failure_format);
/* Asks the thread to stop and wakes it; true when it was running (the
 * caller then joins it with fw_thread_join, after releasing t->mutex).
 * Requires t->mutex held by the caller. */
bool fw_thread_request_stop_locked(fw_thread_t *t);
/* Waits for the thread to end. Requires t->mutex not held. */
void fw_thread_join(fw_thread_t *t);
/* Sleeps until *deadline (CLOCK_MONOTONIC) or a stop request; true on
 * stop. Takes t->mutex itself. */
bool fw_thread_sleep_until(fw_thread_t *t, const struct timespec *deadline);
/* The calling thread's CPU time, and the monotonic clock, in ms: the
 * threads log where their time goes. */
double fw_thread_cpu_ms(void);
double fw_wall_ms(void);

#endif /* FAIRWAY_PLUGIN_FW_THREAD_H_ */
