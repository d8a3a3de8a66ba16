/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What ctld_stubs.c offers besides slurmctld's own symbols: the partitions
 * find_part_record answers with (the caller keeps them alive).
 * find_job_record searches job_list.
 */
#ifndef FAIRWAY_TEST_HOST_CTLD_STUBS_H
#define FAIRWAY_TEST_HOST_CTLD_STUBS_H

#include "host_slurm.h"
#include "src/slurmctld/slurmctld.h"

void ctld_stubs_set_partitions(part_record_t **parts, int count);

/* hook(arg) runs once, on the first release of job R by a thread other
 * than the caller of this function, after the lock is released: a
 * plugin's decay pass between gathering its jobs and storing them. */
void ctld_stubs_after_job_read(void (*hook)(void *arg), void *arg);

/* assoc_mgr_init with no database connection and every cache level, as
 * slurmctld starts when slurmdbd is down; the caller then loads the state
 * files (load_assoc_mgr_last_tres, load_assoc_mgr_state, ...). Requires
 * slurm_conf read. */
void ctld_assoc_mgr_init_without_db(void);

#endif
