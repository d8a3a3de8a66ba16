/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An LD_PRELOAD shim for charge_race.sh, loaded into slurmctld alone
 * (scripts/cluster's FAIRWAY_CTLD_ENV). While the file named by
 * FW_HOLD_ARMED exists, an fsync of priority_last_decay_ran.new (the decay
 * clock both plugins write at the end of a pass) first sleeps
 * FW_HOLD_SECONDS (default 10). It appends "start T" to FW_HOLD_LOG
 * before the sleep and "end T" after it (T: epoch seconds), so a reader
 * knows when no hold is under way. The window between a pass's charge of
 * running jobs and its end, milliseconds without it, is then long enough
 * for a job to end in. Every other call is the real fsync, unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char clock_new[] = "/priority_last_decay_ran.new";

/* Whether fd is the clock's .new file, by the path the kernel holds. */
static int is_clock_new(int fd)
{
	char link[64], path[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	size_t k = sizeof(clock_new) - 1;
	if (n < (ssize_t) k)
		return 0;
	path[n] = '\0';
	return strcmp(path + n - k, clock_new) == 0;
}

/* Appends "what T" to FW_HOLD_LOG. */
static void note(const char *what)
{
	const char *log = getenv("FW_HOLD_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;
	if (f) {
		fprintf(f, "%s %lld\n", what, (long long) time(NULL));
		fclose(f);
	}
}

int fsync(int fd)
{
	static int (*real_fsync)(int);
	if (!real_fsync)
		real_fsync = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
	const char *armed = getenv("FW_HOLD_ARMED");
	if (armed && access(armed, F_OK) == 0 && is_clock_new(fd)) {
		const char *s = getenv("FW_HOLD_SECONDS");
		note("start");
		sleep(s ? (unsigned) atoi(s) : 10);
		note("end");
	}
	return real_fsync(fd);
}
