// SPDX-License-Identifier: GPL-2.0-or-later
// The two reference policies of the planned-use evaluation
// (fairshare-modes.md, "Reproducing the planned-use evaluation"):
//  linear_decay: u += r/W at job start (r in node-days, W the planned rate in
//                nodes), u decreases by 1 per day (continuously), floored at
//                0; priority -u.
//  exp_decay:    u = (1/W) * sum_m D^m s(n-m), s(k) the node-days charged in
//                interval k (Δt = Scenario::interval_s), n the open interval;
//                priority -u.
//  fifo:         every user priority 0 at all times: the simulator's tie
//                rule (earliest submission, then job order) alone decides,
//                i.e. first in, first out without backfill.
#ifndef FAIRWAY_SIM_BASELINE_POLICIES_H_
#define FAIRWAY_SIM_BASELINE_POLICIES_H_

#include <memory>

#include "policy.h"

namespace fairway::sim {

std::unique_ptr<Policy> MakeLinearDecayPolicy(const Scenario& scenario);
std::unique_ptr<Policy> MakeExpDecayPolicy(const Scenario& scenario);
std::unique_ptr<Policy> MakeFifoPolicy(const Scenario& scenario);

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_BASELINE_POLICIES_H_
