/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmctld's globals and functions, as far as priority_multifactor.so and
 * priority_fairway.so use them (the undefined symbols of
 * `nm -D --undefined-only` on either that libslurmfull does not define),
 * for a test program that stands in for slurmctld. The program is linked
 * with -rdynamic so that a plugin binds to these, not to its own copies.
 *
 * Contract: cluster_cpus is not NO_VAL, so each plugin's init() takes the
 * controller's path (the decay thread); the job list is whatever the
 * program puts in job_list (find_job_record searches it), and the
 * partitions those of ctld_stubs_set_partitions. Locks are real rwlocks in
 * slurmctld's order, so that the plugins' own locking runs.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "host_slurm.h"
#include "src/slurmctld/locks.h"
#if HOST_SLURM_AT_LEAST(24, 5, 0)
#include "src/slurmctld/acct_policy.h"
#endif
#include "src/slurmctld/slurmctld.h"

#include "ctld_stubs.h"

void *acct_db_conn = NULL;
uint16_t accounting_enforce = 0;
uint32_t cluster_cpus = 2;
list_t *job_list = NULL;
time_t last_job_update = 0;
int slurmctld_tres_cnt = 0;

static pthread_rwlock_t ctld_locks[5] = {
	PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
	PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
	PTHREAD_RWLOCK_INITIALIZER};
static pthread_mutex_t state_files_lock = PTHREAD_MUTEX_INITIALIZER;

static lock_level_t level_of(slurmctld_lock_t locks, int i)
{
	lock_level_t levels[5] = {locks.conf, locks.job, locks.node,
				  locks.part, locks.fed};
	return levels[i];
}

void lock_slurmctld(slurmctld_lock_t locks)
{
	for (int i = 0; i < 5; i++) {
		if (level_of(locks, i) == READ_LOCK)
			pthread_rwlock_rdlock(&ctld_locks[i]);
		else if (level_of(locks, i) == WRITE_LOCK)
			pthread_rwlock_wrlock(&ctld_locks[i]);
	}
}

static void (*after_job_read)(void *arg);
static void *after_job_read_arg;
static pthread_t hook_owner;

void ctld_stubs_after_job_read(void (*hook)(void *arg), void *arg)
{
	hook_owner = pthread_self();
	after_job_read_arg = arg;
	__atomic_store_n(&after_job_read, hook, __ATOMIC_RELEASE);
}

void unlock_slurmctld(slurmctld_lock_t locks)
{
	for (int i = 4; i >= 0; i--) {
		if (level_of(locks, i) != NO_LOCK)
			pthread_rwlock_unlock(&ctld_locks[i]);
	}
	void (*hook)(void *) = __atomic_load_n(&after_job_read, __ATOMIC_ACQUIRE);
	if (hook && locks.job == READ_LOCK && !pthread_equal(pthread_self(), hook_owner) &&
	    __atomic_exchange_n(&after_job_read, NULL, __ATOMIC_ACQ_REL))
		hook(after_job_read_arg);
}

void lock_state_files(void)
{
	pthread_mutex_lock(&state_files_lock);
}

void unlock_state_files(void)
{
	pthread_mutex_unlock(&state_files_lock);
}

static part_record_t **partitions;
static int partition_count;

void ctld_stubs_set_partitions(part_record_t **parts, int count)
{
	partitions = parts;
	partition_count = count;
}

static int has_job_id(void *job, void *key)
{
	return ((job_record_t *) job)->job_id == *(uint32_t *) key;
}

job_record_t *find_job_record(uint32_t job_id)
{
	return job_list ? list_find_first(job_list, has_job_id, &job_id) : NULL;
}

part_record_t *find_part_record(char *name)
{
	for (int i = 0; i < partition_count; i++)
		if (!xstrcmp(partitions[i]->name, name))
			return partitions[i];
	return NULL;
}

double calc_job_billable_tres(job_record_t *job_ptr, time_t start_time,
			      bool assoc_mgr_locked)
{
	return job_ptr ? (double) job_ptr->total_cpus : 0.0;
}

bool validate_operator(uid_t uid)
{
	return uid == 0;
}

#if HOST_SLURM_AT_LEAST(24, 5, 0)
/* From 24.05 the plugins read a job's partitions as squeue names them, and
 * charge a running job's QOS usage per account and per user: slurmctld's
 * functions, as slurm-26-05-3-1:src/slurmctld/partition_mgr.c and
 * src/slurmctld/acct_policy.c define them (find, else add). */
static int append_part_name(void *x, void *arg)
{
	char **names = arg;
	xstrfmtcat(*names, "%s%s", *names ? "," : "", ((part_record_t *) x)->name);
	return 0;
}

char *part_list_to_xstr(list_t *list)
{
	char *names = NULL;
	list_for_each(list, append_part_name, &names);
	return names;
}

static int used_limits_of_acct(void *x, void *key)
{
	return !xstrcmp(((slurmdb_used_limits_t *) x)->acct, key);
}

static int used_limits_of_user(void *x, void *key)
{
	return ((slurmdb_used_limits_t *) x)->uid == *(uint32_t *) key;
}

static slurmdb_used_limits_t *new_used_limits(list_t **list)
{
	slurmdb_used_limits_t *used = xmalloc(sizeof(*used));
	used->tres = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
	used->tres_run_secs = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
	list_append(*list, used);
	return used;
}

slurmdb_used_limits_t *acct_policy_get_acct_used_limits(list_t **list, char *acct)
{
	slurmdb_used_limits_t *used;
	if (!*list)
		*list = list_create(slurmdb_destroy_used_limits);
	if (!(used = list_find_first(*list, used_limits_of_acct, acct))) {
		used = new_used_limits(list);
		used->acct = xstrdup(acct);
	}
	return used;
}

slurmdb_used_limits_t *acct_policy_get_user_used_limits(list_t **list, uint32_t user_id)
{
	slurmdb_used_limits_t *used;
	if (!*list)
		*list = list_create(slurmdb_destroy_used_limits);
	if (!(used = list_find_first(*list, used_limits_of_user, &user_id))) {
		used = new_used_limits(list);
		used->uid = user_id;
	}
	return used;
}
#endif

void ctld_assoc_mgr_init_without_db(void)
{
	static uint16_t running_cache = RUNNING_CACHE_STATE_NOTRUNNING;
	assoc_init_args_t args;

	memset(&args, 0, sizeof(args));
	args.running_cache = &running_cache;
	args.cache_level = ASSOC_MGR_CACHE_ASSOC | ASSOC_MGR_CACHE_USER |
			   ASSOC_MGR_CACHE_QOS | ASSOC_MGR_CACHE_RES |
			   ASSOC_MGR_CACHE_TRES;
#if !HOST_SLURM_AT_LEAST(24, 11, 0) /* 24.11 reads slurm_conf's itself */
	args.state_save_location = &slurm_conf.state_save_location;
#endif
	(void) assoc_mgr_init(NULL, &args, SLURM_ERROR); /* no database */
}
