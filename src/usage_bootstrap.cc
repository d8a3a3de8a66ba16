// SPDX-License-Identifier: GPL-2.0-or-later
#include "usage_bootstrap.h"

#include <algorithm>
#include <cmath>

namespace fairway {

long double DecayedJobUsage(const JobUsageRecord& job, int64_t now, double decay_per_second) {
  if (!job.start || job.billing <= 0 || !std::isfinite(job.billing)) return 0;
  int64_t end = job.end ? std::min(job.end, now) : now;
  if (end <= job.start) return 0;
  const long double billing = job.billing;
  if (decay_per_second >= 1.0 || decay_per_second <= 0.0) {
    return billing * static_cast<long double>(end - job.start);
  }
  // integral_s^e f^(now - t) dt = (f^(now - e) - f^(now - s)) / ln f ... with
  // ln f < 0, i.e. (f^(now-e) - f^(now-s)) / (-ln f) taken positive.
  const long double ln_f = std::log(static_cast<long double>(decay_per_second));
  const long double near = std::pow(static_cast<long double>(decay_per_second),
                                    static_cast<long double>(now - end));
  const long double far = std::pow(static_cast<long double>(decay_per_second),
                                   static_cast<long double>(now - job.start));
  return billing * (near - far) / -ln_f;
}

std::map<uint32_t, long double> DecayedUsageByAssoc(const std::vector<JobUsageRecord>& jobs,
                                                    int64_t now, double decay_per_second) {
  std::map<uint32_t, long double> usage;
  for (const JobUsageRecord& job : jobs) {
    long double u = DecayedJobUsage(job, now, decay_per_second);
    if (u > 0) usage[job.assoc_id] += u;
  }
  return usage;
}

std::vector<long double> SubtreeUsage(const AssocTree& tree,
                                      const std::map<uint32_t, long double>& own_usage) {
  std::vector<long double> sums(tree.size(), 0);
  for (const auto& [id, usage] : own_usage) {
    int32_t i = tree.Find(id);
    for (int32_t steps = 0; i >= 0 && steps <= static_cast<int32_t>(tree.size()); ++steps) {
      sums[i] += usage;
      if (i == tree.root()) break;
      i = tree.links(i).parent;
    }
  }
  return sums;
}

void ChargeIntervals(int64_t start, int64_t end, double billing, int64_t current,
                     int64_t interval_s, double per_interval_decay, PlannedUseEntry* entry) {
  if (interval_s <= 0 || !start || billing <= 0 || !std::isfinite(billing)) return;
  for (int64_t t = start; t < end;) {
    const int64_t k = t / interval_s;
    const int64_t boundary = std::min(end, (k + 1) * interval_s);
    const long double amount = static_cast<long double>(billing) * (boundary - t);
    if (k >= current) {
      entry->open += amount;
    } else {
      // Closed interval k weighs D^(current - 1 - k) in H.
      entry->history += amount * std::pow(static_cast<long double>(per_interval_decay),
                                          static_cast<long double>(current - 1 - k));
    }
    t = boundary;
  }
}

PlannedUseLedger LedgerFromJobs(const AssocTree& tree, const std::vector<JobUsageRecord>& jobs,
                                int64_t now, int64_t interval_s, double per_interval_decay) {
  PlannedUseLedger ledger;
  if (interval_s <= 0) return ledger;
  const int64_t current = now / interval_s;
  // Per association: its jobs charged interval by interval.
  std::map<uint32_t, PlannedUseEntry> charged;
  for (const JobUsageRecord& job : jobs) {
    if (!job.start || job.billing <= 0 || !std::isfinite(job.billing)) continue;
    const int64_t end = job.end ? std::min(job.end, now) : now;
    ChargeIntervals(job.start, end, job.billing, current, interval_s, per_interval_decay,
                    &charged[job.assoc_id]);
  }
  ledger.interval_index = current;
  for (const auto& [assoc_id, entry] : charged) {
    // Charge the association and every ancestor, as ChargePath does.
    int32_t i = tree.Find(assoc_id);
    if (i < 0) {
      PlannedUseEntry& e = ledger.entries[assoc_id];
      e.history += entry.history;
      e.open += entry.open;
      continue;
    }
    for (int32_t steps = 0; i >= 0 && steps <= static_cast<int32_t>(tree.size()); ++steps) {
      PlannedUseEntry& e = ledger.entries[tree.node(i).id];
      e.history += entry.history;
      e.open += entry.open;
      if (i == tree.root()) break;
      i = tree.links(i).parent;
    }
  }
  return ledger;
}

}  // namespace fairway
