/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Usage of running and ending jobs, added to their association chain and
 * QOS by the amounts the core computes, and GrpTRESRunMins re-adjusted
 * after a restart. */
#include "fw_plugin.h"

#include "charge.h"
#include "fw_prefetch.h"
#include "job_find.h"
#include "ledger_file.h"
#include "lock_witness.h"
#include "locks.h"

/* Per-TRES scratch of one charge: a few dozen TRES at most. */
#define FW_MAX_PATH 64

static bool enforcing_limits(void)
{
	return (accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) != 0;
}

struct underflow_note {
	const char *what;
	uint32_t id, job_id;
};

static void report_underflow(void *arg, uint32_t tres, uint64_t release,
			     uint64_t remaining)
{
	const struct underflow_note *n = arg;
	fw_error(
		"job %u: %s %u TRES %s grp_used_tres_run_secs underflow, tried to remove %" PRIu64
		" seconds when only %" PRIu64 " remained",
		n->job_id, n->what, n->id,
		assoc_mgr_tres_name_array ? assoc_mgr_tres_name_array[tres] :
					    "?",
		release, remaining);
}

/* Per-TRES usage added and run-seconds released: only under
 * AccountingStorageEnforce=limits, as multifactor's _apply_new_usage
 * (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c). */
static void apply_tres(const char *what, uint32_t id, uint32_t job_id,
		       long double *usage_tres, uint64_t *run_secs,
		       const long double *usage_add, const uint64_t *release)
{
	struct underflow_note note = { what, id, job_id };
	if (enforcing_limits())
		fw_apply_tres_run(usage_tres, run_secs, usage_add, release,
				  slurmctld_tres_cnt, TRES_ARRAY_ENERGY,
				  report_underflow, &note);
}

/* From 24.05 a QOS also counts run-seconds per account and per user for its
 * per-account and per-user limits; multifactor releases them with the
 * QOS's own (_handle_qos_tres_run_secs,
 * slurm-24-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c). */
static void release_qos_used_limits(slurmdb_qos_rec_t *qos,
				    const job_record_t *job,
				    const uint64_t *release)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	if (!job->assoc_ptr || !enforcing_limits())
		return;
	slurmdb_used_limits_t *by_acct = acct_policy_get_acct_used_limits(
		&qos->usage->acct_limit_list, job->assoc_ptr->acct);
	slurmdb_used_limits_t *by_user = acct_policy_get_user_used_limits(
		&qos->usage->user_limit_list, job->user_id);
	if (by_acct)
		apply_tres("QOS account", qos->id, job->job_id, NULL,
			   by_acct->tres_run_secs, NULL, release);
	if (by_user)
		apply_tres("QOS user", qos->id, job->job_id, NULL,
			   by_user->tres_run_secs, NULL, release);
#endif
}

static void charge_qos(slurmdb_qos_rec_t *qos, const job_record_t *job,
		       const fw_charge_t *c)
{
	const uint32_t job_id = job->job_id;
	bool no_decay = qos->flags & QOS_FLAG_NO_DECAY;
	qos->usage->grp_used_wall +=
		no_decay ? c->run_nodecay_s : c->run_decay_s;
	qos->usage->usage_raw += no_decay ? c->real_nodecay : c->real_decay;
	apply_tres("QOS", qos->id, job_id, qos->usage->usage_tres_raw,
		   qos->usage->grp_used_tres_run_secs,
		   no_decay ? c->tres_usage_nodecay : c->tres_usage_decay,
		   c->tres_run_release);
	release_qos_used_limits(qos, job, c->tres_run_release);
}

/* The job's partition QOS, when it has one other than the job's. */
static slurmdb_qos_rec_t *partition_qos(const job_record_t *job)
{
	if (job->part_ptr && job->part_ptr->qos_ptr != job->qos_ptr)
		return job->part_ptr->qos_ptr;
	return NULL;
}

bool fw_charge_wanted(const job_record_t *job, const fw_config_t *config)
{
	if (IS_JOB_FINISHED(job) || IS_JOB_COMPLETING(job))
		return false;
	bool counted = (fw_settings(config)->flags &
			PRIORITY_FLAGS_CALCULATE_RUNNING) ||
		       !IS_JOB_PENDING(job);
	return counted && !IS_JOB_POWER_UP_NODE(job) && job->start_time &&
	       job->assoc_ptr;
}

bool fw_charge_one(fw_held_t *held, job_record_t *job, time_t start_period,
		   time_t end_period, bool adjust_for_end,
		   const fw_config_t *config)
{
	FW_REQUIRE(held, adjust_for_end ? FW_WRITE_LOCK : FW_READ_LOCK,
		   FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK, false);
	/* end_time_exp == NO_VAL: the end was charged already (acct_policy
	 * relies on this marker too). */
	if (job->end_time_exp == (time_t) NO_VAL)
		return false;
	fw_charge_input_t in = {
		.job_id = job->job_id,
		.start_period = start_period,
		.end_period = end_period,
		.adjust_for_end = adjust_for_end,
		.start_time = job->start_time,
		.end_time = job->end_time,
		.end_time_exp = job->end_time_exp,
		.time_limit_min = job->time_limit,
		.finished_or_completing = IS_JOB_FINISHED(job) ||
					  IS_JOB_COMPLETING(job) ||
					  IS_JOB_RESIZING(job),
		.tres_alloc = job->tres_alloc_cnt,
		.tres_cnt = slurmctld_tres_cnt,
	};
	if (adjust_for_end)
		job->end_time_exp = (time_t) NO_VAL;
	uint64_t release[slurmctld_tres_cnt + 1];
	long double decay[slurmctld_tres_cnt + 1],
		nodecay[slurmctld_tres_cnt + 1];
	fw_charge_t c = { .tres_run_release = release,
			  .tres_usage_decay = decay,
			  .tres_usage_nodecay = nodecay };
	uint32_t path[FW_MAX_PATH];

	fw_lock(held, FW_USAGE_WRITE);
	time_t billing_start =
		job->start_time > start_period ? job->start_time : start_period;
	in.billable_tres = calc_job_billable_tres(job, billing_start, true);
	in.has_qos = job->qos_ptr != NULL;
	in.qos_usage_factor = job->qos_ptr ? job->qos_ptr->usage_factor : -1;
	for (slurmdb_assoc_rec_t *a = job->assoc_ptr;
	     a && in.assoc_path_length < FW_MAX_PATH;
	     a = a->usage->parent_assoc_ptr)
		path[in.assoc_path_length++] = a->id;
	in.assoc_path = path;
	bool planned_use = fw_settings(config)->mode == FW_MODE_PLANNED_USE;
	fw_ledger_t *ledger = planned_use ? fw_ledger_acquire() : NULL;
	fw_charge_job(config, &in, ledger, &c);
	if (ledger)
		fw_ledger_release();

	if (job->qos_ptr)
		charge_qos(job->qos_ptr, job, &c);
	slurmdb_qos_rec_t *part_qos = partition_qos(job);
	if (part_qos)
		charge_qos(part_qos, job, &c);
	/* Every association up to the root: the root holds the cluster's. */
	for (slurmdb_assoc_rec_t *a = job->assoc_ptr; a;
	     a = a->usage->parent_assoc_ptr) {
		a->usage->grp_used_wall += c.run_decay_s;
		a->usage->usage_raw += c.real_decay;
		apply_tres("assoc", a->id, job->job_id,
			   a->usage->usage_tres_raw,
			   a->usage->grp_used_tres_run_secs, c.tres_usage_decay,
			   c.tres_run_release);
	}
	fw_unlock(held, FW_USAGE_WRITE);
	fw_prio("job %u charged %.0f s x %.2f billing = %.2f (decayed)",
		job->job_id, c.run_delta_s, in.billable_tres, c.real_decay);
	return true;
}

size_t fw_charge_running(fw_held_t *held, fw_pass_t *pass,
			 const fw_config_t *config, time_t start_period,
			 time_t now)
{
	FW_REQUIRE(held, FW_READ_LOCK, FW_NO_LOCK, FW_NO_LOCK, FW_NO_LOCK, 0);
	job_record_t *const *jobs;
	const uint32_t *ids;
	size_t n = fw_jobs_found(pass, &jobs, &ids), charged = 0;
	for (size_t i = 0; i < n; i++) {
		/* One cache miss per record: ask for it a few jobs ahead. */
		if (i + 8 < n)
			FW_PREFETCH(&((job_record_t *) jobs[i + 8])->job_state);
		if (fw_charge_wanted(jobs[i], config))
			charged += fw_charge_one(held, jobs[i], start_period,
						 now, false, config);
	}
	return charged;
}

void fw_charge_restart_release(time_t last_ran)
{
	if (!(slurm_conf.accounting_storage_enforce &
	      ACCOUNTING_ENFORCE_LIMITS))
		return;
	if (!job_list)
		return;
	uint64_t release[slurmctld_tres_cnt + 1];
	fw_held_t held = { 0 };
	/* The job lock before job_list is looked at (its count included). */
	fw_lock(&held, FW_JOB_LIST_READ);
	fw_lock(&held, FW_USAGE_WRITE);
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;
	while ((job = list_next(it))) {
		if (job->end_time_exp == (time_t) NO_VAL ||
		    !IS_JOB_RUNNING(job) || job->start_time > last_ran ||
		    !job->tres_alloc_cnt)
			continue;
		fw_restart_release(
			job->tres_alloc_cnt, slurmctld_tres_cnt,
			job->start_time, last_ran, job->qos_ptr != NULL,
			job->qos_ptr ? job->qos_ptr->usage_factor : -1,
			release);
		slurmdb_qos_rec_t *part_qos = partition_qos(job);
		if (job->qos_ptr) {
			apply_tres("QOS", job->qos_ptr->id, job->job_id,
				   job->qos_ptr->usage->usage_tres_raw,
				   job->qos_ptr->usage->grp_used_tres_run_secs,
				   NULL, release);
			release_qos_used_limits(job->qos_ptr, job, release);
		}
		if (part_qos) {
			apply_tres("QOS", part_qos->id, job->job_id,
				   part_qos->usage->usage_tres_raw,
				   part_qos->usage->grp_used_tres_run_secs,
				   NULL, release);
			release_qos_used_limits(part_qos, job, release);
		}
		for (slurmdb_assoc_rec_t *a = job->assoc_ptr; a;
		     a = a->usage->parent_assoc_ptr)
			apply_tres("assoc", a->id, job->job_id,
				   a->usage->usage_tres_raw,
				   a->usage->grp_used_tres_run_secs, NULL,
				   release);
	}
	list_iterator_destroy(it);
	fw_unlock(&held, FW_USAGE_WRITE);
	fw_unlock(&held, FW_JOB_LIST_READ);
}
