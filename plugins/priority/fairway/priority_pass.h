// SPDX-License-Identifier: GPL-2.0-or-later
// The periodic recomputation of job priorities, built to keep the job write
// lock short: inputs are gathered and priorities computed under the job
// READ lock (queries still run); under the job WRITE lock only the jobs
// whose priority changed are stored, each after a check that the job is
// unchanged (a changed job is recomputed on the spot), a slice of them per
// hold of the lock. The factors sprio shows for the other jobs are the
// pass's own table, published with the last slice, so a pass does not
// rewrite every job's prio_factors.
#ifndef FAIRWAY_PLUGIN_PRIORITY_PASS_H_
#define FAIRWAY_PLUGIN_PRIORITY_PASS_H_

#include <ctime>
#include <functional>

#include "job_bridge.h"
#include "slurm_api.h"

namespace fairway::plugin {

// Called under the job READ lock (and the partition READ lock), with no
// association lock held, with every job record in job_list order, before
// the priorities are gathered: the decay thread charges the running jobs
// and recomputes fairshare there, so that one walk over the job list, and
// one hold of the lock, serves the whole pass.
using BeforeGather = std::function<void(const JobPointers& jobs)>;

// Takes the locks itself; the caller holds none. Only one thread at a time
// may call it (it keeps its table between passes): the decay thread, or
// init() when there is no decay thread (no slurmdbd). before_gather, when
// given, is called once, even when there is no job list.
void RunPriorityPass(time_t now, const BeforeGather& before_gather = nullptr);

// Requires: the job READ lock. The factors the last pass computed for the
// job, unless newer ones were stored since (priority_p_set, or the pass
// recomputed the job); false when the pass did not cover the job, and sprio
// then reads job->prio_factors (and computes the TRES factors, which are
// not kept there). out's pointers live until the lock is released.
bool LastPassFactors(const job_record_t* job, StoredFactors* out);

// Requires: the job WRITE lock. priority_p_set stored new factors for the
// job: the last pass's (and those of a pass under way) are no longer its.
void ForgetLastPassFactors(uint32_t job_id);

// Frees the buffers kept between passes (plugin fini).
void ReleasePriorityPassBuffers();

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_PRIORITY_PASS_H_
