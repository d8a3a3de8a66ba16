// SPDX-License-Identifier: GPL-2.0-or-later
// The association tree as the fairshare code sees it: a flat array of
// associations (accounts and users) in the order Slurm's association manager
// lists them, linked to direct and fairshare parents. Usage is in
// billing-seconds (decayed), shares are raw Fairshare counts.
// Built once per snapshot; read-only afterwards, so any thread may read it.
#ifndef FAIRWAY_ASSOC_TREE_H_
#define FAIRWAY_ASSOC_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "slurm_values.h"

namespace fairway {

struct AssocNode {
  uint32_t id = 0;
  uint32_t parent_id = 0;      // 0 for the root association
  std::string acct;
  std::string user;            // empty for an account association
  std::string partition;
  uint32_t shares_raw = 1;     // Fairshare; kSharesUseParent = "parent"
  long double usage_raw = 0;   // decayed billing-seconds of the whole subtree
  uint32_t priority = 0;       // association Priority (0 = unset)

  bool is_user() const { return !user.empty(); }
  bool uses_parent() const { return shares_raw == kSharesUseParent; }
  // The display name: the user for user associations, else the account.
  const std::string& name() const { return is_user() ? user : acct; }
};

// Links and normalised shares, derived as slurmctld's association manager
// derives them (assoc_mgr_normalize_assoc_shares in
// slurm-22-05-8-1:src/common/assoc_mgr.c).
struct AssocLinks {
  int32_t parent = -1;     // direct parent index; -1 for root and orphans
  int32_t fs_parent = -1;  // first ancestor whose shares are not "parent"
  uint32_t level_shares = kNoVal;  // sum of shares among fs siblings
  double shares_norm = 0;          // mode-dependent (see NormalizeShares)
  double priority_norm = 0;        // priority / max association priority
};

// Normalised shares an association manager already computed, per node:
// AssocTree::Build then takes them instead of deriving its own.
struct ShareNormalization {
  uint32_t level_shares = kNoVal;
  double shares_norm = 0;
  double priority_norm = 0;
};

class AssocTree {
 public:
  // Nodes in association-manager order; exactly one node must have
  // parent_id 0 (the root). A node whose parent is missing is kept as an
  // orphan: counted among users (as Slurm counts it) but never ranked.
  // Returns false and sets *error on a duplicate id or a missing root.
  // given, when not null, holds one normalisation per node (slurmctld's
  // association manager's, so that the plugin uses exactly its numbers):
  // the shares are then taken from it, not derived (fair_tree_shares is
  // not read).
  bool Build(std::vector<AssocNode> nodes, bool fair_tree_shares, std::string* error,
             const std::vector<ShareNormalization>* given = nullptr);

  const std::vector<AssocNode>& nodes() const { return nodes_; }
  const AssocNode& node(int32_t i) const { return nodes_[i]; }
  const AssocLinks& links(int32_t i) const { return links_[i]; }
  size_t size() const { return nodes_.size(); }
  int32_t root() const { return root_; }
  // Fairshare children (Slurm's children_list) in list order: a "parent"
  // account's children are listed under its fs parent, after it.
  const std::vector<int32_t>& fs_children(int32_t i) const { return fs_children_[i]; }
  // Number of user associations, orphans included (g_user_assoc_count).
  uint32_t user_assoc_count() const { return user_assoc_count_; }
  // Index of the association with this id, or -1.
  int32_t Find(uint32_t id) const;
  // Changes one association's usage (e.g. between passes) without rebuilding.
  void set_usage_raw(int32_t i, long double usage) { nodes_[i].usage_raw = usage; }

 private:
  void NormalizeShares(bool fair_tree_shares);
  void DetachCycles();

  std::vector<AssocNode> nodes_;
  std::vector<AssocLinks> links_;
  std::vector<std::vector<int32_t>> fs_children_;
  std::vector<std::pair<uint32_t, int32_t>> index_by_id_;  // sorted by id
  int32_t root_ = -1;
  uint32_t user_assoc_count_ = 0;
};

}  // namespace fairway

#endif  // FAIRWAY_ASSOC_TREE_H_
