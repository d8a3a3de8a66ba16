// SPDX-License-Identifier: GPL-2.0-or-later
// Billable TRES of an allocation, as assoc_mgr_tres_weighted computes it from
// a partition's TRESBillingWeights: the weighted sum, or with
// PriorityFlags=MAX_TRES the largest of the node-level TRES (cpu, mem, node,
// each gres) plus the sum of the others. The billing TRES itself is skipped.
#ifndef FAIRWAY_BILLING_H_
#define FAIRWAY_BILLING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace fairway {

struct TresType {
  std::string type;  // "cpu", "mem", "energy", "node", "billing", "gres", ...
  std::string name;  // e.g. "gpu" for gres/gpu; empty otherwise
};

// counts and weights are in the order of tres; empty weights = bill the CPU
// count (Slurm's default). NO_CONSUME counts are skipped.
double BillableTres(const std::vector<TresType>& tres, const std::vector<uint64_t>& counts,
                    const std::vector<double>& weights, bool max_tres);

}  // namespace fairway

#endif  // FAIRWAY_BILLING_H_
