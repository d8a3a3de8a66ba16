// SPDX-License-Identifier: GPL-2.0-or-later
// The periodic recomputation of job priorities, built to keep the job write
// lock short: inputs are gathered under the job READ lock (queries still
// run), priorities are computed with no lock at all, and the results are
// stored under the job WRITE lock in one pass that only checks each job is
// unchanged (a changed job is recomputed on the spot).
#ifndef FAIRWAY_PLUGIN_PRIORITY_PASS_H_
#define FAIRWAY_PLUGIN_PRIORITY_PASS_H_

#include <ctime>

namespace fairway::plugin {

// Takes the locks itself; the caller holds none. Only one thread at a time
// may call it (its buffers are reused between passes): the decay thread, or
// init() when there is no decay thread (no slurmdbd).
void RunPriorityPass(time_t now);

// Frees the buffers kept between passes (plugin fini).
void ReleasePriorityPassBuffers();

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_PRIORITY_PASS_H_
