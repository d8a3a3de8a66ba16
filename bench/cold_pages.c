/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How much it costs on this machine to read memory again after it was left
 * alone for a second or two: what a decay pass does to tens of thousands
 * of job records, and a look for changes to the associations every
 * change_check seconds (doc/benchmark.md, "Memory left alone").
 *
 * On bare metal a page read again costs the same as a page just read
 * (tens of nanoseconds: a TLB and cache miss). On some virtual machines
 * the hypervisor or the guest's own memory manager (DAMON's pageout, a
 * balloon) takes pages back that were not touched for a while, and the
 * next touch costs microseconds. A pass's CPU then grows with the pages
 * it touches, whichever plugin runs it, and passes vary with how long
 * the memory was left alone. bench/live.sh prints this line in its report
 * so that two reports can be compared knowing that.
 *
 * Prints one line: the cost per 4 KiB page of reading 64 MiB again right
 * after it was read, and after 1 and 2 s of sleep. Takes about 3 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kPage = 4096 };
static const size_t kBytes = (size_t) 64 << 20;

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Microseconds per page to read one byte of each page of p. */
static double touch_us(const volatile char *p)
{
	const double start = now_us();
	for (size_t i = 0; i < kBytes; i += kPage)
		(void) p[i]; /* volatile: every read is made */
	return (now_us() - start) / (kBytes / kPage);
}

int main(void)
{
	char *p = malloc(kBytes);
	if (!p) {
		perror("cold_pages: malloc");
		return 1;
	}
	memset(p, 1, kBytes);
	const double hot = touch_us(p);
	sleep(1);
	const double after_1s = touch_us(p);
	sleep(2);
	const double after_2s = touch_us(p);
	printf("memory read again, per 4 KiB page: %.3f us at once, %.3f us after 1 s, %.3f us after 2 s alone\n",
	       hot, after_1s, after_2s);
	free(p);
	return 0;
}
