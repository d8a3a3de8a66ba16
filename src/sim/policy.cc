// SPDX-License-Identifier: GPL-2.0-or-later
#include "policy.h"

#include "baseline_policies.h"
#include "fairway_policy.h"

namespace fairway::sim {

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> names = {"linear_decay", "exp_decay", "fair_tree",
                                                  "classic",      "ranged",    "planned_use",
                                                  "fifo"};
  return names;
}

std::unique_ptr<Policy> MakePolicy(const std::string& name, const Scenario& scenario,
                                   std::string* error) {
  if (name == "linear_decay") return MakeLinearDecayPolicy(scenario);
  if (name == "exp_decay") return MakeExpDecayPolicy(scenario);
  if (name == "fair_tree") return MakeFairwayPolicy(FairshareMode::kFairTree, scenario, error);
  if (name == "classic") return MakeFairwayPolicy(FairshareMode::kClassic, scenario, error);
  if (name == "ranged") return MakeFairwayPolicy(FairshareMode::kRanged, scenario, error);
  if (name == "planned_use") return MakeFairwayPolicy(FairshareMode::kPlannedUse, scenario, error);
  if (name == "fifo") return MakeFifoPolicy(scenario);
  *error = "unknown policy '" + name + "' (linear_decay, exp_decay, fair_tree, classic, ranged, planned_use, fifo)";
  return nullptr;
}

std::vector<double> PlannedRatesNodes(const Scenario& scenario) {
  AssocTree tree;
  std::vector<int32_t> user_assoc;
  std::string error;
  std::vector<double> rates(scenario.users.size(), 0.0);
  // Classic normalisation: shares_norm is the share of the whole machine.
  if (!BuildScenarioTree(scenario, false, &tree, &user_assoc, &error)) return rates;
  for (size_t i = 0; i < rates.size(); ++i) {
    rates[i] = tree.links(user_assoc[i]).shares_norm * scenario.nodes;
  }
  return rates;
}

}  // namespace fairway::sim
