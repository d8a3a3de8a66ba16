/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The boundary test (differential_host's `boundary` case): the plugin's
 * decay pass against its own single-job path, on the generated jobs and
 * on jobs of the kinds a controller holds besides (issue 46, item 4).
 *
 * diff_boundary_add_jobs: appends to `jobs`, after diff_jobs_create's,
 * jobs whose handling is the boundary's own: held (priority 0), a job
 * array's tasks, an operator-set priority (direct_set_prio), a running
 * job. Call with assoc_mgr loaded, holding no lock.
 *
 * diff_boundary_arm: installs a hook (ctld_stubs.h) that runs once, on
 * the plugin's decay thread, when it releases job R after gathering the
 * pass's jobs and before it takes job W to store them. The hook takes
 * job W and part W, as slurmctld's RPCs do, and changes jobs chosen by
 * the seed: a nice value, a QOS, a partition and an association, each
 * ending in priority_g_set as _update_job does; a priority and nice value
 * written directly, as `scontrol top` does; and p2's PriorityTier (which
 * reorders multi-partition jobs: from 24.11 their lists are re-sorted, as
 * update_part does). It records, per changed job, that the store had not
 * yet run (job->priority still the submitted 1).
 *
 * diff_boundary_check: after the pass, under job W and part R (as
 * slurmctld calls priority_g_set), for every pending job that is not held:
 * what the pass stored (job->priority, the priority array, every factor of
 * job->prio_factors, doubles printed exactly with %a) must equal what
 * priority_g_set computes for the job now, the plugin's single-job path
 * (priority_p_set: the core's fw_job_priority on one job). A held job
 * must still have priority 0 and the running job its own. Prints one line
 * per difference and a summary; returns the number of failures (the hook
 * not having run between gather and store counts as one).
 */
#ifndef FAIRWAY_TEST_HOST_DIFF_BOUNDARY_H
#define FAIRWAY_TEST_HOST_DIFF_BOUNDARY_H

#include <stdint.h>

#include "host_slurm.h"

void diff_boundary_add_jobs(uint64_t seed, list_t *jobs);
void diff_boundary_arm(uint64_t seed);
int diff_boundary_check(void);

#endif
