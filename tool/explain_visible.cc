// SPDX-License-Identifier: GPL-2.0-or-later
#include "explain_visible.h"

#include <cmath>

#include "fair_tree.h"
#include "ranged_tree.h"

namespace fairway {

namespace {

constexpr const char* kWhy =
    "PrivateData=usage: slurmctld sends only your own associations and those of the accounts "
    "you coordinate";

}  // namespace

int32_t FindVisibleAssoc(const client::ControllerState& state, uint32_t id) {
  for (size_t i = 0; i < state.assocs.size(); ++i) {
    if (state.assocs[i].node.id == id) return static_cast<int32_t>(i);
  }
  return -1;
}

bool ViewIsPartial(const client::ControllerState& state) {
  bool root = false;
  for (const client::ControllerAssoc& a : state.assocs) {
    if (a.node.parent_id == 0) {
      root = true;
    } else if (FindVisibleAssoc(state, a.node.parent_id) < 0) {
      return true;
    }
  }
  return !root;
}

VisibleFairshare ExplainVisibleFairshare(const client::ControllerState& state, int32_t assoc) {
  VisibleFairshare v;
  v.assoc = assoc;
  const client::ControllerAssoc& a = state.assocs[assoc];
  const Params& p = state.params;
  const FairshareMode mode = p.Mode();
  switch (mode) {
    case FairshareMode::kClassic:
    case FairshareMode::kDepthOblivious: {
      // A "parent" association takes its factor from its fs parent, the
      // first ancestor with shares of its own (the core's ComputeClassic,
      // after multifactor's _get_fairshare_priority); it must be visible.
      int32_t fs = assoc;
      for (size_t steps = 0; fs >= 0 && state.assocs[fs].node.uses_parent(); ++steps) {
        fs = steps < state.assocs.size()
                 ? FindVisibleAssoc(state, state.assocs[fs].node.parent_id)
                 : -1;  // a cycle
      }
      v.fs_assoc = fs;
      if (fs >= 0) {
        const client::ControllerAssoc& f = state.assocs[fs];
        v.factor = CalcFsFactor(f.usage_efctv, f.shares_norm, p.damp_factor);
        v.factor_recomputed = v.factor_known = true;
      }
      v.hidden = std::string("hidden: how UE follows from the parent's effective usage and the "
                             "siblings' usage and shares (") + kWhy +
                 "); UE and S are the controller's" +
                 (fs < 0 ? ", and the factor of this \"parent\" association's account" : "");
      return v;
    }
    case FairshareMode::kFairTree:
      v.fs_assoc = assoc;
      v.has_level = true;
      v.level = FairTreeLevelFs(a.shares_norm, a.usage_efctv, a.node.uses_parent(), a.node.is_user());
      v.controller_level = a.level_fs;
      v.hidden = std::string("hidden: the LevelFS of every other association, so the rank that "
                             "makes F = rank / users (") +
                 kWhy + "); F is the controller's";
      break;
    case FairshareMode::kRanged:
      v.fs_assoc = assoc;
      v.has_level = true;
      v.level = RangedLocalFactor(a.usage_efctv, a.shares_norm, p.damp_factor);
      v.controller_level = a.level_fs;
      v.hidden = std::string("hidden: the parent's slice [lo, hi] that F = hi - (1 - f) * (hi - lo) "
                             "scales f into (") +
                 kWhy + "); F is the controller's";
      break;
    case FairshareMode::kPlannedUse:
      v.fs_assoc = assoc;
      v.hidden = std::string("hidden: the planned rates and use of the accounts on the path, and "
                             "the ledger (") +
                 kWhy + "); F is the controller's";
      break;
  }
  if (v.has_level) {
    v.level_match = v.level == v.controller_level ||
                    std::fabs(static_cast<double>(v.level - v.controller_level)) <=
                        1e-6 * std::fmax(1.0, std::fabs(static_cast<double>(v.controller_level)));
  }
  // The plugin publishes users' factors in fs_factor in these modes
  // (accounts have none a job could get).
  if (a.node.is_user()) {
    v.factor = a.fs_factor;
    v.factor_known = true;
  }
  return v;
}

bool VisibleAssocPriorityNorm(const client::ControllerState& state, int32_t assoc, double* norm) {
  const uint32_t priority = state.assocs[assoc].node.priority;
  if (state.params.flags & kFlagNoNormalAssoc) {
    *norm = priority;  // unused by the core then: it takes the Priority itself
    return true;
  }
  if (priority == 0) {
    *norm = 0;
    return true;
  }
  return false;
}

}  // namespace fairway
