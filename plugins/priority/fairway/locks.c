/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lock contracts that are checked. Every function of the plugin whose
 * contract needs a Slurm lock takes a witness, fw_held_t, that says what
 * its caller holds: the fw_lock_* wrappers record what they take, and an
 * entry point that slurmctld calls with a lock held states it (citing the
 * caller). A function reached without what it needs says so once at error
 * level ("BUG: ...", which the live tests look for) and does nothing,
 * rather than touch records another thread may be changing. Slurm's own
 * check, verify_lock, exists only in debug builds of slurmctld (Debian's is
 * built with NDEBUG): where it is there, it is asked too. */
#include "fw_plugin.h"

/* Weak: absent (NULL) from a slurmctld built with NDEBUG. */
extern bool verify_lock(lock_datatype_t datatype, lock_level_t level) __attribute__((weak));
extern bool verify_assoc_lock(assoc_mgr_lock_datatype_t datatype, lock_level_t level)
	__attribute__((weak));

void fw_lock_slurmctld(fw_held_t *held, slurmctld_lock_t locks)
{
	lock_slurmctld(locks);
	held->job = locks.job;
	held->part = locks.part;
}

void fw_unlock_slurmctld(fw_held_t *held, slurmctld_lock_t locks)
{
	held->job = held->part = NO_LOCK;
	unlock_slurmctld(locks);
}

void fw_lock_assoc_mgr(fw_held_t *held, assoc_mgr_lock_t locks)
{
	assoc_mgr_lock(&locks);
	held->assoc = locks.assoc;
	held->qos = locks.qos;
	held->tres = locks.tres;
}

void fw_unlock_assoc_mgr(fw_held_t *held, assoc_mgr_lock_t locks)
{
	held->assoc = held->qos = held->tres = NO_LOCK;
	assoc_mgr_unlock(&locks);
}

static bool slurm_agrees(lock_level_t job, lock_level_t part, lock_level_t assoc,
			 lock_level_t qos)
{
	if (verify_lock && (!verify_lock(JOB_LOCK, job) || !verify_lock(PART_LOCK, part)))
		return false;
	if (verify_assoc_lock &&
	    (!verify_assoc_lock(ASSOC_LOCK, assoc) || !verify_assoc_lock(QOS_LOCK, qos)))
		return false;
	return true;
}

bool fw_holds(const fw_held_t *held, const char *function, lock_level_t job, lock_level_t part,
	      lock_level_t assoc, lock_level_t qos)
{
	static const char *const level[] = { "no", "read", "write" };
	if (held->job >= job && held->part >= part && held->assoc >= assoc && held->qos >= qos &&
	    slurm_agrees(job, part, assoc, qos))
		return true;
	/* Said once per function (a pass would say it per job). */
	static pthread_mutex_t said_mutex = PTHREAD_MUTEX_INITIALIZER;
	static const char *said[32];
	bool first = true;
	slurm_mutex_lock(&said_mutex);
	for (int i = 0; i < 32 && said[i]; i++)
		first = first && said[i] != function;
	for (int i = 0; first && i < 32; i++)
		if (!said[i]) {
			said[i] = function;
			break;
		}
	slurm_mutex_unlock(&said_mutex);
	if (first)
		fw_error("BUG: %s requires job %s, partition %s, association %s and QOS %s locks; its caller holds job %s, partition %s, association %s, QOS %s: not done",
			 function, level[job], level[part], level[assoc], level[qos],
			 level[held->job], level[held->part], level[held->assoc], level[held->qos]);
	return false;
}
