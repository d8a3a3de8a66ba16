/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One sync of one other cluster (fairshare_clusters): its associations and
 * its jobs since fw_remote_fetch_since asked of slurmdbd through the
 * controller's accounting connection, as the usage bootstrap asks for this
 * cluster's, then handed to the core (fw_remote_sync) under the remote
 * mutex. Holds no slurmctld lock. */
#include "fw_plugin.h"

#include <unistd.h>

#include "remote_fetch.h"
#include "bootstrap.h"
#include "config_store.h"
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

bool fw_remote_sync_cluster(const fw_config_t *config, const char *cluster)
{
	if (!acct_db_conn)
		return false;
	time_t now = time(NULL);
	time_t since = fw_remote_fetch_since(fw_remote_acquire(), config,
					     cluster, now);
	fw_remote_release();
	list_t *assocs = fetch_assocs(cluster);
	list_t *jobs =
		assocs ? fw_fetch_cluster_jobs(cluster, since, now) : NULL;
	if (!assocs || !jobs) {
		FREE_NULL_LIST(assocs);
		FREE_NULL_LIST(jobs);
		return false;
	}
	fw_remote_assoc_t *a = xcalloc(list_count(assocs) + 1, sizeof(*a)),
			  *a_end = a;
	fw_remote_job_t *j = xcalloc(list_count(jobs) + 1, sizeof(*j)),
			*j_end = j;
	list_for_each(assocs, copy_assoc, &a_end);
	list_for_each(jobs, copy_job, &j_end);
	fw_remote_sync_t r;
	fw_remote_sync(fw_remote_acquire(), config, cluster, a,
		       (size_t) (a_end - a), j, (size_t) (j_end - j), now, &r);
	fw_remote_release();
	fw_log(FW_LOG_VERBOSE,
	       "fairshare_clusters: cluster %s synced: %zu ended jobs charged (%.0f billing-seconds), %zu running, %zu charged before, %zu of associations with no path to root",
	       cluster, r.charged, r.charged_usage, r.running, r.repeated,
	       r.without_path);
	if (r.charged)
		fw_log(FW_LOG_PRIO,
		       "fairshare_clusters: cluster %s: %zu jobs charged since %ld",
		       cluster, r.charged, (long) since);
	xfree(a);
	xfree(j);
	FREE_NULL_LIST(
		assocs); /* after the core: a[] and j[] pointed into them */
	FREE_NULL_LIST(jobs);
	return true;
}
