// SPDX-License-Identifier: GPL-2.0-or-later
// Rebuilding decayed usage from job history, for a controller that lost its
// usage state (or PriorityParameters=usage_bootstrap=force): each job
// contributes billing x the decayed integral of its run time, as if it had
// been charged continuously; the planned-use ledger is rebuilt from the
// same jobs. Pure; the plugin fetches the jobs from slurmdbd and
// `fairway usage audit` from the database.
#ifndef FAIRWAY_USAGE_BOOTSTRAP_H_
#define FAIRWAY_USAGE_BOOTSTRAP_H_

#include <cstdint>
#include <map>
#include <vector>

#include "assoc_tree.h"
#include "planned_use.h"

namespace fairway {

struct JobUsageRecord {
  uint32_t assoc_id = 0;
  int64_t start = 0;   // 0 = never started
  int64_t end = 0;     // 0 = still running (counts up to now)
  double billing = 0;  // billing units (billable TRES) of the allocation
};

// Decayed billing-seconds of one job as seen at `now`:
// billing * integral over [start, min(end, now)] of f^(now - t) dt, with f
// Slurm's per-second decay factor (1 - 0.693/half-life); billing x elapsed
// without decay. 0 for jobs that never ran.
long double DecayedJobUsage(const JobUsageRecord& job, int64_t now, double decay_per_second);

// Per association id: the decayed usage of its own jobs (not yet summed up
// the tree).
std::map<uint32_t, long double> DecayedUsageByAssoc(const std::vector<JobUsageRecord>& jobs,
                                                    int64_t now, double decay_per_second);

// Subtree sums: each association's own usage added to every ancestor,
// in the tree's node order.
std::vector<long double> SubtreeUsage(const AssocTree& tree,
                                      const std::map<uint32_t, long double>& own_usage);

// One job's billing x [start, end) charged into a ledger entry whose open
// interval is `current` (floor(time / interval_s)), as charge-as-you-go
// would have: the part in interval k >= current to the open interval, the
// part in a closed interval k to the history, decayed by D^(current-1-k).
void ChargeIntervals(int64_t start, int64_t end, double billing, int64_t current,
                     int64_t interval_s, double per_interval_decay, PlannedUseEntry* entry);

// The planned-use ledger the jobs would have produced with charge-as-you-go:
// each job's billing-seconds split over the intervals it ran in, closed
// intervals decayed by D per interval, charged to its association and every
// ancestor.
PlannedUseLedger LedgerFromJobs(const AssocTree& tree, const std::vector<JobUsageRecord>& jobs,
                                int64_t now, int64_t interval_s, double per_interval_decay);

}  // namespace fairway

#endif  // FAIRWAY_USAGE_BOOTSTRAP_H_
