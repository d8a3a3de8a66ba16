/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lock witness's check (see locks.c): a function that needs a lock
 * asks whether its caller's witness shows it. No Slurm header here. */
#include <pthread.h>

#include "lock_witness.h"
#include "config_store.h"
#include "locks.h"

bool fw_holds(const fw_held_t *held, const char *function, fw_lock_level_t job,
	      fw_lock_level_t part, fw_lock_level_t assoc, fw_lock_level_t qos)
{
	static const char *const level[] = { "no", "read", "write" };
	static pthread_mutex_t said_mutex = PTHREAD_MUTEX_INITIALIZER;
	static const char *said[32]; /* the functions that said so: once each */
	if (held->job >= job && held->part >= part && held->assoc >= assoc &&
	    held->qos >= qos && fw_slurm_agrees(job, part, assoc, qos))
		return true;
	bool first = true;
	pthread_mutex_lock(&said_mutex);
	int i = 0;
	while (i < 32 && said[i] && said[i] != function)
		i++;
	if (i < 32 && said[i] == function)
		first = false;
	else if (i < 32)
		said[i] = function;
	pthread_mutex_unlock(&said_mutex);
	if (first)
		fw_log(FW_LOG_ERROR,
		       "BUG: %s requires job %s, partition %s, association %s and QOS %s locks; its caller holds job %s, partition %s, association %s, QOS %s: not done",
		       function, level[job], level[part], level[assoc],
		       level[qos], level[held->job], level[held->part],
		       level[held->assoc], level[held->qos]);
	return false;
}
