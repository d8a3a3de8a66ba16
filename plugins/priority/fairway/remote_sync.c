/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PriorityParameters=fairshare_clusters: the usage of the other clusters
 * that share this slurmdbd. A thread of its own ("fw_remote") syncs each
 * cluster (remote_fetch.c asks slurmdbd, holding no slurmctld lock while
 * it waits; the core charges the jobs, src/remote_usage.h, under the
 * remote mutex), and the state goes to
 * StateSaveLocation/fairway_remote_usage after each sync. The decay pass
 * never waits on slurmdbd: when a sync fails, the last remote usage is
 * kept and decays with time. No Slurm header here. The lines logged here
 * are grepped for by the tests: keep them word for word. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "remote_sync.h"
#include "config_store.h"
#include "fw_host.h"
#include "fw_thread.h"
#include "remote_fetch.h"
#include "state_files.h"

#define FW_REMOTE_FILE "fairway_remote_usage"
#define FW_REMOTE_USED_FILE "fairway_remote_used"
/* Clusters whose outage is remembered (to say it once, and its end). */
#define FW_REMOTE_MAX_TOLD 64

static pthread_mutex_t remote_mutex = PTHREAD_MUTEX_INITIALIZER;
static fw_remote_t *remote; /* created at first use, kept until exit */

static fw_thread_t syncer = FW_THREAD_INITIALIZER;

/* Clusters whose last sync failed (thread only). */
static char *failing[FW_REMOTE_MAX_TOLD];

fw_remote_t *fw_remote_acquire(void)
{
	pthread_mutex_lock(&remote_mutex);
	if (!remote)
		remote = fw_remote_create();
	return remote;
}

void fw_remote_release(void)
{
	pthread_mutex_unlock(&remote_mutex);
}

/* StateSaveLocation/fairway_remote_usage<suffix> into the state; true when
 * it parsed. *why says why not (free it). */
static bool try_load(const char *suffix, char **why)
{
	char *bytes = NULL, *parse_why = NULL;
	size_t length = 0;
	fw_read_t result =
		fw_state_read(FW_REMOTE_FILE, suffix, &bytes, &length, why);
	bool ok = false;
	if (result == FW_READ_MISSING) {
		*why = fw_format("missing");
	} else if (result == FW_READ_OK) {
		ok = fw_remote_parse(fw_remote_acquire(), bytes, length,
				     &parse_why);
		fw_remote_release();
		if (!ok)
			*why = fw_format("%s",
					 parse_why ? parse_why : "unreadable");
		free(parse_why); /* the core's malloc */
	}
	free(bytes);
	return ok;
}

/* The file, else its previous copy, else nothing (every cluster's next
 * sync then fetches the decay window). */
static void load_state(void)
{
	char *why = NULL, *old_why = NULL;
	char *path = fw_state_path(FW_REMOTE_FILE, "");
	if (try_load("", &why)) {
		fw_log(FW_LOG_INFO,
		       "fairshare_clusters: remote usage restored from %s",
		       path);
	} else if (!strcmp(why, "missing")) {
		if (try_load(".old", &old_why))
			fw_log(FW_LOG_ERROR,
			       "fairshare_clusters: %s is missing; remote usage restored from its .old copy",
			       path);
		else
			fw_log(FW_LOG_INFO,
			       "fairshare_clusters: no remote usage state (%s); the first sync fetches the decay window",
			       path);
	} else {
		fw_log(FW_LOG_ERROR,
		       "fairshare_clusters: %s is damaged (%s); kept as %s.damaged, trying its .old copy",
		       path, why, path);
		fw_state_set_aside(FW_REMOTE_FILE);
		if (!try_load(".old", &old_why))
			fw_log(FW_LOG_ERROR,
			       "fairshare_clusters: no usable previous copy (%s); the first sync fetches the decay window",
			       old_why);
	}
	free(why);
	free(old_why);
	free(path);
}

static void save_state(void)
{
	size_t length = 0;
	char *bytes = fw_remote_serialize(fw_remote_acquire(), &length);
	fw_remote_release();
	if (bytes) /* written outside the mutex: the fairshare never waits on the disk */
		fw_state_write(FW_REMOTE_FILE, bytes, length);
	free(bytes); /* the core's malloc */
}

void fw_remote_save_used(void)
{
	size_t length = 0;
	char *bytes = fw_remote_used_serialize(fw_remote_acquire(), &length);
	fw_remote_release();
	if (bytes)
		fw_state_write(FW_REMOTE_USED_FILE, bytes, length);
	free(bytes); /* the core's malloc */
}

/* Index of cluster in failing[], or -1. */
static int failing_index(const char *cluster)
{
	for (int i = 0; i < FW_REMOTE_MAX_TOLD; i++)
		if (failing[i] && !strcmp(failing[i], cluster))
			return i;
	return -1;
}

static void sync_all(const fw_config_t *config)
{
	const fw_settings_t *s = fw_settings(config);
	bool any = false;
	for (size_t i = 0; i < s->remote_cluster_cnt; i++) {
		const char *cluster = s->remote_clusters[i];
		int told = failing_index(cluster);
		if (!fw_remote_sync_cluster(config, cluster)) {
			if (told < 0) {
				int64_t at = fw_remote_synced_at(
					fw_remote_acquire(), cluster);
				fw_remote_release();
				fw_log(FW_LOG_ERROR,
				       "fairshare_clusters: slurmdbd did not answer for cluster %s; its usage of %lld seconds ago is kept and decays (retried every sync)",
				       cluster,
				       at ? (long long) (time(NULL) - at) :
					    -1LL);
				for (int k = 0; k < FW_REMOTE_MAX_TOLD; k++)
					if (!failing[k]) {
						failing[k] = strdup(cluster);
						break;
					}
			}
			continue;
		}
		any = true;
		if (told >= 0) {
			fw_log(FW_LOG_INFO,
			       "fairshare_clusters: cluster %s synced again",
			       cluster);
			free(failing[told]);
			failing[told] = NULL;
		}
	}
	if (any)
		save_state();
}

/* The state file is read once, when a cluster is first named: at start
 * before the decay thread's first pass (fw_remote_thread_start), else by
 * the thread after a reconfigure named one. */
static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool loaded; /* under load_mutex */

static void load_once(const fw_config_t *config)
{
	if (!fw_settings(config)->remote_cluster_cnt)
		return;
	pthread_mutex_lock(&load_mutex);
	if (!loaded)
		load_state();
	loaded = true;
	pthread_mutex_unlock(&load_mutex);
}

static void *thread_main(void *unused)
{
	pthread_setname_np(pthread_self(), "fw_remote");
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (;;) {
		fw_config_t *config = fw_config_get();
		const fw_settings_t *s = fw_settings(config);
		load_once(config);
		if (s->remote_cluster_cnt)
			sync_all(config);
		int64_t period = s->fairshare_sync_s ? s->fairshare_sync_s :
						       fw_host_calc_period();
		fw_config_unref(config);
		deadline.tv_sec += period > 0 ? period : 60;
		if (fw_thread_sleep_until(&syncer, &deadline))
			break;
	}
	for (int k = 0; k < FW_REMOTE_MAX_TOLD; k++) {
		free(failing[k]);
		failing[k] = NULL;
	}
	return NULL;
}

void fw_remote_thread_start(void)
{
	/* The first pass must see the usage the last run saved. */
	fw_config_t *config = fw_config_get();
	load_once(config);
	fw_config_unref(config);
	pthread_mutex_lock(&syncer.mutex);
	fw_thread_start_locked(
		&syncer, thread_main,
		"cannot start the fairshare_clusters thread: %s; fairshare counts local usage only");
	pthread_mutex_unlock(&syncer.mutex);
}

void fw_remote_thread_stop(void)
{
	pthread_mutex_lock(&syncer.mutex);
	bool was_running = fw_thread_request_stop_locked(&syncer);
	pthread_mutex_unlock(&syncer.mutex);
	if (was_running)
		fw_thread_join(&syncer);
}
