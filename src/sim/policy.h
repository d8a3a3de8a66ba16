// SPDX-License-Identifier: GPL-2.0-or-later
// A scheduling policy of the simulator: keeps each user's usage state and
// turns it into a priority per user (higher = starts first). The simulator
// advances time, charges jobs at their start and asks for priorities
// whenever nodes are free (doc/simulate.md). Not thread-safe; one per run.
#ifndef FAIRWAY_SIM_POLICY_H_
#define FAIRWAY_SIM_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scenario.h"

namespace fairway::sim {

class Policy {
 public:
  virtual ~Policy() = default;
  // Brings decay and interval state to `now` (seconds; never decreases).
  virtual void AdvanceTo(int64_t now) = 0;
  // A job of `user` (index into Scenario::users) starts at the current time,
  // asking for `nodes` nodes for `duration_s`: charge it.
  virtual void ChargeStart(int user, uint32_t nodes, int64_t duration_s) = 0;
  // One priority per user at the current time; higher is better.
  virtual void Priorities(std::vector<double>* priority) = 0;
};

// The policy names the simulator knows, in their canonical order:
// linear_decay, exp_decay, fair_tree, classic, ranged, planned_use, fifo
// (every job the same priority: the simulator's tie rule, earliest
// submission first, decides alone).
const std::vector<std::string>& PolicyNames();

// nullptr with *error for an unknown name or an unusable scenario.
std::unique_ptr<Policy> MakePolicy(const std::string& name, const Scenario& scenario,
                                   std::string* error);

// Each user's planned rate W in nodes: its normalised share of the whole
// machine (product of share fractions down the account tree) x nodes.
std::vector<double> PlannedRatesNodes(const Scenario& scenario);

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_POLICY_H_
