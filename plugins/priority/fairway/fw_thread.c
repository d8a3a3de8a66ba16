/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's own threads (fw_thread.h). No Slurm header here. */
#include <errno.h>
#include <string.h>

#include "fw_thread.h"
#include "config_store.h"

bool fw_thread_start_locked(fw_thread_t *t, void *(*main)(void *),
			    const char *failure_format)
{
	if (t->running)
		return true;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wakeup, &attr);
	pthread_condattr_destroy(&attr);
	t->stop_requested = false;
	int err = pthread_create(&t->thread, NULL, main, NULL);
	if (err) {
		fw_log(FW_LOG_ERROR, failure_format, strerror(err));
		pthread_cond_destroy(&t->wakeup);
		return false;
	}
	t->running = true;
	return true;
}

bool fw_thread_request_stop_locked(fw_thread_t *t)
{
	bool was_running = t->running;
	t->stop_requested = true;
	t->running = false;
	if (was_running)
		pthread_cond_broadcast(&t->wakeup);
	return was_running;
}

void fw_thread_join(fw_thread_t *t)
{
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->wakeup);
}

bool fw_thread_sleep_until(fw_thread_t *t, const struct timespec *deadline)
{
	pthread_mutex_lock(&t->mutex);
	while (!t->stop_requested &&
	       pthread_cond_timedwait(&t->wakeup, &t->mutex, deadline) !=
		       ETIMEDOUT)
		;
	bool stop = t->stop_requested;
	pthread_mutex_unlock(&t->mutex);
	return stop;
}

double fw_thread_cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double fw_wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
