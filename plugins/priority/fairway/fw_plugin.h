/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the plugin's C files share: Slurm's headers, the core's C interface,
 * logging, and the functions each file offers the others. Every file of the
 * plugin includes this one first.
 *
 * Lock notation in the contracts below (Slurm's order, never reversed):
 *   job R/W, part R    lock_slurmctld (conf, job, node, part, fed)
 *   assoc R/W, qos R/W, tres R   assoc_mgr_lock
 *   ledger             fw_ledger_acquire (ledger_file.c)
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

/* Every Slurm release from 22.05 to 26.05, and the 26.11.0-0rc1
 * pre-release, builds this boundary (one .so per micro release: Slurm
 * refuses any other). Each difference between
 * releases is an #if on this, here, in the file that uses it or at an entry point;
 * doc/slurm-integration.md lists them. */
#define FW_SLURM_AT_LEAST(a, b, c) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#if FW_SLURM_AT_LEAST(23, 2, 0) /* plugin interfaces moved to src/interfaces */
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/mcs.h"
#include "src/interfaces/priority.h"
#include "src/interfaces/site_factor.h"
#else
#include "src/common/site_factor.h"
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#endif
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#if FW_SLURM_AT_LEAST(24, 5, 0) /* per-account and per-user QOS usage */
#include "src/slurmctld/acct_policy.h"
#endif
#if FW_SLURM_AT_LEAST(24, 11, 0) /* lock_state_files moved */
#include "src/common/state_save.h"
#endif

#if !FW_SLURM_AT_LEAST(23, 2, 0)
/* 22.05's spellings of what 23.02 and later name list_t, list_itr_t,
 * job_details_t, and (job->prio_factors, the factors themselves)
 * priority_factors_t. */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
typedef priority_factors_object_t priority_factors_t;
#endif

#include "api/fairway_api.h"
#include "fw_host.h"

/* ---- logging: one prefix for every line ---------------------------------- */
#define FW_PREFIX "priority/fairway: "
#define fw_error(fmt, ...) error(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_info(fmt, ...) info(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_verbose(fmt, ...) verbose(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_prio_enabled() ((slurm_conf.debug_flags & DEBUG_FLAG_PRIO) != 0)
#define fw_prio(fmt, ...) \
	do { \
		if (fw_prio_enabled()) \
			info("PRIO: " FW_PREFIX fmt, ##__VA_ARGS__); \
	} while (0)

/* Ask for the cache line holding a field ahead of its use (for reading,
 * or for writing). A prefetch of memory since freed neither faults nor
 * reads it. */
#define FW_PREFETCH(address) __builtin_prefetch(address)
#define FW_PREFETCH_WRITE(address) __builtin_prefetch(address, 1)
/* A helper made only of prefetches must be inlined into its loop: GCC 12
 * at -O2 finds it has no side effects, marks it const and deletes the
 * calls to it (test/prefetch_compiled.sh checks the built plugin). */
#define FW_PREFETCH_HELPER static inline __attribute__((always_inline))

/* ---- host.c --------------------------------------------------------------- */
/* Reads slurm_conf (and slurmctld_tres_cnt) and publishes the result. */
void fw_load_config(bool with_slurmdbd, bool log_summary);

/* ---- jobs.c ---------------------------------------------------------------- */
/* Requires job W (the caller's). Computes the job's priority, stores its
 * factors and priority_array and returns the priority (the caller sets
 * job->priority). Takes assoc R and qos R itself (recorded in *held). An
 * operator-set priority is returned as it is, and a job without details
 * gets 0 (logged), both with their factors cleared. */
uint32_t fw_jobs_compute_and_store(fw_held_t *held, job_record_t *job,
				   const fw_config_t *config, time_t now);
/* Requires job R. job_list's records in list order into *records, an
 * xmalloc array of *size entries grown as needed (xfree it). Returns the
 * count. */
size_t fw_jobs_walk(fw_held_t *held, job_record_t ***records, size_t *size);
/* Requires job R. sprio's row for one partition of a job: returns the
 * weighted partition factor and fills row_tres[tres_cnt] (when given)
 * with the job's weighted TRES factors in that partition. */
double fw_jobs_partition_row(const job_record_t *job, const part_record_t *part,
			     const fw_config_t *config, double *row_tres,
			     uint32_t tres_cnt);
/* Requires job R. A job's several QOS (--qos=a,b, 24.11 and later), in the
 * order its priorities are indexed, or NULL for a job with one. */
list_t *fw_jobs_qos_list(const job_record_t *job);
/* Requires qos R. sprio's QOS factor of qos in a row of such a job
 * (job_weighted_qos: the job's own). */
double fw_jobs_qos_row(const slurmdb_qos_rec_t *qos, const fw_config_t *config,
		       double job_weighted_qos);

/* ---- sprio.c: what sprio and job->prio_factors show ---------------------- */
/* What a 22.05 sprio asks for (later clients filter themselves): any may
 * be NULL. */
typedef struct {
	list_t *job_ids, *uids; /* of uint32_t */
	const char *partitions; /* comma-separated names */
} fw_sprio_filter_t;
/* sprio's factors list (priority_p_get_priority_factors_list), for the jobs
 * uid may see. caller_locked: slurmctld holds job R, node R, part R and
 * QOS R (23.02 and later, FW_HELD_BY_SPRIO_CALLER); else it takes
 * FW_SPRIO itself (22.05, as multifactor). */
list_t *fw_sprio_factors_list(const fw_sprio_filter_t *filter, uid_t uid,
			      bool caller_locked);
/* Writes in's factors into *f: the numbers and, when in has TRES, TRES
 * arrays from xcalloc (Slurm frees them), weights from settings (which may
 * be NULL when in has no TRES). *f must be zeroed or hold factors written
 * by this function: TRES arrays found there are freed. */
void fw_factors_fill(priority_factors_t *f, const fw_factors_t *in,
		     const fw_settings_t *settings);

/* ---- assocs.c -------------------------------------------------------------- */
/* Requires assoc R or W. The tree for the core (fw_fairshare's order):
 * *records[i] is the record of (*inputs)[i]. Arrays are reused between
 * calls of the same thread (the decay thread); returns the count, 0
 * without a root. */
size_t fw_assocs_snapshot(fw_held_t *held, fw_assoc_input_t **inputs,
			  slurmdb_assoc_rec_t ***records);
/* Requires assoc R at least. The effective usage of an association whose
 * usage_efctv is still NO_VAL (computed, not stored). */
long double fw_assocs_efctv(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			    const fw_config_t *config);
/* Requires assoc W. The association's fs_factor in classic and
 * DEPTH_OBLIVIOUS modes: 2^(-UE/S/damping) of its fairshare association. */
void fw_assocs_set_fs_factor(slurmdb_assoc_rec_t *assoc,
			     const fw_config_t *config);
/* priority_p_set_assoc_usage. */
void fw_assocs_set_usage(slurmdb_assoc_rec_t *assoc, const fw_config_t *config);

/* ---- charge.c -------------------------------------------------------------- */
/* Whether the periodic pass charges this job. */
bool fw_charge_wanted(const job_record_t *job, const fw_config_t *config);
/* Requires job R (job W with adjust_for_end); takes assoc W + qos W + tres R
 * (and the ledger). Returns false when the job's end was charged already. */
bool fw_charge_one(fw_held_t *held, job_record_t *job, time_t start_period,
		   time_t end_period, bool adjust_for_end,
		   const fw_config_t *config);

#endif /* FAIRWAY_PLUGIN_FW_PLUGIN_H_ */
