// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway explain` on a partial view of the association tree. Under
// PrivateData=usage slurmctld sends a user who is neither an operator nor a
// coordinator only their own user associations (with a coordinator's, also
// those of the accounts they coordinate), never the root, the siblings or
// other users' usage (slurm-22-05-8-1:src/common/assoc_mgr.c,
// assoc_mgr_info_get_pack_msg; sshare's assoc_mgr_get_shares filters the
// same way). The tree cannot be rebuilt from such a view, so this file
// explains, with the core's per-association formulas, the part of the
// fairshare computation that uses only the rows the user can see, and names
// the rest. Pure: no RPC, unit-testable.
#ifndef FAIRWAY_TOOL_EXPLAIN_VISIBLE_H_
#define FAIRWAY_TOOL_EXPLAIN_VISIBLE_H_

#include <cstdint>
#include <string>

#include "fairshare.h"
#include "slurmctld/rpc_client.h"

namespace fairway {

// True when the controller sent an incomplete tree: no root association, or
// an association whose parent is not in the list. A full view (operators,
// root, SlurmUser, or no PrivateData=usage) always has both.
bool ViewIsPartial(const client::ControllerState& state);

// Index in state.assocs of the association with this id, or -1.
int32_t FindVisibleAssoc(const client::ControllerState& state, uint32_t id);

// The fairshare of one visible association, as far as visible rows allow.
struct VisibleFairshare {
  int32_t assoc = -1;            // index in state.assocs
  int32_t fs_assoc = -1;         // the association whose values give the factor
                                 // (a "parent" user's fs parent); -1 = hidden
  // The fairshare factor a job of the association gets.
  bool factor_recomputed = false;  // from visible values by the core's formula
  double factor = 0;               // recomputed; or the controller's when known
  bool factor_known = false;       // factor holds a value (recomputed or controller's)
  // Fair Tree: LevelFS = S/U; ranged: the local f = 2^(-U/(S*d)). Recomputed
  // from the association's own S and U, next to the controller's value.
  bool has_level = false;
  long double level = kNoValLd;
  long double controller_level = kNoValLd;
  bool level_match = true;
  // One line: what PrivateData=usage hides in this mode and why it matters.
  std::string hidden;
};

// Requires assoc to index state.assocs. Classic and depth-oblivious: F =
// 2^(-UE/S/d) from the controller's UE and S (the derivation of UE needs
// the parent's UE and the siblings' shares: hidden). Fair Tree: LevelFS
// recomputed, F (a rank among all users) is the controller's. Ranged: f
// recomputed, F (within the parent's slice) the controller's. Planned use:
// the controller's F.
VisibleFairshare ExplainVisibleFairshare(const client::ControllerState& state, int32_t assoc);

// The association factor's input when the tree is hidden: the association's
// Priority divided by the largest Priority of all associations, which is
// hidden unless the association's own Priority is 0 or NO_NORMAL_ASSOC is
// set. Returns false when the value cannot be had from visible data.
bool VisibleAssocPriorityNorm(const client::ControllerState& state, int32_t assoc, double* norm);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_EXPLAIN_VISIBLE_H_
