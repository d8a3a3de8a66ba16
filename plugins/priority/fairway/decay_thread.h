// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's periodic pass, in its own thread (named "fw_decay" so that it
// can be told from multifactor's "decay"). Every PriorityCalcPeriod it
// applies usage resets and decay, charges running jobs, recomputes
// fairshare for the whole tree and the priority of pending jobs, then saves
// the decay clock. Order and cadence follow priority/multifactor (§3.2).
#ifndef FAIRWAY_PLUGIN_DECAY_THREAD_H_
#define FAIRWAY_PLUGIN_DECAY_THREAD_H_

#include <cstddef>
#include <ctime>

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
// Charges every running job up to now; returns how many were charged.
// Takes the locks itself (the caller holds none): the walk over every job
// record that finds the running ones runs under the job READ lock, only
// charging them takes the WRITE lock. update_site_factors: also run the
// site factor plugin's periodic update in that write lock.
size_t ChargeRunningJobs(time_t start_period, time_t now, bool update_site_factors);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_DECAY_THREAD_H_
