// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway whatif`: the live queue re-ranked under a change of settings,
// shares, usage or time, recomputed with the core as `fairway explain`
// recomputes (ExplainJob). Pure: the controller's state comes in (the
// command reads it through tool/slurmctld/rpc_client), so it is
// unit-tested.
#ifndef FAIRWAY_TOOL_WHATIF_MODEL_H_
#define FAIRWAY_TOOL_WHATIF_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "explain_model.h"

namespace fairway {

struct WhatIfChanges {
  // slurm.conf lines NAME=VALUE: PriorityWeight*, PriorityWeightTRES,
  // PriorityFlags, PriorityParameters, PriorityMaxAge, PriorityFavorSmall,
  // FairShareDampeningFactor.
  std::vector<std::string> settings;
  // ACCOUNT[,USER]=N or =parent.
  std::vector<std::string> shares;
  // ACCOUNT[,USER]=+X or -X core-hours (billing-seconds X * 3600: one
  // billing unit per CPU), optionally written +Xcpu-h.
  std::vector<std::string> usage;
  int64_t age_shift_s = 0;  // --age +2h
};

// Whether the controller sent a partial view of the tree (PrivateData=usage
// and a requester who is neither operator nor coordinator of it all):
// BuildExplainModel then sets ExplainModel::partial.
bool WhatIfViewIsPartial(const client::ControllerState& state);

// Applies changes to a copy of the controller's state. False with *error
// naming the change and why (an unknown association, a setting whatif does
// not take, a bad value). slurm_version: the release whose slurm.conf
// reader reads the settings. In a partial view (WhatIfViewIsPartial) the
// rules are explain's (explain_visible.h): only what the visible rows and
// sprio's factors determine may change. Refused, naming what is hidden:
// --shares and --usage (of a hidden association: "no association ... you
// can see"; of a visible one: fairshare moves through hidden rows); a
// change of the fairshare mode, of PriorityParameters, of
// FairShareDampeningFactor, of NO_NORMAL_ASSOC; PriorityWeightFairshare or
// PriorityWeightAssoc raised from 0. Weights, other flags, PriorityMaxAge,
// PriorityFavorSmall and --age are taken.
bool ApplyWhatIf(const client::ControllerState& state, const WhatIfChanges& changes,
                 uint32_t slurm_version, client::ControllerState* changed, std::string* error);

// One pending job in both rankings. Rank 1 is first; ties in priority go
// to the lower job id. A job's priority is its best partition's (and QOS').
struct WhatIfJob {
  uint32_t job_id = 0;
  uint32_t assoc_id = 0;
  std::string account, user;
  uint32_t before = 0, after = 0;
  size_t rank_before = 0, rank_after = 0;
};

struct WhatIfAssoc {
  std::string account, user;  // user empty: an account
  // The job fairshare factor; in a partial view NaN where hidden.
  double fs_before = 0, fs_after = 0;
  // The rank of its first pending job (an account's: of its subtree's); 0: none.
  size_t first_before = 0, first_after = 0;
};

struct WhatIfResult {
  bool baseline_matches = true;  // the recomputation equals the controller
  std::vector<std::string> baseline_mismatches;  // "job 12 (p1): ..."
  std::vector<WhatIfJob> jobs;   // in the old order
  double spearman = 1;           // rank correlation of the two orders
  size_t moved = 0;              // jobs whose rank changed
  std::vector<WhatIfAssoc> users, accounts;  // in the tree's order
};

// Both rankings of the pending jobs (held ones, priority 0, aside) at now.
// In a partial view (before.partial) the jobs are those the controller
// listed to the requester (all under PrivateData=usage alone; their own
// under PrivateData=jobs), each recomputed as explain does (hidden factors
// are sprio's); users and accounts are the visible associations only, with
// the factor explain shows for each.
WhatIfResult RunWhatIf(const ExplainModel& before, const ExplainModel& after,
                       const std::vector<client::ControllerJob>& jobs,
                       const std::vector<client::ControllerFactors>& factors, int64_t now,
                       int64_t age_shift_s);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_WHATIF_MODEL_H_
