/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The differential test's pending jobs and partitions
 * (test/host/differential_host.c).
 *
 * diff_jobs_create: two partitions (p1, PriorityJobFactor 1; p2, 3, and
 * PriorityTier 2 above p1's 1 in odd seeds, equal in even ones) and,
 * for each user association of assoc_mgr in its list order, none or up to
 * three pending jobs, chosen by the seed alone (same seed, same jobs),
 * appended to `jobs`. Every job has accrued for 30 days (so the age
 * factor is 1 at any PriorityMaxAge up to that, whatever the clock), runs
 * in one partition with QOS normal or high, asks for 1-2 CPUs, 500-4000
 * MB and 30-600 minutes, may have a nice value, and starts with priority
 * 1 (0 is held); 15 % of the jobs of associations without a partition are
 * submitted to both partitions (from 24.11 their list sorted by
 * PriorityTier, as slurmctld builds it), and from 24.11 15 % of all jobs
 * ask for QOS normal and high (one priority per partition and QOS). Call
 * with assoc_mgr loaded, holding no lock.
 *
 * diff_jobs_dump: what sprio shows: priority_g_get_priority_factors_list
 * for uid 0, one line per (job, partition) sorted by job id then
 * partition (and QOS): job|JOBID|PARTITION|QOSNAME|USER|PRIORITY|SITE|AGE|
 * ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|NICE|TRES|PRIORITIES, QOSNAME the
 * row's QOS from 23.02 (blank before), factors normalised by their
 * weights and printed as `sprio -n` prints them ("%.7f"; TRES as
 * name=factor for each weighted TRES), PRIORITY the job record's (as
 * squeue -o %Q), PRIORITIES a multi-partition or multi-QOS job's
 * priority array as partition=priority (partition/qos=priority for a
 * multi-QOS job), partition-major in its lists' order (squeue's
 * per-partition rows).
 */
#ifndef FAIRWAY_TEST_HOST_DIFF_JOBS_H
#define FAIRWAY_TEST_HOST_DIFF_JOBS_H

#include <stdint.h>

#include "host_slurm.h"
#include "src/slurmctld/slurmctld.h"

void diff_jobs_create(uint64_t seed, list_t *jobs);
/* One pending job as diff_jobs_create makes them (1000 MB, 60 minutes,
 * accrued 30 days ago), not in any list. */
job_record_t *diff_jobs_new(uint32_t id, slurmdb_assoc_rec_t *assoc, slurmdb_qos_rec_t *qos,
			    part_record_t *part, uint32_t cpus, int nice);
void diff_jobs_dump(void);

#endif
