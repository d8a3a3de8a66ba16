/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The boundary test: a decay pass against the single-job path
 * (diff_boundary.h states the contract). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "diff_boundary.h"
#include "ctld_stubs.h"
#include "diff_jobs.h"

#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#define FIRST_ID 900000u
#define HELD_ID (FIRST_ID + 1)
#define DIRECT_ID (FIRST_ID + 2)
#define RUNNING_ID (FIRST_ID + 3)
#define RUNNING_PRIORITY 4242u
#define ARRAY_ID (FIRST_ID + 100) /* the array's meta record; tasks follow */
#define ARRAY_TASKS 3
#define CHANGES 5

/* What the hook did (diff_boundary.h). */
typedef struct {
	uint64_t seed;
	bool no_users; /* a tree of accounts alone: no job at all */
	bool ran, on_time;
	uint32_t changed[CHANGES];
} hook_state_t;

static hook_state_t hook_state;

static slurmdb_qos_rec_t *qos_by_id(uint32_t id)
{
	list_itr_t *it = list_iterator_create(assoc_mgr_qos_list);
	slurmdb_qos_rec_t *q;
	while ((q = list_next(it)) && q->id != id)
		;
	list_iterator_destroy(it);
	return q;
}

/* The n-th user association without a partition, in assoc_mgr's order
 * (wrapping round); assoc R held. */
static slurmdb_assoc_rec_t *user_assoc(uint64_t n)
{
	int count = list_count(assoc_mgr_assoc_list), users = 0;
	slurmdb_assoc_rec_t **found = xcalloc(count ? count : 1, sizeof(*found)), *a;
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it)) && users < count)
		if (a->user && !a->partition)
			found[users++] = a;
	list_iterator_destroy(it);
	a = users ? found[n % (uint64_t) users] : NULL;
	xfree(found);
	return a;
}

void diff_boundary_add_jobs(uint64_t seed, list_t *jobs)
{
	assoc_mgr_lock_t read = {.assoc = READ_LOCK, .qos = READ_LOCK};
	assoc_mgr_lock(&read);
	slurmdb_qos_rec_t *normal = qos_by_id(1);
	part_record_t *p1 = find_part_record("p1");
	slurmdb_assoc_rec_t *a = user_assoc(seed);
	if (!a) {
		hook_state.no_users = true;
		assoc_mgr_unlock(&read);
		return;
	}

	job_record_t *held = diff_jobs_new(HELD_ID, a, normal, p1, 1, 0);
	held->priority = 0; /* scontrol hold */
	held->state_reason = WAIT_HELD_USER;
	list_append(jobs, held);

	job_record_t *direct = diff_jobs_new(DIRECT_ID, a, normal, p1, 1, 0);
	direct->priority = 123456; /* scontrol update priority= */
	direct->direct_set_prio = 1;
	list_append(jobs, direct);

	job_record_t *running = diff_jobs_new(RUNNING_ID, user_assoc(seed + 1), normal, p1, 1, 0);
	running->job_state = JOB_RUNNING;
	running->priority = RUNNING_PRIORITY;
	running->start_time = time(NULL) - 60;
	running->end_time = running->start_time + 3600;
	running->tres_alloc_cnt = xcalloc(g_tres_count, sizeof(uint64_t));
	memcpy(running->tres_alloc_cnt, running->tres_req_cnt, g_tres_count * sizeof(uint64_t));
	list_append(jobs, running);

	/* A job array: the pending meta record (every task not yet split
	 * out) and tasks split out, each its own record. */
	for (uint32_t t = 0; t <= ARRAY_TASKS; t++) {
		job_record_t *job = diff_jobs_new(ARRAY_ID + t, user_assoc(seed + 2), normal, p1,
						  1 + t % 2, 0);
		job->array_job_id = ARRAY_ID;
		job->array_task_id = t ? t - 1 : NO_VAL;
		if (!t)
			job->array_recs = xmalloc(sizeof(*job->array_recs));
		list_append(jobs, job);
	}
	assoc_mgr_unlock(&read);
}

/* ---- changes between gather and store --------------------------------- */


static bool plain_pending(const job_record_t *job)
{
	return job->job_id < FIRST_ID && IS_JOB_PENDING(job) && job->priority &&
	       !job->direct_set_prio && !job->part_ptr_list
#if HOST_SLURM_AT_LEAST(24, 11, 0)
	       && !job->qos_list
#endif
		;
}

/* The first job at or after the seed's position (plus offset) in
 * job_list that is a plain pending job no change took yet. */
static job_record_t *pick(uint64_t offset, int taken)
{
	int n = list_count(job_list);
	if (!n)
		return NULL;
	job_record_t **jobs = xcalloc(n, sizeof(*jobs)), *found = NULL;
	list_itr_t *it = list_iterator_create(job_list);
	for (int i = 0; i < n; i++)
		jobs[i] = list_next(it);
	list_iterator_destroy(it);
	for (int k = 0; k < n && !found; k++) {
		job_record_t *job = jobs[(hook_state.seed + offset + k) % n];
		bool free_job = plain_pending(job);
		for (int c = 0; c < taken; c++)
			free_job &= hook_state.changed[c] != job->job_id;
		if (free_job)
			found = job;
	}
	xfree(jobs);
	return found;
}

#if HOST_SLURM_AT_LEAST(24, 11, 0)
static int resort_parts(void *x, void *arg)
{
	job_record_t *job = x;
	if (job->part_ptr_list)
		list_sort(job->part_ptr_list, priority_sort_part_tier);
	return 0;
}
#endif

/* Records job as changed and whether the pass had not stored it yet (its
 * submitted priority 1). */
static void changing(job_record_t *job, int *c)
{
	hook_state.on_time &= job->priority == 1;
	hook_state.changed[(*c)++] = job->job_id;
}

/* The jobs an update changed: _update_job ends, for a job that is not
 * held, with set_job_prio, the plugin's priority_p_set, under job W and
 * no assoc_mgr lock (slurm-22-05-8-1:src/slurmctld/job_mgr.c). */
static job_record_t *updated[CHANGES];
static int updated_count;

static void update_ends(job_record_t *job)
{
	updated[updated_count++] = job;
}

/* On the plugin's thread, no lock held: what an admin's sacctmgr,
 * scontrol update job, scontrol top and scontrol update partition would
 * do then. */
static void change_jobs(void *arg)
{
	slurmctld_lock_t write = {.job = WRITE_LOCK, .part = WRITE_LOCK};
	assoc_mgr_lock_t read = {.assoc = READ_LOCK, .qos = READ_LOCK};
	lock_slurmctld(write);
	assoc_mgr_lock(&read);
	hook_state.ran = true;
	hook_state.on_time = true;
	updated_count = 0;
	job_record_t *job;
	int c = 0;
	if ((job = pick(0, c))) { /* scontrol update job nice= */
		changing(job, &c);
		job->details->nice += 50;
		update_ends(job);
	}
	if ((job = pick(7, c))) { /* scontrol update job qos= */
		changing(job, &c);
		job->qos_ptr = qos_by_id(job->qos_ptr && job->qos_ptr->id == 2 ? 1 : 2);
		job->qos_id = job->qos_ptr->id;
		update_ends(job);
	}
	if ((job = pick(13, c)) && !job->assoc_ptr->partition) { /* partition= */
		changing(job, &c);
		part_record_t *to = find_part_record(strcmp(job->part_ptr->name, "p1") ? "p1" : "p2");
		job->part_ptr = to;
		xfree(job->partition);
		job->partition = xstrdup(to->name);
		update_ends(job);
	}
	if ((job = pick(19, c))) { /* scontrol update job account= */
		slurmdb_assoc_rec_t *to = user_assoc(hook_state.seed + 5);
		if (to && to != job->assoc_ptr && !to->partition) {
			changing(job, &c);
			job->assoc_ptr = to;
			job->assoc_id = to->id;
			xfree(job->account);
			job->account = xstrdup(to->acct);
			update_ends(job);
		}
	}
	/* scontrol top (_set_top): a priority and a nice value written
	 * directly, without priority_p_set; the pass must not store over it */
	if ((job = pick(23, c))) {
		changing(job, &c);
		job->priority = 2;
		job->details->nice += 1;
	}
	/* scontrol update partition=p2 prioritytier=: the multi-partition
	 * jobs' order changes; from 24.11 update_part re-sorts their lists */
	part_record_t *p2 = find_part_record("p2");
	p2->priority_tier = p2->priority_tier == 2 ? 1 : 2;
#if HOST_SLURM_AT_LEAST(24, 11, 0)
	list_for_each(job_list, resort_parts, NULL);
#endif
	assoc_mgr_unlock(&read);
	for (int k = 0; k < updated_count; k++)
		updated[k]->priority = priority_g_set(0, updated[k]);
	unlock_slurmctld(write);
}

void diff_boundary_arm(uint64_t seed)
{
	bool no_users = hook_state.no_users;
	memset(&hook_state, 0, sizeof(hook_state));
	hook_state.seed = seed;
	hook_state.no_users = no_users;
	ctld_stubs_after_job_read(change_jobs, NULL);
}

/* ---- the comparison ---------------------------------------------------- */

/* Everything a pass stores for a job, doubles exactly. */
static void describe(const job_record_t *job, char *out, size_t size)
{
	int n = snprintf(out, size, "priority %u array", job->priority);
	const uint32_t *prios = HOST_PRIO_ARRAY(job);
	int count = job->part_ptr_list ? list_count(job->part_ptr_list) : 1, pairs = 0;
#if HOST_SLURM_AT_LEAST(24, 11, 0)
	if (job->qos_list)
		count *= list_count(job->qos_list);
	pairs = job->part_ptr_list || job->qos_list ? count : 0;
#else
	pairs = job->part_ptr_list ? count : 0;
#endif
	for (int k = 0; prios && k < pairs && n < (int) size; k++)
		n += snprintf(out + n, size - n, " %u", prios[k]);
	const priority_factors_t *f = job->prio_factors;
	if (!f || n >= (int) size)
		return;
	n += snprintf(out + n, size - n,
		      " age %a assoc %a fs %a js %a part %a qos %a site %a nice %u tres",
		      f->priority_age, f->priority_assoc, f->priority_fs, f->priority_js,
		      f->priority_part, f->priority_qos, (double) f->priority_site, f->nice);
	for (uint32_t t = 0; f->priority_tres && t < f->tres_cnt && n < (int) size; t++)
		n += snprintf(out + n, size - n, " %a", f->priority_tres[t]);
}

int diff_boundary_check(void)
{
	slurmctld_lock_t write = {.job = WRITE_LOCK, .part = READ_LOCK};
	int failed = 0, compared = 0;
	char pass[2048], single[2048];

	if (hook_state.no_users) {
		printf("boundary: no user association, so no job: nothing to compare\n");
		return 0;
	}
	if (!hook_state.ran) {
		printf("FAIL: boundary: no job changed between the pass's gather and its store\n");
		failed++;
	} else if (!hook_state.on_time) {
		printf("FAIL: boundary: the pass had stored a job before the change\n");
		failed++;
	}
	lock_slurmctld(write);
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;
	while ((job = list_next(it))) {
		if (job->job_id == HELD_ID || job->job_id == RUNNING_ID) {
			uint32_t want = job->job_id == HELD_ID ? 0 : RUNNING_PRIORITY;
			if (job->priority != want) {
				printf("FAIL: boundary: job %u (%s) has priority %u after the pass, not %u\n",
				       job->job_id, want ? "running" : "held", job->priority, want);
				failed++;
			}
			continue;
		}
		describe(job, pass, sizeof(pass));
		uint32_t priority = priority_g_set(0, job);
		job->priority = priority;
		describe(job, single, sizeof(single));
		compared++;
		if (strcmp(pass, single)) {
			printf("FAIL: boundary: job %u: the pass stored\n  %s\n  the single-job path computes\n  %s\n",
			       job->job_id, pass, single);
			failed++;
		}
	}
	list_iterator_destroy(it);
	unlock_slurmctld(write);
	int changed = 0;
	while (changed < CHANGES && hook_state.changed[changed])
		changed++;
	printf("boundary: %d jobs compared with the single-job path, %d changed between gather and store: %d failed\n",
	       compared, changed, failed);
	return failed;
}
