/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What sprio shows: priority_p_get_priority_factors_list, one factors
 * object per job and partition (and from 24.11 per QOS of a job with
 * several), as multifactor lists them, and the
 * factors objects Slurm frees. The factors are the last pass's (the core's
 * table) unless newer ones were stored in job->prio_factors since. */
#include "fw_plugin.h"

#include "sprio.h"
#include "config_store.h"
#include "fw_prefetch.h"
#include "job_find.h"
#include "job_gather.h"
#include "lock_witness.h"
#include "locks.h"

#include <string.h>

/* sprio walks every job record of the queue, reading a few fields of each
 * on lines scattered over the heap: like the pass, it asks for them a few
 * jobs ahead (the record, then its details once the record has arrived),
 * so that the misses overlap instead of adding up. */
#define RECORDS_AHEAD 16
#define DETAILS_AHEAD 8

/* One request: runs on an RPC thread, so everything is its own. */
typedef struct {
	const fw_sprio_filter_t *filter;
	uid_t uid;
	const fw_config_t *config;
	const fw_settings_t *settings;
	const fw_pass_t *pass;
	part_record_t **
		wanted; /* filter->partitions' records (xmalloc), or NULL for all */
	size_t wanted_count;
	list_t *out;
} sprio_t;

void fw_factors_fill(priority_factors_t *f, const fw_factors_t *in,
		     const fw_settings_t *settings)
{
	/* No caller keeps TRES arrays to be refilled (sprio's objects are new,
   * job->prio_factors holds none): whatever is there is freed. */
	xfree(f->priority_tres);
	xfree(f->tres_weights);
	f->tres_cnt = 0;
	/* Field by field, not memset: in 22.05 the factors are the sprio row
   * itself (job id, user, partition), not an object of their own. */
	f->priority_age = in->age;
	f->priority_assoc = in->assoc;
	f->priority_fs = in->fairshare;
	f->priority_js = in->job_size;
	f->priority_part = in->partition;
	f->priority_qos = in->qos;
	f->priority_site = in->site;
	f->nice = in->nice;
	if (!in->tres_cnt)
		return;
	f->priority_tres = xcalloc(in->tres_cnt, sizeof(double));
	f->tres_weights = xcalloc(in->tres_cnt, sizeof(double));
	f->tres_cnt = in->tres_cnt;
	if (in->tres_columns) {
		for (uint32_t k = 0; k < in->tres_values; ++k) {
			if (in->tres_columns[k] < in->tres_cnt)
				f->priority_tres[in->tres_columns[k]] =
					in->tres[k];
		}
	} else {
		memcpy(f->priority_tres, in->tres,
		       in->tres_cnt * sizeof(double));
	}
	for (uint32_t k = 0;
	     settings && k < in->tres_cnt && k < settings->tres_cnt; ++k) {
		f->tres_weights[k] = settings->tres_weights[k];
	}
}

/* The partition name is copied (multifactor lends part_record's own string,
 * a use-after-free if the partition goes away before packing: _filter_job
 * in slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c),
 * so the list frees it with its objects. */
static void destroy_factors(void *object)
{
	priority_factors_object_t *factors = object;
	if (!factors)
		return;
	xfree(factors->partition);
	slurm_destroy_priority_factors_object(factors);
}

/* The weighted TRES factors of a job in one partition, into an object that
 * has none: job->prio_factors keeps no TRES (job_store.c store_factors). */
static void add_tres_factors(const job_record_t *job, const part_record_t *part,
			     const sprio_t *q, priority_factors_t *f)
{
	const uint32_t count = q->settings->tres_cnt;
	if (f->priority_tres || !count || !part)
		return;
	f->priority_tres = xcalloc(count, sizeof(double));
	f->tres_weights = xcalloc(count, sizeof(double));
	memcpy(f->tres_weights, q->settings->tres_weights,
	       count * sizeof(double));
	f->tres_cnt = count;
	/* The row's TRES only: the partition factor stays the stored one. */
	fw_jobs_partition_row(job, part, q->config, f->priority_tres, count);
}

/* A new row of sprio's list. From 23.02 its factors are an object of their
 * own (never NULL unless direct_prio is set: slurmctld packs them
 * unconditionally); in 22.05 they are the row itself. */
static priority_factors_object_t *new_row(bool with_factors)
{
	priority_factors_object_t *o = xmalloc(sizeof(*o));
#if FW_SLURM_AT_LEAST(23, 2, 0)
	if (with_factors)
		o->prio_factors = xmalloc(sizeof(*o->prio_factors));
#endif
	return o;
}

/* The row's factors (22.05: the row itself). */
static priority_factors_t *factors_of(priority_factors_object_t *o)
{
#if FW_SLURM_AT_LEAST(23, 2, 0)
	return o->prio_factors;
#else
	return o;
#endif
}

/* Names the row's job, user and partition, and from 23.02 its account and
 * QOS; from 26.05 the job is its step id. After the factors are in: in
 * 22.05 copying a job's factors copies these fields too. */
static void name_row(priority_factors_object_t *o, const job_record_t *job,
		     const char *partition)
{
#if FW_SLURM_AT_LEAST(26, 5, 0)
	o->step_id = job->step_id;
#else
	o->job_id = job->job_id;
#endif
	o->user_id = job->user_id;
	xfree(o->partition);
	o->partition = xstrdup(partition);
#if FW_SLURM_AT_LEAST(23, 2, 0)
	o->account = xstrdup(job->account);
	o->qos = job->qos_ptr ? xstrdup(job->qos_ptr->name) : NULL;
#endif
}

/* The job's factors as of the last pass that covered it, or as stored by
 * priority_p_set since (multifactor's sprio shows the same values). */
static priority_factors_object_t *new_factors(const job_record_t *job,
					      const part_record_t *part,
					      const sprio_t *q)
{
	priority_factors_object_t *o = new_row(true);
	priority_factors_t *f = factors_of(o);
	fw_factors_t from_pass;
	fw_jobs_table_lock(); /* the gather may be writing the table */
	const bool in_table = fw_pass_factors(q->pass, job->job_id, &from_pass);
	if (in_table)
		fw_factors_fill(f, &from_pass, q->settings);
	fw_jobs_table_unlock();
	if (!in_table && job->prio_factors) {
#if FW_SLURM_AT_LEAST(23, 2, 0)
		slurm_copy_priority_factors(f, job->prio_factors);
#else
		slurm_copy_priority_factors_object(f, job->prio_factors);
#endif
		add_tres_factors(job, job->part_ptr ? job->part_ptr : part, q,
				 f);
	}
	name_row(o, job, part->name);
	return o;
}

/* An operator-set priority: shown as it is, without factors. */
static priority_factors_object_t *direct_factors(const job_record_t *job,
						 const part_record_t *part)
{
	priority_factors_object_t *o = new_row(false);
	name_row(o, job, part->name);
	o->direct_prio = job->priority;
	return o;
}

/* The row's QOS is qos (from 24.11 sprio names a row's QOS). */
static void name_qos(priority_factors_object_t *o, const slurmdb_qos_rec_t *qos)
{
#if FW_SLURM_AT_LEAST(24, 11, 0)
	xfree(o->qos);
	o->qos = xstrdup(qos->name);
#else
	(void) o;
	(void) qos;
#endif
}

static bool list_has_id(list_t *list, uint32_t id)
{
	list_itr_t *it = list_iterator_create(list);
	uint32_t *value;
	while ((value = list_next(it))) {
		if (*value == id)
			break;
	}
	list_iterator_destroy(it);
	return value != NULL;
}

static bool partition_wanted(const sprio_t *q, const part_record_t *part)
{
	if (!q->filter->partitions)
		return true;
	for (size_t i = 0; i < q->wanted_count; ++i) {
		if (q->wanted[i] == part)
			return true;
	}
	return false;
}

/* One row of the job in part, with qos's QOS factor and name (a job with
 * several QOS) or the job's (qos NULL); part_row: part is one of the
 * job's several partitions, whose own factors replace the job's. */
static priority_factors_object_t *pair_row(job_record_t *job,
					   part_record_t *part, bool part_row,
					   const slurmdb_qos_rec_t *qos,
					   const sprio_t *q)
{
	if (qos &&
	    job->direct_set_prio) { /* multifactor 24.11: every pair's row */
		priority_factors_object_t *o = direct_factors(job, part);
		name_qos(o, qos);
		return o;
	}
	priority_factors_object_t *o = new_factors(job, part, q);
	priority_factors_t *f = factors_of(o);
	if (part_row) {
		f->priority_part = fw_jobs_partition_row(
			job, part, q->config, f->priority_tres, f->tres_cnt);
	}
	if (qos) {
		f->priority_qos =
			fw_jobs_qos_row(qos, q->config, f->priority_qos);
		name_qos(o, qos);
	}
	return o;
}

/* The job's rows in part: one, or one per QOS of a job with several
 * (24.11 and later: _create_prio_list_qos in
 * slurm-24-11-5-1:src/plugins/priority/multifactor/priority_multifactor.c). */
static void add_rows(job_record_t *job, part_record_t *part, bool part_row,
		     const sprio_t *q)
{
	list_t *qos_list = fw_jobs_qos_list(job);
	if (!qos_list) {
		list_append(q->out, pair_row(job, part, part_row, NULL, q));
		return;
	}
	list_itr_t *it = list_iterator_create(qos_list);
	const slurmdb_qos_rec_t *qos;
	while ((qos = list_next(it)))
		list_append(q->out, pair_row(job, part, part_row, qos, q));
	list_iterator_destroy(it);
}

static void add_job(job_record_t *job, const sprio_t *q)
{
	if (q->filter->job_ids && !list_has_id(q->filter->job_ids, job->job_id))
		return;
	if (q->filter->uids && !list_has_id(q->filter->uids, job->user_id))
		return;
	if (!job->part_ptr_list) {
		if (!job->part_ptr || !partition_wanted(q, job->part_ptr))
			return;
		if (job->direct_set_prio && !fw_jobs_qos_list(job)) {
			list_append(q->out, direct_factors(job, job->part_ptr));
		} else {
			add_rows(job, job->part_ptr, false, q);
		}
		return;
	}
	list_itr_t *it = list_iterator_create(job->part_ptr_list);
	part_record_t *part;
	while ((part = list_next(it))) {
		if (partition_wanted(q, part))
			add_rows(job, part, true, q);
	}
	list_iterator_destroy(it);
}

static bool may_see(const job_record_t *job, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	if (job->user_id == uid || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 0) {
#if FW_SLURM_AT_LEAST(23, 11, 6) /* is_locked: false, as multifactor */
		return assoc_mgr_is_user_acct_coord(acct_db_conn, uid,
						    job->account, false);
#else
		return assoc_mgr_is_user_acct_coord(acct_db_conn, uid,
						    job->account);
#endif
	}
	return mcs_g_check_mcs_label(uid, job->mcs_label, false) == 0;
}

/* Pending (or, with CALCULATE_RUNNING, any) jobs past their begin time
 * whose priority is not held at 0. */
static bool listed(const job_record_t *job, const sprio_t *q, time_t now)
{
	const uint32_t flags = q->settings->flags;
	if (!(flags & PRIORITY_FLAGS_CALCULATE_RUNNING) && !IS_JOB_PENDING(job))
		return false;
	if (IS_JOB_REVOKED(job) || !job->details)
		return false;
	const time_t use_time = (flags & PRIORITY_FLAGS_ACCRUE_ALWAYS) ?
					job->details->submit_time :
					job->details->begin_time;
	if (!use_time || use_time > now || job->priority == 0)
		return false;
	return may_see(job, q->uid);
}

FW_PREFETCH_HELPER void prefetch_record(const job_record_t *job)
{
	FW_PREFETCH(&job->job_state);
	FW_PREFETCH(&job->details);
	FW_PREFETCH(&job->priority);
	FW_PREFETCH(&job->part_ptr);
	FW_PREFETCH(&job->job_id);
	FW_PREFETCH(&job->user_id);
	FW_PREFETCH(&job->direct_set_prio);
}

FW_PREFETCH_HELPER void prefetch_details(const job_record_t *job)
{
	const job_details_t *details = job->details;
	if (details) {
		FW_PREFETCH(&details->begin_time);
		FW_PREFETCH(&details->submit_time);
	}
}

/* Requires part R. filter->partitions' records (names not found are
 * left out, as multifactor does). */
static void find_wanted(sprio_t *q)
{
	if (!q->filter->partitions)
		return;
	char *names = xstrdup(q->filter->partitions), *save = NULL;
	for (char *name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		part_record_t *part = find_part_record(name);
		if (!part)
			continue;
		xrecalloc(q->wanted, q->wanted_count + 1, sizeof(*q->wanted));
		q->wanted[q->wanted_count++] = part;
	}
	xfree(names);
}

static void add_jobs(fw_held_t *held, sprio_t *q, time_t now)
{
	job_record_t **jobs = NULL;
	size_t size = 0;
	const size_t count = fw_jobs_walk(held, &jobs, &size);
	for (size_t i = 0; i < count; ++i) {
		if (i + RECORDS_AHEAD < count)
			prefetch_record(jobs[i + RECORDS_AHEAD]);
		if (i + DETAILS_AHEAD < count)
			prefetch_details(jobs[i + DETAILS_AHEAD]);
		if (listed(jobs[i], q, now))
			add_job(jobs[i], q);
	}
	xfree(jobs);
}

list_t *fw_sprio_factors_list(const fw_sprio_filter_t *filter, uid_t uid,
			      bool caller_locked)
{
	static const fw_sprio_filter_t none = { 0 };
	fw_config_t *config = fw_config_get();
	sprio_t q = { .filter = filter ? filter : &none,
		      .uid = uid,
		      .config = config };
	q.settings = fw_settings(config);
	q.pass = fw_jobs_pass();
	const time_t now = time(NULL);
	fw_held_t held = FW_HELD_BY_SPRIO_CALLER;
	if (!caller_locked) {
		held = (fw_held_t){ 0 };
		fw_lock(&held, FW_SPRIO);
	}
	find_wanted(&q);
	if (job_list && list_count(job_list)) {
		q.out = list_create(destroy_factors);
		add_jobs(&held, &q, now);
		if (!list_count(q.out))
			FREE_NULL_LIST(q.out);
	}
	if (!caller_locked)
		fw_unlock(&held, FW_SPRIO);
	xfree(q.wanted);
	fw_config_unref(config);
	return q.out;
}
