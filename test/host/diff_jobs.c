/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The differential test's pending jobs and partitions, and their sprio
 * rows (diff_jobs.h states the contract). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diff_jobs.h"
#include "ctld_stubs.h"

#include "host_slurm.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#define PARTITIONS 2
static part_record_t *parts[PARTITIONS];

static uint64_t next(uint64_t *state) /* splitmix64, as diff_tree.c */
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* slurmctld's partition records as far as the plugins read them; the
 * normalised factor is what slurmctld computes (factor / highest). */
static void create_partitions(uint64_t seed)
{
	static const uint16_t factor[PARTITIONS] = {1, 3};
	for (int i = 0; i < PARTITIONS; i++) {
		part_record_t *p = xmalloc(sizeof(*p));
		p->name = xstrdup_printf("p%d", i + 1);
		p->priority_job_factor = factor[i];
		p->norm_priority = (double) factor[i] / factor[PARTITIONS - 1];
		/* p2 above p1 in odd seeds; equal tiers keep a job's list order */
		p->priority_tier = (i == 1 && (seed & 1)) ? 2 : 1;
		p->max_time = INFINITE;
		p->tres_cnt = xcalloc(g_tres_count, sizeof(uint64_t));
		p->tres_cnt[TRES_ARRAY_CPU] = 2;
		p->tres_cnt[TRES_ARRAY_NODE] = 1;
		p->tres_cnt[TRES_ARRAY_MEM] = 4000;
		parts[i] = p;
	}
	ctld_stubs_set_partitions(parts, PARTITIONS);
}

/* A job's request, drawn from the seed. */
typedef struct {
	uint32_t cpus, mem_mb, time_limit;
	int nice; /* -100..100 */
} request_t;

static request_t draw_request(uint64_t *rng)
{
	static const uint32_t mems[] = {500, 1000, 4000};
	static const uint32_t limits[] = {30, 60, 600};
	static const int nices[] = {0, 0, 0, 0, 10, -5, 100};
	uint64_t r = next(rng);
	return (request_t){
		.cpus = 1 + (uint32_t) (r % 2),
		.mem_mb = mems[(r >> 8) % 3],
		.time_limit = limits[(r >> 16) % 3],
		.nice = nices[(r >> 24) % 7],
	};
}

static job_record_t *create_job(uint32_t id, slurmdb_assoc_rec_t *assoc,
				slurmdb_qos_rec_t *qos, part_record_t *part,
				request_t req, time_t accrued)
{
	uint32_t cpus = req.cpus;
	job_record_t *job = xmalloc(sizeof(*job));
	job_details_t *d = xmalloc(sizeof(*d));
	job->magic = JOB_MAGIC;
	job->job_id = id;
#if HOST_SLURM_AT_LEAST(25, 11, 0) /* the record's step_id names it too */
	job->step_id.job_id = id;
	job->step_id.step_id = NO_VAL;
	job->step_id.step_het_comp = NO_VAL;
#endif
	job->user_id = assoc->uid;
	job->account = xstrdup(assoc->acct);
	job->assoc_id = assoc->id;
	job->assoc_ptr = assoc;
	job->qos_id = qos ? qos->id : 0;
	job->qos_ptr = qos;
	job->part_ptr = part;
	job->partition = xstrdup(part->name);
	job->job_state = JOB_PENDING;
	job->priority = 1;
	job->site_factor = NICE_OFFSET;
	job->time_limit = req.time_limit;
	job->total_cpus = cpus;
	job->tres_req_cnt = xcalloc(g_tres_count, sizeof(uint64_t));
	job->tres_req_cnt[TRES_ARRAY_CPU] = cpus;
	job->tres_req_cnt[TRES_ARRAY_NODE] = 1;
	job->tres_req_cnt[TRES_ARRAY_MEM] = req.mem_mb;
	job->tres_req_cnt[TRES_ARRAY_BILLING] = cpus;
	job->prio_factors = xmalloc(sizeof(priority_factors_t));
	d->magic = DETAILS_MAGIC;
	d->submit_time = d->begin_time = d->accrue_time = accrued;
	d->min_cpus = cpus;
	d->max_cpus = NO_VAL;
	d->min_nodes = 1;
	d->max_nodes = 1;
	d->nice = (uint32_t) (NICE_OFFSET + req.nice);
	job->details = d;
	return job;
}

job_record_t *diff_jobs_new(uint32_t id, slurmdb_assoc_rec_t *assoc, slurmdb_qos_rec_t *qos,
			    part_record_t *part, uint32_t cpus, int nice)
{
	request_t req = {.cpus = cpus, .mem_mb = 1000, .time_limit = 60, .nice = nice};
	return create_job(id, assoc, qos, part, req, time(NULL) - 30 * 86400);
}

void diff_jobs_create(uint64_t seed, list_t *jobs)
{
	uint64_t rng = seed ^ 0x6a6f6273ULL; /* not the tree's sequence */
	assoc_mgr_lock_t read = {.assoc = READ_LOCK, .qos = READ_LOCK};
	time_t accrued = time(NULL) - 30 * 86400;
	uint32_t job_id = 1000;

	create_partitions(seed);
	assoc_mgr_lock(&read);
	slurmdb_qos_rec_t *qos[2] = {NULL, NULL}; /* normal, high (diff_state.c) */
	if (assoc_mgr_qos_list) {
		list_itr_t *q = list_iterator_create(assoc_mgr_qos_list);
		slurmdb_qos_rec_t *rec;
		while ((rec = list_next(q)))
			if (rec->id == 1 || rec->id == 2)
				qos[rec->id - 1] = rec;
		list_iterator_destroy(q);
	}
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *assoc;
	while ((assoc = list_next(it))) {
		if (!assoc->user)
			continue;
		/* 40 %: no job; else one to three */
		uint64_t r = next(&rng);
		int n = r % 10 < 4 ? 0 : 1 + (int) ((r >> 8) % 3);
		for (int k = 0; k < n; k++) {
			uint64_t j = next(&rng);
			part_record_t *part = parts[j % PARTITIONS];
			if (assoc->partition) /* its partition's jobs only */
				part = !strcmp(assoc->partition, "p2") ? parts[1] : parts[0];
			slurmdb_qos_rec_t *job_qos = qos[(j >> 8) % 10 < 3 ? 1 : 0];
			job_record_t *job = create_job(job_id++, assoc, job_qos, part,
						       draw_request(&rng), accrued);
			if (!assoc->partition && (j >> 16) % 100 < 15) {
				/* submitted to p1,p2: one priority per partition */
				job->part_ptr_list = list_create(NULL);
				list_append(job->part_ptr_list, parts[0]);
				list_append(job->part_ptr_list, parts[1]);
				job->part_ptr = parts[0];
#if HOST_SLURM_AT_LEAST(24, 11, 0)
				/* as slurmctld builds it from 24.11: the first
				 * named partition as part_ptr, the list sorted
				 * by PriorityTier (get_part_list in slurm-26-05-3-1:
				 * src/slurmctld/partition_mgr.c), where
				 * multifactor no longer sorts it */
				list_sort(job->part_ptr_list, priority_sort_part_tier);
#endif
				xfree(job->partition);
				job->partition = xstrdup("p1,p2");
			}
#if HOST_SLURM_AT_LEAST(24, 11, 0)
			if ((j >> 24) % 100 < 15 && qos[0] && qos[1]) {
				/* --qos=normal,high: slurmctld's list, sorted by
				 * priority, its head the job's QOS
				 * (_get_qos_ptr_list, _get_qos_info in
				 * slurm-24-11-5-1:src/slurmctld/job_mgr.c) */
				job->qos_list = list_create(NULL);
				list_append(job->qos_list, qos[0]);
				list_append(job->qos_list, qos[1]);
				list_sort(job->qos_list, priority_sort_qos_desc);
				job->qos_ptr = list_peek(job->qos_list);
				job->qos_id = job->qos_ptr->id;
			}
#endif
			list_append(jobs, job);
		}
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&read);
}

typedef struct {
	uint32_t job_id;
	char line[512];
} row_t;

static int by_job(const void *a, const void *b)
{
	const row_t *x = a, *y = b;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return strcmp(x->line, y->line);
}

/* A multi-partition (or, 24.11 and later, multi-QOS) job's priorities,
 * partition-major as the scheduler reads them
 * (slurm-24-11-5-1:src/plugins/priority/multifactor/priority_multifactor.c
 * _priority_each_partition): PARTITION=PRIORITY for each partition in the
 * order the plugin left its list, PARTITION/QOS=PRIORITY for each QOS of a
 * multi-QOS job in its list's order. */
static void print_priorities(job_record_t *job, const uint32_t *prios, char *out, size_t size)
{
	part_record_t *parts_of[PARTITIONS] = {job->part_ptr};
	slurmdb_qos_rec_t *qos_of[2] = {NULL};
	int n_parts = 1, n_qos = 1;
	if (job->part_ptr_list) {
		list_itr_t *it = list_iterator_create(job->part_ptr_list);
		for (n_parts = 0; n_parts < PARTITIONS && (parts_of[n_parts] = list_next(it));)
			n_parts++;
		list_iterator_destroy(it);
	}
#if HOST_SLURM_AT_LEAST(24, 11, 0)
	if (job->qos_list) {
		list_itr_t *it = list_iterator_create(job->qos_list);
		for (n_qos = 0; n_qos < 2 && (qos_of[n_qos] = list_next(it));)
			n_qos++;
		list_iterator_destroy(it);
	}
#endif
	if (!job->part_ptr_list && !qos_of[0])
		return;
	for (int p = 0, k = 0; p < n_parts; p++)
		for (int q = 0; q < n_qos; q++, k++)
			snprintf(out + strlen(out), size - strlen(out), "%s%s%s%s=%u",
				 k ? "," : "", parts_of[p] ? parts_of[p]->name : "?",
				 qos_of[q] ? "/" : "", qos_of[q] ? qos_of[q]->name : "", prios[k]);
}

/* The row's QOS name (from 23.02; a multi-QOS job has a row per QOS). */
static const char *row_qos(const priority_factors_object_t *row)
{
#if HOST_SLURM_AT_LEAST(23, 2, 0)
	return row->qos ? row->qos : "";
#else
	return "";
#endif
}

/* A weighted factor back to sprio -n's normalised one. */
static double normalised(double weighted, uint32_t weight)
{
	return weight ? weighted / weight : 0.0;
}

void diff_jobs_dump(void)
{
#if HOST_SLURM_AT_LEAST(23, 2, 0)
	/* slurmctld's sprio RPC holds job R, node R, part R and QOS R
	 * (clients of 23.02 and later filter the rows themselves) */
	slurmctld_lock_t job_read = {.job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK};
	assoc_mgr_lock_t qos_read = {.qos = READ_LOCK};
	lock_slurmctld(job_read);
	assoc_mgr_lock(&qos_read);
#if HOST_SLURM_AT_LEAST(24, 5, 0)
	list_t *list = priority_g_get_priority_factors_list(0);
#else
	list_t *list = priority_g_get_priority_factors_list(NULL, 0);
#endif
	assoc_mgr_unlock(&qos_read);
	unlock_slurmctld(job_read);
#else
	priority_factors_request_msg_t req;
	memset(&req, 0, sizeof(req));
	list_t *list = priority_g_get_priority_factors_list(&req, 0);
#endif
	printf("job|JOBID|PARTITION|QOSNAME|USER|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|"
	       "PARTITION|QOS|NICE|TRES|PRIORITIES\n");
	if (!list)
		return;
	int n = list_count(list), i = 0;
	row_t *rows = xcalloc(n ? n : 1, sizeof(*rows));
	list_itr_t *it = list_iterator_create(list);
	priority_factors_object_t *row;
	while ((row = list_next(it)) && i < n) {
		uint32_t job_id = HOST_ROW_JOB_ID(row);
		const priority_factors_t *o = HOST_ROW_FACTORS(row);
		job_record_t *job = find_job_record(job_id);
		rows[i].job_id = job_id;
		if (!o) { /* an operator-set priority: no factors (23.02+) */
			snprintf(rows[i].line, sizeof(rows[i].line), "job|%u|%s|%u|%u|direct %.0f",
				 job_id, row->partition ? row->partition : "", row->user_id,
				 job ? job->priority : 0, row->direct_prio);
			i++;
			continue;
		}
		char tres[128] = "";
		for (uint32_t t = 0; o->priority_tres && o->tres_weights && t < o->tres_cnt; t++)
			if (o->tres_weights[t] != 0.0)
				snprintf(tres + strlen(tres), sizeof(tres) - strlen(tres),
					 "%s%s=%.7f", tres[0] ? "," : "",
					 o->tres_names && o->tres_names[t] ? o->tres_names[t] : "?",
					 o->priority_tres[t] / o->tres_weights[t]);
		char per_part[256] = "";
		const uint32_t *prios = job ? HOST_PRIO_ARRAY(job) : NULL;
		if (job && prios)
			print_priorities(job, prios, per_part, sizeof(per_part));
		snprintf(rows[i].line, sizeof(rows[i].line),
			 "job|%u|%s|%s|%u|%u|%d|%.7f|%.7f|%.7f|%.7f|%.7f|%.7f|%d|%s|%s", job_id,
			 row->partition ? row->partition : "", row_qos(row), row->user_id,
			 job ? job->priority : 0,
			 (int) ((int64_t) o->priority_site - NICE_OFFSET),
			 normalised(o->priority_age, slurm_conf.priority_weight_age),
			 normalised(o->priority_assoc, slurm_conf.priority_weight_assoc),
			 normalised(o->priority_fs, slurm_conf.priority_weight_fs),
			 normalised(o->priority_js, slurm_conf.priority_weight_js),
			 normalised(o->priority_part, slurm_conf.priority_weight_part),
			 normalised(o->priority_qos, slurm_conf.priority_weight_qos),
			 (int) ((int64_t) o->nice - NICE_OFFSET), tres, per_part);
		i++;
	}
	list_iterator_destroy(it);
	qsort(rows, (size_t) i, sizeof(*rows), by_job);
	for (int k = 0; k < i; k++)
		printf("%s\n", rows[k].line);
	xfree(rows);
	FREE_NULL_LIST(list);
}
