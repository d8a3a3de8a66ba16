/* SPDX-License-Identifier: GPL-2.0-or-later */
/* locks.c: the named lock sets the plugin takes, and the witness of what
 * the calling thread holds. No Slurm type here (locks.c checks that the
 * levels restated below are Slurm's).
 *
 * Lock notation in the contracts of the boundary's headers (Slurm's order,
 * never reversed):
 *   job R/W, part R    lock_slurmctld (conf, job, node, part, fed)
 *   assoc R/W, qos R/W, tres R   assoc_mgr_lock
 *   ledger             fw_ledger_acquire (ledger_file.c)
 *   state files        lock_state_files
 * "Requires X": the caller holds X, recorded in its fw_held_t when the
 * function takes one. "Takes X": the function takes and releases X itself;
 * the caller must not hold X, nor anything after it in the order. */
#ifndef FAIRWAY_PLUGIN_LOCKS_H_
#define FAIRWAY_PLUGIN_LOCKS_H_

#include <stdbool.h>

/* Slurm's lock levels, restated (locks.c checks they match). */
typedef enum {
	FW_NO_LOCK = 0,
	FW_READ_LOCK = 1,
	FW_WRITE_LOCK = 2
} fw_lock_level_t;
/* What the calling thread holds, as far as the plugin knows: passed to every
 * function whose contract needs a Slurm lock (see locks.c). */
typedef struct {
	fw_lock_level_t job, part; /* slurmctld's */
	fw_lock_level_t assoc, qos, tres; /* assoc_mgr's */
} fw_held_t;
/* The lock sets the plugin takes; slurmctld's before assoc_mgr's when both
 * are held, never the other way round. */
typedef enum {
	FW_JOBS_READ, /* job R, part R: finding and gathering jobs; sprio (22.05) */
	FW_JOBS_WRITE, /* job W, part R: storing priorities */
	FW_JOB_LIST_READ, /* job R: the run-seconds release at restart */
	FW_PARTS_READ, /* part R: the partitions' fingerprint (changes.c) */
	FW_SITE_FACTORS, /* job W, node R, part R: the site factor plugin's update */
	FW_SPRIO, /* job R, node R, part R: sprio's list (22.05: the plugin locks) */
	FW_ASSOCS_READ, /* assoc R, qos R: job factors */
	FW_FAIRSHARE, /* assoc W: fairshare written back */
	FW_USAGE_WRITE, /* assoc W, qos W, tres R: usage charged, decayed, reset */
	FW_BOOTSTRAP, /* assoc W, tres R: usage rebuilt */
	FW_USAGE_SAVE, /* assoc R, qos R, tres R, file W: usage_save.c */
} fw_lock_set_t;
/* An entry point whose caller holds job W and part R (priority_p_set and
 * priority_p_job_end: slurm-22-05-8-1:src/slurmctld/job_mgr.c). */
#define FW_HELD_BY_JOB_WRITER \
	((fw_held_t){ .job = FW_WRITE_LOCK, .part = FW_READ_LOCK })
/* sprio's RPC from 23.02: job R, node R, part R and QOS R
 * (slurm-23-02-8-1:src/slurmctld/proc_req.c _slurm_rpc_get_priority_factors). */
#define FW_HELD_BY_SPRIO_CALLER \
	((fw_held_t){ .job = FW_READ_LOCK, \
		      .part = FW_READ_LOCK, \
		      .qos = FW_READ_LOCK })

/* Requires that *held holds nothing of set (fw_lock) or all of it
 * (fw_unlock), and, for fw_lock, nothing after set in the lock order.
 * Takes or releases set and records it in *held. */
void fw_lock(fw_held_t *held, fw_lock_set_t set);
void fw_unlock(fw_held_t *held, fw_lock_set_t set);
/* Whether Slurm's own lock checks (debug builds of slurmctld only) agree
 * that the calling thread holds these levels; true when slurmctld has
 * none. */
bool fw_slurm_agrees(fw_lock_level_t job, fw_lock_level_t part,
		     fw_lock_level_t assoc, fw_lock_level_t qos);

#endif /* FAIRWAY_PLUGIN_LOCKS_H_ */
