// SPDX-License-Identifier: GPL-2.0-or-later
// The simulator's Fairway policies: fair_tree, classic, ranged and
// planned_use, computed by the core library itself (ComputeFairshare, the
// one entry point, given the policy's PlannedUseLedger) on an association
// tree built from the scenario. Usage is charged at job start
// (requested nodes x billing_per_node x duration, billing-seconds); for
// fair_tree/classic/ranged it decays as Slurm decays it (DecayOver with the
// scenario's half-life), for planned_use it goes into the ledger
// (planned_use_charge=start). Priority = the user's job factor, or
// PriorityFromSum(weight_fairshare x factor) when weight_fairshare > 0.
#ifndef FAIRWAY_SIM_FAIRWAY_POLICY_H_
#define FAIRWAY_SIM_FAIRWAY_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "../assoc_tree.h"
#include "../params.h"
#include "policy.h"

namespace fairway::sim {

// The scenario's association tree: root (id 1), accounts (declared or
// implied by users; an implied account gets the sum of its users' shares),
// then users. *user_assoc[i] is the index of Scenario::users[i].
bool BuildScenarioTree(const Scenario& scenario, bool fair_tree_shares, AssocTree* tree,
                       std::vector<int32_t>* user_assoc, std::string* error);

// nullptr with *error when the tree cannot be built.
std::unique_ptr<Policy> MakeFairwayPolicy(FairshareMode mode, const Scenario& scenario,
                                          std::string* error);

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_FAIRWAY_POLICY_H_
