/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_find.c: the pass's table and its lock, and job_list's records found
 * for a pass. */
#ifndef FAIRWAY_PLUGIN_JOB_FIND_H_
#define FAIRWAY_PLUGIN_JOB_FIND_H_

#include <stdbool.h>
#include <stddef.h>

#include "api/fairway_api.h"
#include "locks.h"

/* The pass's table, created on first use (any thread: sprio may ask
 * first); never NULL. */
fw_pass_t *fw_jobs_pass(void);
/* The pass table's lock: the gather writes the table sprio reads while
 * sprio reads it, both under job R. Taken last, after every Slurm lock;
 * nothing is taken while it is held. The gather holds it for a few hundred
 * jobs at a time; sprio for one job's factors (fw_pass_factors and the
 * copy of what it points to). */
void fw_jobs_table_lock(void);
void fw_jobs_table_unlock(void);
/* Requires job R. Finds job_list's records (by id, or by walking the list);
 * returns whether it walked (false without a job list: no records). The
 * records are valid while job R is held. Only the decay thread (or init
 * without one) calls it. */
bool fw_jobs_find(fw_held_t *held, fw_pass_t *pass);
/* At fini, with the decay thread stopped: frees the pass's table and the
 * find's arrays. */
void fw_jobs_release(void);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
/* Grows an xmalloc array of size entries (contents kept) to hold want. */
#define FW_GROW(array, size, want) \
	do { \
		if ((size_t) (want) > (size)) { \
			(size) = MAX((size_t) (want), 2 * (size)); \
			xrecalloc(array, size, sizeof(*(array))); \
		} \
	} while (0)

/* Requires job R. job_list's records in list order into *records, an
 * xmalloc array of *size entries grown as needed (xfree it). Returns the
 * count. */
size_t fw_jobs_walk(fw_held_t *held, job_record_t ***records, size_t *size);
/* Requires job R in the hold of fw_jobs_find (or, for addresses to
 * prefetch only, the store after it). job_list's records as fw_jobs_find
 * found them, in list order, with their ids; returns the count. */
size_t fw_jobs_found(const fw_pass_t *pass, job_record_t *const **records,
		     const uint32_t **ids);
#endif

#endif /* FAIRWAY_PLUGIN_JOB_FIND_H_ */
