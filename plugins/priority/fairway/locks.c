/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lock contracts that are checked (the witness itself: lock_witness.c).
 * The plugin takes Slurm's locks only as
 * the named sets of locks.h, each one Slurm's order inside, and records
 * what it took in a witness (fw_held_t) that it passes to every function
 * whose contract needs a lock. An entry point that slurmctld calls with a
 * lock held states it, citing the caller. A function reached without what
 * it needs says so once at error level ("BUG: ...", which the live tests
 * look for) and does nothing, rather than touch records another thread may
 * be changing. Slurm's own check, verify_lock, exists only in debug builds
 * of slurmctld (Debian's is built with NDEBUG): where it is, it is asked too. */
#include "fw_plugin.h"

#include "locks.h"

_Static_assert((int) FW_NO_LOCK == (int) NO_LOCK &&
		       (int) FW_READ_LOCK == (int) READ_LOCK &&
		       (int) FW_WRITE_LOCK == (int) WRITE_LOCK,
	       "lock levels restated wrongly");

/* Weak: absent (NULL) from a slurmctld built with NDEBUG. */
extern bool verify_lock(lock_datatype_t datatype, lock_level_t level)
	__attribute__((weak));
extern bool verify_assoc_lock(assoc_mgr_lock_datatype_t datatype,
			      lock_level_t level) __attribute__((weak));

/* Each set: slurmctld's {conf, job, node, part, fed}, then assoc_mgr's. */
static const struct {
	slurmctld_lock_t ctld;
	assoc_mgr_lock_t assoc_mgr;
} sets[] = {
	[FW_JOBS_READ] = { .ctld = { .job = READ_LOCK, .part = READ_LOCK } },
	[FW_JOBS_WRITE] = { .ctld = { .job = WRITE_LOCK, .part = READ_LOCK } },
	[FW_JOB_LIST_READ] = { .ctld = { .job = READ_LOCK } },
	[FW_PARTS_READ] = { .ctld = { .part = READ_LOCK } },
	[FW_SITE_FACTORS] = { .ctld = { .job = WRITE_LOCK,
					.node = READ_LOCK,
					.part = READ_LOCK } },
	[FW_SPRIO] = { .ctld = { .job = READ_LOCK,
				 .node = READ_LOCK,
				 .part = READ_LOCK } },
	[FW_ASSOCS_READ] = { .assoc_mgr = { .assoc = READ_LOCK,
					    .qos = READ_LOCK } },
	[FW_FAIRSHARE] = { .assoc_mgr = { .assoc = WRITE_LOCK } },
	[FW_USAGE_WRITE] = { .assoc_mgr = { .assoc = WRITE_LOCK,
					    .qos = WRITE_LOCK,
					    .tres = READ_LOCK } },
	[FW_BOOTSTRAP] = { .assoc_mgr = { .assoc = WRITE_LOCK,
					  .tres = READ_LOCK } },
	/* file W as dump_assoc_mgr_state takes it: one writer of Slurm's
	 * usage files at a time. */
	[FW_USAGE_SAVE] = { .assoc_mgr = { .assoc = READ_LOCK,
					   .file = WRITE_LOCK,
					   .qos = READ_LOCK,
					   .tres = READ_LOCK } },
};

static bool is_ctld(fw_lock_set_t set)
{
	return set <= FW_SPRIO;
}

void fw_lock(fw_held_t *held, fw_lock_set_t set)
{
	if (is_ctld(set)) {
		lock_slurmctld(sets[set].ctld);
		held->job = (fw_lock_level_t) sets[set].ctld.job;
		held->part = (fw_lock_level_t) sets[set].ctld.part;
	} else {
		assoc_mgr_lock_t locks = sets[set].assoc_mgr;
		assoc_mgr_lock(&locks);
		held->assoc = (fw_lock_level_t) locks.assoc;
		held->qos = (fw_lock_level_t) locks.qos;
		held->tres = (fw_lock_level_t) locks.tres;
	}
}

void fw_unlock(fw_held_t *held, fw_lock_set_t set)
{
	if (is_ctld(set)) {
		held->job = held->part = FW_NO_LOCK;
		unlock_slurmctld(sets[set].ctld);
	} else {
		assoc_mgr_lock_t locks = sets[set].assoc_mgr;
		held->assoc = held->qos = held->tres = FW_NO_LOCK;
		assoc_mgr_unlock(&locks);
	}
}

bool fw_slurm_agrees(fw_lock_level_t job, fw_lock_level_t part,
		     fw_lock_level_t assoc, fw_lock_level_t qos)
{
	if (verify_lock && (!verify_lock(JOB_LOCK, (lock_level_t) job) ||
			    !verify_lock(PART_LOCK, (lock_level_t) part)))
		return false;
	return !verify_assoc_lock ||
	       (verify_assoc_lock(ASSOC_LOCK, (lock_level_t) assoc) &&
		verify_assoc_lock(QOS_LOCK, (lock_level_t) qos));
}
