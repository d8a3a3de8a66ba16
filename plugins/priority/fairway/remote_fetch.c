/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One sync of one other cluster (fairshare_clusters): its jobs since
 * fw_remote_fetch_since, and its associations when the paths the core
 * keeps do not do, asked of slurmdbd through the controller's accounting
 * connection, as the usage bootstrap asks for this cluster's jobs, then
 * handed to the core (fw_remote_sync) under the remote mutex. Holds no
 * slurmctld lock. */
#include "fw_plugin.h"

#include <malloc.h>
#include <unistd.h>

#include "remote_fetch.h"
#include "bootstrap.h"
#include "config_store.h"
#include "fw_thread.h"
#include "remote_sync.h"

static list_t *one_cluster(const char *cluster)
{
	list_t *list = list_create(NULL);
	list_append(list, (void *) cluster);
	return list;
}

/* slurmdbd's associations of cluster, or NULL when it did not answer. */
static list_t *fetch_assocs(const char *cluster)
{
	slurmdb_assoc_cond_t cond = { 0 };
	cond.cluster_list = one_cluster(cluster);
	list_t *records =
		acct_storage_g_get_assocs(acct_db_conn, getuid(), &cond);
	FREE_NULL_LIST(cond.cluster_list);
	return records;
}

static int copy_assoc(void *object, void *arg)
{
	slurmdb_assoc_rec_t *a = object;
	fw_remote_assoc_t **next = arg;
	**next = (fw_remote_assoc_t){
		.id = a->id,
		.acct = a->acct,
		.user = a->user,
		.partition = a->partition,
		.parent_acct = a->parent_acct,
	};
	(*next)++;
	return 0;
}

static int copy_job(void *object, void *arg)
{
	slurmdb_job_rec_t *j = object;
	fw_remote_job_t **next = arg;
	**next = (fw_remote_job_t){
		.job_id = j->jobid,
		.submit = j->submit,
		.assoc_id = j->associd,
		.start = j->start,
		.end = j->end,
		.tres_alloc = j->tres_alloc_str,
	};
	(*next)++;
	return 0;
}

/* Hands the jobs (and assocs, when not NULL) to the core; *r says what it
 * did, or that it needs the associations. */
static void sync_core(const fw_config_t *config, const char *cluster,
		      list_t *assocs, list_t *jobs, time_t now,
		      fw_remote_sync_t *r)
{
	fw_remote_assoc_t *a = NULL, *a_end = NULL;
	if (assocs) {
		a = xcalloc(list_count(assocs) + 1, sizeof(*a));
		a_end = a;
		list_for_each(assocs, copy_assoc, &a_end);
	}
	fw_remote_job_t *j = xcalloc(list_count(jobs) + 1, sizeof(*j)),
			*j_end = j;
	list_for_each(jobs, copy_job, &j_end);
	fw_remote_sync(fw_remote_acquire(), config, cluster, a,
		       (size_t) (a_end - a), j, (size_t) (j_end - j), now, r);
	fw_remote_release();
	xfree(a);
	xfree(j);
}

bool fw_remote_sync_cluster(const fw_config_t *config, const char *cluster)
{
	if (!acct_db_conn)
		return false;
	/* The log line says what a sync costs (bench/remote_sync.sh reads it):
	 * this thread's CPU, which includes unpacking slurmdbd's answers, and
	 * the wall time of the queries. */
	const double cpu_start = fw_thread_cpu_ms(), jobs_start = fw_wall_ms();
	time_t now = time(NULL);
	time_t since = fw_remote_fetch_since(fw_remote_acquire(), config,
					     cluster, now);
	fw_remote_release();
	list_t *jobs = fw_fetch_cluster_jobs(cluster, since, now);
	const double jobs_ms = fw_wall_ms() - jobs_start;
	if (!jobs)
		return false;
	fw_remote_sync_t r;
	sync_core(config, cluster, NULL, jobs, now, &r);
	/* The paths the core keeps are an hour old, or a job names a newer
	 * association: ask for the associations (10,000 cost about as much
	 * as 3,000 jobs to receive). */
	list_t *assocs = NULL;
	double assocs_ms = 0;
	if (r.needs_assocs) {
		const double assocs_start = fw_wall_ms();
		assocs = fetch_assocs(cluster);
		assocs_ms = fw_wall_ms() - assocs_start;
		if (!assocs) {
			FREE_NULL_LIST(jobs);
			return false;
		}
		sync_core(config, cluster, assocs, jobs, now, &r);
	}
	const size_t assoc_cnt = assocs ? list_count(assocs) : 0,
		     job_cnt = list_count(jobs);
	/* after the core: the copies pointed into the records */
	FREE_NULL_LIST(assocs);
	FREE_NULL_LIST(jobs);
#ifdef __GLIBC__
	/* A first sync, or one after an outage, receives the decay window:
	 * tens of thousands of records freed at once, which glibc would keep
	 * in this thread's arena (90 MiB for 3 x 50,000 in
	 * bench/remote_sync.sh) unless told to give them back. */
	if (job_cnt >= 10000)
		malloc_trim(0);
#endif
	fw_log(FW_LOG_VERBOSE,
	       "fairshare_clusters: cluster %s synced: %zu ended jobs charged (%.0f billing-seconds), %zu running, %zu charged before, %zu of associations with no path to root; slurmdbd: %zu associations in %.1f ms, %zu jobs in %.1f ms; CPU %.1f ms", cluster,
	       r.charged, r.charged_usage, r.running, r.repeated,
	       r.without_path, assoc_cnt, assocs_ms, job_cnt, jobs_ms,
	       fw_thread_cpu_ms() - cpu_start);
	if (r.charged)
		fw_log(FW_LOG_PRIO,
		       "fairshare_clusters: cluster %s: %zu jobs charged since %ld",
		       cluster, r.charged, (long) since);
	return true;
}
