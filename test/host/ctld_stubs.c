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
 * program puts in job_list, and no partition exists. Locks are real
 * rwlocks in slurmctld's order, so that the plugins' own locking runs.
 */
#include "config.h"

#include <pthread.h>

#include "slurm/slurm.h"
#include "src/common/list.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

void *acct_db_conn = NULL;
uint16_t accounting_enforce = 0;
uint32_t cluster_cpus = 2;
List job_list = NULL;
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

void unlock_slurmctld(slurmctld_lock_t locks)
{
	for (int i = 4; i >= 0; i--) {
		if (level_of(locks, i) != NO_LOCK)
			pthread_rwlock_unlock(&ctld_locks[i]);
	}
}

void lock_state_files(void)
{
	pthread_mutex_lock(&state_files_lock);
}

void unlock_state_files(void)
{
	pthread_mutex_unlock(&state_files_lock);
}

job_record_t *find_job_record(uint32_t job_id)
{
	return NULL;
}

part_record_t *find_part_record(char *name)
{
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
