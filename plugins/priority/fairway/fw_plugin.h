/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the plugin's C files share: Slurm's headers, the core's C interface,
 * logging, and the functions each file offers the others. Every file of the
 * plugin includes this one first.
 *
 * Lock notation in the contracts below (Slurm's order, never reversed):
 *   job R/W, part R    lock_slurmctld (conf, job, node, part, fed)
 *   assoc R/W, qos R/W, tres R   assoc_mgr_lock
 *   ledger             fw_ledger_acquire (planned_use.c)
 *   state files        lock_state_files */
#ifndef FAIRWAY_PLUGIN_FW_PLUGIN_H_
#define FAIRWAY_PLUGIN_FW_PLUGIN_H_

#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/site_factor.h"
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "api/fairway_api.h"
#include "fw_host.h"

/* ---- logging: one prefix for every line ---------------------------------- */
#define FW_PREFIX "priority/fairway: "
#define fw_error(fmt, ...) error(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_info(fmt, ...) info(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_verbose(fmt, ...) verbose(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_prio_enabled() ((slurm_conf.debug_flags & DEBUG_FLAG_PRIO) != 0)
#define fw_prio(fmt, ...)                                           \
  do {                                                              \
    if (fw_prio_enabled()) info("PRIO: " FW_PREFIX fmt, ##__VA_ARGS__); \
  } while (0)

/* Ask for the cache line holding a field ahead of its use. */
#define FW_PREFETCH(address) __builtin_prefetch(address)

/* ---- locks.c: lock contracts that are checked ------------------------------ */
/* What the calling thread holds, as far as the plugin knows: passed to every
 * function whose contract needs a Slurm lock (see locks.c). */
typedef struct {
	lock_level_t job, part;        /* slurmctld's */
	lock_level_t assoc, qos, tres; /* assoc_mgr's */
} fw_held_t;
/* An entry point whose caller holds job W and part R (priority_p_set and
 * priority_p_job_end: slurm-22-05-8-1:src/slurmctld/job_mgr.c). */
#define FW_HELD_BY_JOB_WRITER ((fw_held_t){ .job = WRITE_LOCK, .part = READ_LOCK })
/* Take or release Slurm's locks and record them in *held. */
void fw_lock_slurmctld(fw_held_t *held, slurmctld_lock_t locks);
void fw_unlock_slurmctld(fw_held_t *held, slurmctld_lock_t locks);
void fw_lock_assoc_mgr(fw_held_t *held, assoc_mgr_lock_t locks);
void fw_unlock_assoc_mgr(fw_held_t *held, assoc_mgr_lock_t locks);
/* Whether *held has at least the levels asked (NO_LOCK: not needed); when
 * not, says so once per function and returns false. */
bool fw_holds(const fw_held_t *held, const char *function, lock_level_t job, lock_level_t part,
	      lock_level_t assoc, lock_level_t qos);
/* At the top of a function: return (with the value given, if any) unless
 * its caller holds what it requires. */
#define FW_REQUIRE(held, job, part, assoc, qos, ...)                          \
	do {                                                                 \
		if (!fw_holds((held), __func__, (job), (part), (assoc), (qos))) \
			return __VA_ARGS__;                                  \
	} while (0)

/* ---- host.c --------------------------------------------------------------- */
/* The core's logger: one line to slurmctld's log. */
void fw_log_line(fw_log_level_t level, const char *line);
/* Reads slurm_conf (and slurmctld_tres_cnt) and publishes the result. */
void fw_load_config(bool with_slurmdbd, bool log_summary);

/* ---- jobs.c: job records <-> the core ------------------------------------- */
/* The pass's tables, created on first use; the decay thread's (or init's). */
fw_pass_t *fw_jobs_pass(void);
/* Requires job R. Finds job_list's records (by id, or by walking the list);
 * returns whether it walked. */
bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass);
/* Requires job R, part R, assoc R and qos R. Gathers and computes every
 * eligible job of the records found. */
void fw_jobs_gather(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config, time_t now);
/* Requires job W and part R. Stores the next slice of changed jobs (a job
 * changed since the gather is recomputed). Returns true when all are
 * stored (the pass's table is then sprio's); *recomputed is increased. */
bool fw_jobs_store_slice(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
			 time_t now, size_t *recomputed);
/* Requires job W (the caller's). Computes the job's priority, stores its
 * factors and priority_array and returns the priority (the caller sets
 * job->priority). Takes assoc R and qos R itself (recorded in *held). */
uint32_t fw_jobs_compute_and_store(fw_held_t *held, job_record_t *job,
				   const fw_config_t *config, time_t now);
/* Requires job R. sprio's factors list (priority_p_get_priority_factors_list). */
List fw_sprio_factors_list(priority_factors_request_msg_t *request, uid_t uid);
/* Called at fini: frees the pass's tables. */
void fw_jobs_release(void);

/* ---- assocs.c: the association tree <-> the core -------------------------- */
/* Requires assoc R or W. The tree for the core (fw_fairshare's order):
 * *records[i] is the record of (*inputs)[i]. Arrays are reused between
 * calls of the same thread (the decay thread); returns the count, 0
 * without a root. */
size_t fw_assocs_snapshot(fw_held_t *held, fw_assoc_input_t **inputs,
			  slurmdb_assoc_rec_t ***records);
/* Takes assoc W (and the ledger in planned use): one pass's fairshare. */
void fw_assocs_fairshare(const fw_config_t *config);
/* Takes assoc W + qos W: decay and reset of every association and QOS. */
void fw_assocs_decay(const fw_config_t *config, double factor);
void fw_assocs_reset(const fw_config_t *config);
/* Requires assoc R at least. The effective usage of an association whose
 * usage_efctv is still NO_VAL (computed, not stored). */
long double fw_assocs_efctv(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			    const fw_config_t *config);
/* priority_p_set_assoc_usage. */
void fw_assocs_set_usage(slurmdb_assoc_rec_t *assoc, const fw_config_t *config);

/* ---- charge.c: usage of running and ending jobs --------------------------- */
/* Whether the periodic pass charges this job. */
bool fw_charge_wanted(const job_record_t *job, const fw_config_t *config);
/* Requires job R (job W with adjust_for_end); takes assoc W + qos W + tres R
 * (and the ledger). Returns false when the job's end was charged already. */
bool fw_charge_one(fw_held_t *held, job_record_t *job, time_t start_period,
		   time_t end_period, bool adjust_for_end, const fw_config_t *config);
/* Requires job R (the pass's). Charges every job of the pass's records the
 * periodic pass charges, for [start_period, now]; returns how many. */
size_t fw_charge_running(fw_held_t *held, fw_pass_t *pass, const fw_config_t *config,
			 time_t start_period, time_t now);
/* Takes job R, then assoc W + qos W + tres R: GrpTRESRunMins at restart. */
void fw_charge_restart_release(time_t last_ran);

/* ---- bootstrap.c: usage rebuilt from slurmdbd's job records --------------- */
typedef enum { FW_BOOT_REBUILT, FW_BOOT_NOT_NEEDED, FW_BOOT_RETRY } fw_boot_t;
/* Takes the assoc_mgr locks itself; only with an accounting connection.
 * Requires, in planned use, fw_ledger_load_once first: after a rebuild the
 * ledger is marked loaded (the core does not say whether it replaced it). */
fw_boot_t fw_bootstrap_run(const fw_config_t *config, time_t now, time_t configured_last_reset,
                           bool replace, bool retry);

#endif /* FAIRWAY_PLUGIN_FW_PLUGIN_H_ */
