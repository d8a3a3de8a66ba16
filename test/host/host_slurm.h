/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Slurm headers the test hosts (differential_host, no_accounting_host)
 * need, for every release from 22.05 to the 26.11 pre-release, and the
 * spellings that changed between them, as the plugin's own fw_plugin.h
 * handles them. Each difference is an #if on HOST_SLURM_AT_LEAST here or
 * at its one use.
 */
#ifndef FAIRWAY_TEST_HOST_HOST_SLURM_H
#define FAIRWAY_TEST_HOST_HOST_SLURM_H

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"

#define HOST_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#if HOST_SLURM_AT_LEAST(23, 2, 0) /* plugin interfaces moved to src/interfaces */
#include "src/interfaces/priority.h"
#else
#include "src/common/slurm_priority.h"
#endif

#if !HOST_SLURM_AT_LEAST(23, 2, 0)
/* 22.05's spellings of what 23.02 and later name list_t, list_itr_t and
 * (job->prio_factors, sprio's factors) priority_factors_t. */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef priority_factors_object_t priority_factors_t;
typedef struct job_details job_details_t;
#endif

/* A multi-partition job's priorities (and, 24.11 and later, a multi-QOS
 * job's), indexed partition-major like part_ptr_list: job->priority_array
 * to 23.11; from 24.05 in a struct that also names the partitions,
 * job->part_prio (24.05, 24.11.0-.6, 25.05.0) or job->prio_mult (24.11.7,
 * 25.05.1 and later). As the plugin's job_gather.h. */
#if HOST_SLURM_AT_LEAST(24, 5, 0)
#if (HOST_SLURM_AT_LEAST(24, 11, 7) && !HOST_SLURM_AT_LEAST(25, 5, 0)) || \
	HOST_SLURM_AT_LEAST(25, 5, 1)
#define HOST_PRIO_ARRAY(job) ((job)->prio_mult ? (job)->prio_mult->priority_array : NULL)
#else
#define HOST_PRIO_ARRAY(job) ((job)->part_prio ? (job)->part_prio->priority_array : NULL)
#endif
#else
#define HOST_PRIO_ARRAY(job) ((job)->priority_array)
#endif

/* sprio's row: its factors (22.05: the row itself) and its job id (26.05:
 * in step_id). */
#if HOST_SLURM_AT_LEAST(23, 2, 0)
#define HOST_ROW_FACTORS(o) ((o)->prio_factors)
#else
#define HOST_ROW_FACTORS(o) (o)
#endif
#if HOST_SLURM_AT_LEAST(26, 5, 0)
#define HOST_ROW_JOB_ID(o) ((o)->step_id.job_id)
#else
#define HOST_ROW_JOB_ID(o) ((o)->job_id)
#endif

#endif
