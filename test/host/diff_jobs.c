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

#include "slurm/slurm.h"
#include "src/common/assoc_mgr.h"
#include "src/common/slurm_priority.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
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
	struct job_details *d = xmalloc(sizeof(*d));
	job->magic = JOB_MAGIC;
	job->job_id = id;
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
	job->prio_factors = xmalloc(sizeof(priority_factors_object_t));
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

void diff_jobs_create(uint64_t seed, List jobs)
{
	uint64_t rng = seed ^ 0x6a6f6273ULL; /* not the tree's sequence */
	assoc_mgr_lock_t read = {.assoc = READ_LOCK, .qos = READ_LOCK};
	time_t accrued = time(NULL) - 30 * 86400;
	uint32_t job_id = 1000;

	create_partitions(seed);
	assoc_mgr_lock(&read);
	slurmdb_qos_rec_t *qos[2] = {NULL, NULL}; /* normal, high (diff_state.c) */
	if (assoc_mgr_qos_list) {
		ListIterator q = list_iterator_create(assoc_mgr_qos_list);
		slurmdb_qos_rec_t *rec;
		while ((rec = list_next(q)))
			if (rec->id == 1 || rec->id == 2)
				qos[rec->id - 1] = rec;
		list_iterator_destroy(q);
	}
	ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
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
				xfree(job->partition);
				job->partition = xstrdup("p1,p2");
			}
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

/* A weighted factor back to sprio -n's normalised one. */
static double normalised(double weighted, uint32_t weight)
{
	return weight ? weighted / weight : 0.0;
}

void diff_jobs_dump(void)
{
	priority_factors_request_msg_t req;
	memset(&req, 0, sizeof(req));
	List list = priority_g_get_priority_factors_list(&req, 0);
	printf("job|JOBID|PARTITION|USER|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|"
	       "PARTITION|QOS|NICE|TRES|PRIORITIES\n");
	if (!list)
		return;
	int n = list_count(list), i = 0;
	row_t *rows = xcalloc(n ? n : 1, sizeof(*rows));
	ListIterator it = list_iterator_create(list);
	priority_factors_object_t *o;
	while ((o = list_next(it)) && i < n) {
		job_record_t *job = find_job_record(o->job_id);
		rows[i].job_id = o->job_id;
		char tres[128] = "";
		for (uint32_t t = 0; o->priority_tres && o->tres_weights && t < o->tres_cnt; t++)
			if (o->tres_weights[t] != 0.0)
				snprintf(tres + strlen(tres), sizeof(tres) - strlen(tres),
					 "%s%s=%.7f", tres[0] ? "," : "",
					 o->tres_names && o->tres_names[t] ? o->tres_names[t] : "?",
					 o->priority_tres[t] / o->tres_weights[t]);
		/* a multi-partition job's priority per partition, in the
		 * order the plugin left its partition list */
		char per_part[128] = "";
		if (job && job->part_ptr_list && job->priority_array) {
			ListIterator p = list_iterator_create(job->part_ptr_list);
			part_record_t *part;
			for (int k = 0; (part = list_next(p)); k++)
				snprintf(per_part + strlen(per_part),
					 sizeof(per_part) - strlen(per_part), "%s%s=%u",
					 k ? "," : "", part->name, job->priority_array[k]);
			list_iterator_destroy(p);
		}
		snprintf(rows[i].line, sizeof(rows[i].line),
			 "job|%u|%s|%u|%u|%d|%.7f|%.7f|%.7f|%.7f|%.7f|%.7f|%d|%s|%s", o->job_id,
			 o->partition ? o->partition : "", o->user_id, job ? job->priority : 0,
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
