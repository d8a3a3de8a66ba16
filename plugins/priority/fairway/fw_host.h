/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The part of the plugin that needs no Slurm header: the decay thread, the
 * state files and the planned-use ledger's file. Keeping them free of
 * Slurm's headers keeps the code every Slurm release difference can touch
 * (fw_plugin.h and the files that include it) small. What they need of
 * Slurm comes through the fw_host_* functions (host.c). */
#ifndef FAIRWAY_PLUGIN_FW_HOST_H_
#define FAIRWAY_PLUGIN_FW_HOST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"

/* ---- locks.c: lock contracts that are checked ------------------------------ */
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
	FW_SITE_FACTORS, /* job W, node R, part R: the site factor plugin's update */
	FW_SPRIO, /* job R, node R, part R: sprio's list (22.05: the plugin locks) */
	FW_ASSOCS_READ, /* assoc R, qos R: job factors */
	FW_FAIRSHARE, /* assoc W: fairshare written back */
	FW_USAGE_WRITE, /* assoc W, qos W, tres R: usage charged, decayed, reset */
	FW_BOOTSTRAP, /* assoc W, tres R: usage rebuilt */
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
/* Take or release a set and record it in *held. */
void fw_lock(fw_held_t *held, fw_lock_set_t set);
void fw_unlock(fw_held_t *held, fw_lock_set_t set);
/* locks.c. Whether Slurm's own lock checks (debug builds of slurmctld
 * only) agree that the calling thread holds these levels; true when
 * slurmctld has none. */
bool fw_slurm_agrees(fw_lock_level_t job, fw_lock_level_t part,
		     fw_lock_level_t assoc, fw_lock_level_t qos);
/* lock_witness.c. Whether *held has at least the levels asked (FW_NO_LOCK: not needed);
 * when not, says so once per function and returns false. */
bool fw_holds(const fw_held_t *held, const char *function, fw_lock_level_t job,
	      fw_lock_level_t part, fw_lock_level_t assoc, fw_lock_level_t qos);
/* At the top of a function: return (with the value given, if any) unless
 * its caller holds what it requires. */
#define FW_REQUIRE(held, job, part, assoc, qos, ...) \
	do { \
		if (!fw_holds((held), __func__, (job), (part), (assoc), \
			      (qos))) \
			return __VA_ARGS__; \
	} while (0)

/* ---- host.c: what these files need of slurmctld --------------------------- */
/* config_store.c. Makes config the configuration in force (taking over the
 * caller's reference). */
void fw_config_publish(fw_config_t *config);
/* host.c. One line to slurmctld's log, with the plugin's prefix. */
void fw_log_line(fw_log_level_t level, const char *line);
/* config_store.c. A formatted line through fw_log_line. */
void fw_log(fw_log_level_t level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* The formatted string (malloc; free it), NULL only out of memory. */
char *fw_format(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* StateSaveLocation ("." when unset). */
const char *fw_host_state_dir(void);
/* Slurm's state-file lock (lock_state_files), last in the lock order. */
void fw_host_lock_state_files(void);
void fw_host_unlock_state_files(void);
/* The protocol versions this Slurm reads assoc_usage in. */
void fw_host_protocol_versions(uint16_t *min_version, uint16_t *max_version);
/* The configuration in force, as a reference: fw_config_unref it. Never
 * NULL after fw_load_config. Any thread. */
fw_config_t *fw_config_get(void);
/* Whether slurmctld has a job list (not in clients and test programs). */
bool fw_host_has_jobs(void);
/* The site factor plugin's periodic update (takes FW_SITE_FACTORS itself);
 * nothing with site_factor/none, Slurm's default. */
void fw_host_update_site_factors(void);
/* Saves assoc_mgr's usage (StateSaveLocation/assoc_usage) now. */
void fw_host_save_assoc_usage(void);
/* PriorityCalcPeriod in seconds, read live. */
uint32_t fw_host_calc_period(void);

/* ---- the boundary's steps of a pass (files that include Slurm's headers) -- */
/* jobs.c. The pass's tables, created on first use; the decay thread's (or
 * init's). */
fw_pass_t *fw_jobs_pass(void);
/* Requires job R. Finds job_list's records (by id, or by walking the list);
 * returns whether it walked (false without a job list: no records). */
bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass);
/* Requires job R, part R, assoc R and qos R. Gathers and computes every
 * eligible job of the records found. */
void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
		    time_t now);
/* Requires job W and part R. Stores the next slice of changed jobs (a job
 * changed since the gather is recomputed). Returns true when all are
 * stored (the pass's table is then sprio's); *recomputed is increased. */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t now,
			 size_t *recomputed);
/* At fini: frees the pass's tables. */
void fw_jobs_release(void);
/* assocs.c. Take FW_FAIRSHARE (and the ledger in planned use) or
 * FW_USAGE_WRITE themselves: one pass's fairshare; decay and reset of every
 * association and QOS (QOS with NoDecay are reset, not decayed). */
void fw_assocs_fairshare(const fw_config_t *config);
void fw_assocs_decay(const fw_config_t *config, double factor);
void fw_assocs_reset(const fw_config_t *config);
/* charge.c. Requires job R (the pass's). Charges every job of the pass's
 * records the periodic pass charges, for [start_period, now]; returns how
 * many. */
size_t fw_charge_running(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t start_period,
			 time_t now);
/* Takes FW_JOB_LIST_READ, then FW_USAGE_WRITE: at restart, releases from
 * GrpTRESRunMins what running jobs used before last_ran. */
void fw_charge_restart_release(time_t last_ran);
/* bootstrap.c: usage rebuilt from slurmdbd's job records. Takes
 * FW_BOOTSTRAP itself; only with an accounting connection. Requires, in
 * planned use, fw_ledger_load_once first: after a rebuild the ledger is
 * marked loaded. */
typedef enum {
	FW_BOOT_REBUILT,
	FW_BOOT_NOT_NEEDED,
	FW_BOOT_RETRY
} fw_boot_t;
fw_boot_t fw_bootstrap_run(const fw_config_t *config, time_t now,
			   time_t configured_last_reset, bool replace,
			   bool retry);

/* ---- ledger_file.c: the ledger and its state file -------------------------- */
/* The ledger, under its mutex (after the assoc_mgr locks in the order). */
fw_ledger_t *fw_ledger_acquire(void);
void fw_ledger_release(void);
/* Loads StateSaveLocation/fairway_planned_use once (later calls do
 * nothing); falls back to .old; logs as it goes. */
void fw_ledger_load_once(void);
/* Writes the ledger's state file (no Slurm lock held). */
void fw_ledger_save(void);
/* The bootstrap replaced the ledger: nothing to load any more. */
void fw_ledger_mark_loaded(void);

/* ---- state_files.c: files under StateSaveLocation ------------------------- */
/* At start: reads the decay clock, its .old copy and assoc_usage's header,
 * applies the recovery rule, sets a damaged clock aside and logs one line.
 * out->message is logged and freed here (NULL on return). */
void fw_state_recover(uint16_t reset_period, time_t now, fw_recovery_t *out);
/* Writes priority_last_decay_ran atomically; false on failure (said once). */
bool fw_state_write_clock(time_t last_ran, time_t last_reset);
typedef enum {
	FW_READ_OK,
	FW_READ_MISSING,
	FW_READ_UNREADABLE
} fw_read_t;
/* StateSaveLocation/<name><suffix> into *bytes (malloc; free it), under
 * the state-file lock. On UNREADABLE, *why says why (free it). */
fw_read_t fw_state_read(const char *name, const char *suffix, char **bytes,
			size_t *length, char **why);
/* Atomically replaces StateSaveLocation/<name>, keeping <name>.old. */
bool fw_state_write(const char *name, const char *bytes, size_t length);
/* Moves a damaged file aside to <name>.damaged; see state_files.c. */
bool fw_state_set_aside(const char *name);
/* StateSaveLocation/<name><suffix> (malloc; free it). */
char *fw_state_path(const char *name, const char *suffix);

/* ---- decay_thread.c / decay_pass.c ---------------------------------------- */
/* At init: reads the decay clock (state files), so that fw_last_decay_ran
 * is right before any job ends. */
void fw_decay_thread_prepare(void);
/* Once slurmctld has loaded its jobs: starts the thread (prepared first if
 * need be); a second call does nothing. */
void fw_decay_thread_start(void);
void fw_decay_thread_stop(void);
void fw_decay_thread_reconfig(void);
/* When the last pass ran (0 before the first), for job-end charging. */
time_t fw_last_decay_ran(void);

#endif /* FAIRWAY_PLUGIN_FW_HOST_H_ */
