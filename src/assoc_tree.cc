// SPDX-License-Identifier: GPL-2.0-or-later
// Tree linking and share normalisation, as assoc_mgr does it in 22.05
// (_set_assoc_parent_and_user, _get/_set_children_level_shares,
// _normalize_assoc_shares_fair_tree/_traditional).
#include "assoc_tree.h"

#include <algorithm>

namespace fairway {

int32_t AssocTree::Find(uint32_t id) const {
  auto it = std::lower_bound(index_by_id_.begin(), index_by_id_.end(),
                             std::make_pair(id, int32_t{-1}));
  if (it == index_by_id_.end() || it->first != id) return -1;
  return it->second;
}

bool AssocTree::Build(std::vector<AssocNode> nodes, bool fair_tree_shares,
                      std::string* error) {
  nodes_ = std::move(nodes);
  const int32_t n = static_cast<int32_t>(nodes_.size());
  links_.assign(n, AssocLinks{});
  fs_children_.assign(n, {});
  index_by_id_.clear();
  root_ = -1;
  user_assoc_count_ = 0;

  for (int32_t i = 0; i < n; ++i) index_by_id_.emplace_back(nodes_[i].id, i);
  std::sort(index_by_id_.begin(), index_by_id_.end());
  for (size_t i = 1; i < index_by_id_.size(); ++i) {
    if (index_by_id_[i].first == index_by_id_[i - 1].first) {
      if (error) *error = "duplicate association id " + std::to_string(index_by_id_[i].first);
      return false;
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    if (nodes_[i].parent_id == 0) {
      if (root_ != -1) {
        if (error) *error = "more than one root association (ids " +
                            std::to_string(nodes_[root_].id) + " and " +
                            std::to_string(nodes_[i].id) + ")";
        return false;
      }
      root_ = i;
    }
  }
  if (root_ == -1) {
    if (error) *error = "no root association (one with parent 0)";
    return false;
  }

  for (int32_t i = 0; i < n; ++i) {
    if (nodes_[i].is_user()) ++user_assoc_count_;
    if (i == root_) continue;
    int32_t parent = Find(nodes_[i].parent_id);
    if (parent == i) parent = -1;  // pointing at itself: Slurm drops the link
    links_[i].parent = parent;
  }
  // A self-parented chain deeper than the tree would loop; bound the walk.
  for (int32_t i = 0; i < n; ++i) {
    if (i == root_ || links_[i].parent < 0) continue;
    // The fairshare parent is the first ancestor whose shares are not
    // "parent" (both for a "parent" association and for the child of one).
    int32_t fs = links_[i].parent;
    for (int32_t steps = 0; fs >= 0 && nodes_[fs].uses_parent() && steps < n; ++steps) {
      fs = links_[fs].parent;
    }
    links_[i].fs_parent = fs;
    if (fs >= 0) fs_children_[fs].push_back(i);
  }
  NormalizeShares(fair_tree_shares);
  return true;
}

void AssocTree::NormalizeShares(bool fair_tree_shares) {
  const int32_t n = static_cast<int32_t>(nodes_.size());
  // Level shares: each fs child list shares one sum; a "parent" child
  // contributes the level shares of its own (empty) list, i.e. its children's
  // shares if it had any listed, which assoc_mgr never does.
  auto children_level_shares = [&](auto&& self, int32_t i) -> uint32_t {
    uint32_t sum = 0;
    for (int32_t c : fs_children_[i]) {
      sum += nodes_[c].uses_parent() ? self(self, c) : nodes_[c].shares_raw;
    }
    return sum;
  };
  for (int32_t i = 0; i < n; ++i) {
    if (fs_children_[i].empty()) continue;
    uint32_t level = children_level_shares(children_level_shares, i);
    for (int32_t c : fs_children_[i]) links_[c].level_shares = level;
  }

  // shares_norm. Fair Tree: the share among siblings. Classic and
  // depth-oblivious: the product of the level shares up the direct chain.
  if (fair_tree_shares) {
    for (int32_t i = 0; i < n; ++i) {
      int32_t fs_assoc = i;
      if (nodes_[i].uses_parent() && links_[i].fs_parent >= 0) fs_assoc = links_[i].fs_parent;
      // The root is never a child and keeps level_shares NO_VAL; assoc_mgr
      // divides by it all the same, and so do we.
      double norm = 0.0;
      uint32_t level = links_[fs_assoc].level_shares;
      if (level != 0) {
        norm = static_cast<double>(nodes_[fs_assoc].shares_raw) / static_cast<double>(level);
      }
      links_[i].shares_norm = norm;
    }
  } else {
    // List order does not guarantee parents first, so walk each chain.
    auto traditional = [&](int32_t i) {
      double norm = 1.0;
      int32_t a = i;
      for (int32_t steps = 0; a >= 0 && links_[a].parent >= 0 && steps <= n; ++steps) {
        if (!nodes_[a].uses_parent()) {
          uint32_t level = links_[a].level_shares;
          if (level == 0) {
            norm = 0;
          } else {
            norm *= static_cast<double>(nodes_[a].shares_raw) / static_cast<double>(level);
          }
        }
        a = links_[a].parent;
      }
      return norm;
    };
    for (int32_t i = 0; i < n; ++i) {
      if (!nodes_[i].uses_parent()) links_[i].shares_norm = traditional(i);
    }
    for (int32_t i = 0; i < n; ++i) {
      if (nodes_[i].uses_parent()) {
        int32_t fs = links_[i].fs_parent;
        links_[i].shares_norm = fs >= 0 ? links_[fs].shares_norm : traditional(i);
      }
    }
  }

  uint32_t max_priority = 0;
  for (const AssocNode& a : nodes_) max_priority = std::max(max_priority, a.priority);
  for (int32_t i = 0; i < n; ++i) {
    links_[i].priority_norm =
        max_priority ? static_cast<double>(nodes_[i].priority) / max_priority : 0.0;
  }
}

}  // namespace fairway
