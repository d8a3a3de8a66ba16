/* SPDX-License-Identifier: GPL-2.0-or-later */
/* priority/fairway: the plugin ABI Slurm's loader looks up
 * (slurm-22-05-8-1:src/common/plugin.c) and the priority operations of
 * slurm-22-05-8-1:src/common/slurm_priority.c. Each entry point copies
 * what it needs and forwards; nothing C++ unwinds through here (the core's
 * C interface catches everything). */
#include "fw_plugin.h"

#include "assocs.h"
#include "charge.h"
#include "config_store.h"
#include "decay_pass.h"
#include "decay_thread.h"
#include "fw_host.h"
#include "job_find.h"
#include "job_gather.h"
#include "job_store.h"
#include "locks.h"
#include "sprio.h"

#define FW_EXPORT __attribute__((visibility("default")))

/* slurmctld's globals: defined here so that the plugin also loads in
 * clients (sshare) and test programs; inside slurmctld the executable's
 * copies win. cluster_cpus == NO_VAL tells init() it is not in slurmctld. */
FW_EXPORT void *acct_db_conn = NULL;
FW_EXPORT uint32_t cluster_cpus = NO_VAL;
FW_EXPORT list_t *job_list = NULL;
FW_EXPORT time_t last_job_update = 0;
FW_EXPORT int slurmctld_tres_cnt = 0;
FW_EXPORT uint16_t accounting_enforce = 0;
#if FW_SLURM_AT_LEAST(24, 5, 0) /* read with the per-partition priorities */
FW_EXPORT time_t last_part_update = 0;
#endif

FW_EXPORT const char plugin_name[] = "Priority FAIRWAY plugin";
FW_EXPORT const char plugin_type[] = "priority/fairway";
FW_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static bool client_mode = false;
static bool site_factor_started = false;

/* The core restates Slurm's sentinels; they must agree. */
_Static_assert(FW_NO_VAL == NO_VAL, "NO_VAL restated wrongly");
_Static_assert(FW_NO_CONSUME_VAL64 == NO_CONSUME_VAL64,
	       "NO_CONSUME_VAL64 restated wrongly");
_Static_assert(FW_NICE_OFFSET == NICE_OFFSET, "NICE_OFFSET restated wrongly");

/* Where the decay thread starts, and where a controller without slurmdbd
 * computes its jobs' factors once: where slurmctld's jobs are loaded. In
 * 22.05 init() runs after they are; from 23.02 it runs before, under the
 * configuration write lock (slurm-23-02-8-1:src/slurmctld/controller.c),
 * and priority_p_recover follows the job state's recovery; from 23.11.6
 * priority_p_thread_start follows it too, and multifactor starts its
 * thread there. The decay clock is read in init() in every release, so
 * that a job ending while slurmctld loads its state is charged from it. */
#define FW_JOBS_LOADED_AT_INIT (!FW_SLURM_AT_LEAST(23, 2, 0))
#define FW_THREAD_AT_THREAD_START FW_SLURM_AT_LEAST(23, 11, 6)

static bool decay_wanted = false;
static bool without_slurmdbd = false;

FW_EXPORT int init(void)
{
	if (cluster_cpus == NO_VAL) {
		/* A client (sshare) or a test program: only
		 * priority_p_calc_fs_factor is used; no thread, no jobs. */
		client_mode = true;
		return SLURM_SUCCESS;
	}
	client_mode = false;
	bool with_slurmdbd = slurm_with_slurmdbd();
	without_slurmdbd = !with_slurmdbd;
	fw_load_config(with_slurmdbd, true);
	if (with_slurmdbd && assoc_mgr_root_assoc) {
		assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
		decay_wanted = true;
		fw_decay_thread_prepare();
		if (FW_JOBS_LOADED_AT_INIT)
			fw_decay_thread_start();
	} else if (!with_slurmdbd) {
		/* No decay thread without accounting; factors are computed once
		 * so that sprio has data, then on job events only (as
		 * multifactor does). */
		if (FW_JOBS_LOADED_AT_INIT)
			fw_decay_pass_once_without_thread(time(NULL));
	} else {
		/* multifactor calls fatal() here when PriorityWeightFairshare
		 * is set; a priority plugin must not stop the controller. */
		if (slurm_conf.priority_weight_fs)
			fw_error(
				"no association data from the database: fairshare disabled until slurmctld restarts with slurmdbd reachable");
		fw_load_config(false, false);
	}
#if FW_SLURM_AT_LEAST(23, 2, 0)
	if (site_factor_g_init() != SLURM_SUCCESS)
		fw_error(
			"the site factor plugin did not start: site factors stay 0");
#else
	site_factor_plugin_init();
#endif
	site_factor_started = true;
	return SLURM_SUCCESS;
}

FW_EXPORT int fini(void)
{
	fw_decay_thread_stop();
	fw_jobs_release();
	fw_jobs_gather_release();
	if (site_factor_started) {
#if FW_SLURM_AT_LEAST(23, 2, 0)
		site_factor_g_fini();
#else
		site_factor_plugin_fini();
#endif
		site_factor_started = false;
	}
	return SLURM_SUCCESS;
}

#if FW_SLURM_AT_LEAST(23, 2, 0)
/* After slurmctld recovered its jobs, holding no lock (multifactor takes
 * the job write lock here). prio_boost is priority/basic's. */
FW_EXPORT uint32_t priority_p_recover(uint32_t prio_boost)
{
	if (without_slurmdbd)
		fw_decay_pass_once_without_thread(time(NULL));
	else if (decay_wanted && !FW_THREAD_AT_THREAD_START)
		fw_decay_thread_start();
	return 0;
}
#endif

#if FW_SLURM_AT_LEAST(23, 11, 6)
FW_EXPORT void priority_p_thread_start(void)
{
	if (decay_wanted)
		fw_decay_thread_start();
}
#endif

/* Requires job W (slurmctld's caller holds it). */
FW_EXPORT uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	site_factor_g_set(job_ptr);
	fw_pass_forget(fw_jobs_pass(), job_ptr->job_id);
	fw_config_t *config = fw_config_get();
	fw_held_t held = FW_HELD_BY_JOB_WRITER;
	uint32_t priority = fw_jobs_compute_and_store(&held, job_ptr, config,
						      time(NULL), NULL);
	fw_config_unref(config);
	return priority;
}

FW_EXPORT void priority_p_reconfig(bool assoc_clear)
{
	if (client_mode)
		return;
	fw_decay_thread_reconfig();
	fw_load_config(slurm_with_slurmdbd(), true);
	/* Only 22.05 and 23.02 call it with true (reconfigure), after
	 * releasing their locks. */
	if (assoc_clear)
		fw_charge_restart_release(fw_last_decay_ran());
#if !FW_SLURM_AT_LEAST(24, 5, 0)
	site_factor_g_reconfig();
#endif
}

/* Slurm calls it holding assoc R (assoc_mgr_get_shares) or no assoc lock
 * (job_limits_check); see fw_assocs_set_usage. */
FW_EXPORT void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	fw_config_t *config = fw_config_get();
	fw_assocs_set_usage(assoc, config);
	fw_config_unref(config);
}

#if !FW_SLURM_AT_LEAST(25, 11, 0) /* from 25.11 sshare reads fs_factor */
FW_EXPORT double priority_p_calc_fs_factor(long double usage_efctv,
					   long double shares_norm)
{
	/* The caller's own FairShareDampeningFactor, read live (sshare). */
	uint16_t damp = slurm_conf.fs_dampening_factor ?
				slurm_conf.fs_dampening_factor :
				1;
	return fw_calc_fs_factor(usage_efctv, shares_norm, damp);
}

#endif

#if FW_SLURM_AT_LEAST(24, 5, 0)
/* slurmctld holds job R, node R, part R and QOS R; sprio filters itself. */
FW_EXPORT list_t *priority_p_get_priority_factors_list(uid_t uid)
{
	return fw_sprio_factors_list(NULL, uid, true);
}
#else
/* 22.05: sprio's filters come in req_msg and the plugin locks. 23.02 and
 * 23.11: req_msg is NULL for clients of 23.02 and later (which filter
 * themselves), and slurmctld holds job R, node R, part R and QOS R. */
FW_EXPORT list_t *priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	fw_sprio_filter_t filter = { 0 };
	if (req_msg) {
		filter.job_ids = req_msg->job_id_list;
		filter.uids = req_msg->uid_list;
		filter.partitions = req_msg->partitions;
	}
	return fw_sprio_factors_list(&filter, uid, FW_SLURM_AT_LEAST(23, 2, 0));
}
#endif

/* Requires job W (slurmctld's caller holds it). */
FW_EXPORT void priority_p_job_end(job_record_t *job_ptr)
{
	fw_config_t *config = fw_config_get();
	fw_held_t held = FW_HELD_BY_JOB_WRITER;
	fw_charge_one(&held, job_ptr, fw_last_decay_ran(), time(NULL), true,
		      config);
	fw_config_unref(config);
	/* Its usage moves its association's fairshare, and so the other
	 * jobs' priorities: a pass within change_check seconds. Also called
	 * when a job is requeued (job_completion_logger). */
	fw_decay_thread_note(FW_TRIGGER_JOB_END);
}
