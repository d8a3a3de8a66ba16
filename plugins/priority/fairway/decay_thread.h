// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's periodic pass, in its own thread (named "fw_decay" so that it
// can be told from multifactor's "decay"). Every PriorityCalcPeriod it
// applies usage resets and decay, charges running jobs, recomputes
// fairshare for the whole tree and the priority of pending jobs, then saves
// the decay clock. Order and cadence follow priority/multifactor's
// _decay_thread (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#ifndef FAIRWAY_PLUGIN_DECAY_THREAD_H_
#define FAIRWAY_PLUGIN_DECAY_THREAD_H_

#include <cstddef>
#include <ctime>

#include "job_bridge.h"
#include "plugin_config.h"

namespace fairway::plugin {

// Starts the thread and returns once it has read the state file, so that
// LastDecayRan() is valid before any job ends.
void StartDecayThread();
// Wakes the thread, waits for its current pass to finish and joins it.
void StopDecayThread();
// The next pass re-reads the reset period and decay factor. Never waits:
// slurmctld calls it while holding its own locks.
void RequestReconfig();
// When the last pass ran (0 before the first), for job-end charging.
time_t LastDecayRan();

// One pass's fairshare: snapshot, compute, write back under assoc W.
void RecomputeFairshare();
// Requires: the job READ lock (ChargeJob without adjust_for_end writes
// nothing in a job, and job ends, which charge too, hold the WRITE lock);
// takes assoc W + QOS W per job. Charges every running job of jobs up to
// now; returns how many were charged.
size_t ChargeListedJobs(const JobPointers& jobs, time_t start_period, time_t now,
                        const PluginConfig& config);
// Takes the job WRITE lock: the site factor plugin's periodic update.
void UpdateSiteFactors();

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_DECAY_THREAD_H_
