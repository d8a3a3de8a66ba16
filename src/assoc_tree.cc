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

namespace {

// Sorts (id, index) pairs exactly as std::sort would (by id, then index):
// a stable LSD radix sort on the id, one byte per pass, applied to pairs
// that start in index order, so equal ids keep ascending indices. At 100k
// associations std::sort was about a fifth of Build; this is linear.
void SortById(std::vector<std::pair<uint32_t, int32_t>>* pairs) {
  std::vector<std::pair<uint32_t, int32_t>>& v = *pairs;
  if (v.size() < 64) {  // not worth the buffers
    std::sort(v.begin(), v.end());
    return;
  }
  std::vector<std::pair<uint32_t, int32_t>> tmp(v.size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {};
    for (const auto& p : v) ++count[((p.first >> shift) & 0xff) + 1];
    // Every id has the same byte here (e.g. the high bytes of small ids):
    // the pass would not move anything.
    if (count[((v[0].first >> shift) & 0xff) + 1] == v.size()) continue;
    for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (const auto& p : v) tmp[count[(p.first >> shift) & 0xff]++] = p;
    v.swap(tmp);
  }
}

}  // namespace

bool AssocTree::Build(std::vector<AssocNode> nodes, bool fair_tree_shares, std::string* error,
                      const std::vector<ShareNormalization>* given) {
  nodes_ = std::move(nodes);
  const int32_t n = static_cast<int32_t>(nodes_.size());
  links_.assign(n, AssocLinks{});
  fs_children_.assign(n, {});
  index_by_id_.clear();
  root_ = -1;
  user_assoc_count_ = 0;

  // AssocNode is large (three strings and a long double, ~144 bytes), so at
  // 100k associations every pass over nodes_ streams ~14 MB through the
  // cache. Read what the linking needs in one pass into compact arrays; the
  // checks below still report errors in the original order (duplicate ids
  // first, then roots).
  std::vector<uint32_t> parent_ids(n);
  std::vector<char> uses_parent(n);
  index_by_id_.reserve(n);
  int32_t first_root = -1, second_root = -1;
  uint32_t users = 0;
  for (int32_t i = 0; i < n; ++i) {
    const AssocNode& node = nodes_[i];
    index_by_id_.emplace_back(node.id, i);
    parent_ids[i] = node.parent_id;
    uses_parent[i] = node.uses_parent();
    if (node.is_user()) ++users;
    if (node.parent_id == 0) {
      if (first_root == -1) {
        first_root = i;
      } else if (second_root == -1) {
        second_root = i;
      }
    }
  }
  SortById(&index_by_id_);
  for (size_t i = 1; i < index_by_id_.size(); ++i) {
    if (index_by_id_[i].first == index_by_id_[i - 1].first) {
      if (error) *error = "duplicate association id " + std::to_string(index_by_id_[i].first);
      return false;
    }
  }
  if (second_root != -1) {
    root_ = first_root;  // as the scan that stopped at the second root left it
    if (error) *error = "more than one root association (ids " +
                        std::to_string(nodes_[first_root].id) + " and " +
                        std::to_string(nodes_[second_root].id) + ")";
    return false;
  }
  root_ = first_root;
  if (root_ == -1) {
    if (error) *error = "no root association (one with parent 0)";
    return false;
  }
  user_assoc_count_ = users;

  // Siblings are listed together (association-manager order), so most
  // nodes have the previous node's parent: reuse that lookup.
  uint32_t last_parent_id = 0;
  int32_t last_parent = -1;
  for (int32_t i = 0; i < n; ++i) {
    if (i == root_) continue;
    if (parent_ids[i] != last_parent_id || last_parent_id == 0) {
      last_parent_id = parent_ids[i];
      last_parent = Find(last_parent_id);
    }
    int32_t parent = last_parent;
    if (parent == i) parent = -1;  // pointing at itself: Slurm drops the link
    links_[i].parent = parent;
  }
  // A parent cycle (impossible from slurmdbd, possible in a hand-written
  // tree file) never reaches the root: its members, and everything below
  // them, become orphans, so that no walk below can loop.
  DetachCycles();
  std::vector<int32_t> fs_child_count(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    if (i == root_ || links_[i].parent < 0) continue;
    // The fairshare parent is the first ancestor whose shares are not
    // "parent" (both for a "parent" association and for the child of one).
    int32_t fs = links_[i].parent;
    for (int32_t steps = 0; fs >= 0 && uses_parent[fs] && steps < n; ++steps) {
      fs = links_[fs].parent;
    }
    links_[i].fs_parent = fs;
    if (fs >= 0) ++fs_child_count[fs];
  }
  // Fill the child lists in list order, each allocated once.
  for (int32_t i = 0; i < n; ++i) {
    if (fs_child_count[i]) fs_children_[i].reserve(fs_child_count[i]);
  }
  for (int32_t i = 0; i < n; ++i) {
    if (i != root_ && links_[i].fs_parent >= 0) fs_children_[links_[i].fs_parent].push_back(i);
  }
  if (given && given->size() == static_cast<size_t>(n)) {
    for (int32_t i = 0; i < n; ++i) {
      links_[i].level_shares = (*given)[i].level_shares;
      links_[i].shares_norm = (*given)[i].shares_norm;
      links_[i].priority_norm = (*given)[i].priority_norm;
    }
  } else {
    NormalizeShares(fair_tree_shares);
  }
  return true;
}

void AssocTree::DetachCycles() {
  const int32_t n = static_cast<int32_t>(nodes_.size());
  enum : char { kUnknown, kReachesRoot, kDetached, kOnPath };
  std::vector<char> state(n, kUnknown);
  state[root_] = kReachesRoot;
  std::vector<int32_t> path;
  for (int32_t start = 0; start < n; ++start) {
    if (state[start] != kUnknown) continue;
    path.clear();
    int32_t a = start;
    char outcome = kDetached;
    while (true) {
      if (a < 0) break;  // an orphan: detached already
      if (state[a] == kReachesRoot || state[a] == kDetached) {
        outcome = state[a];
        break;
      }
      if (state[a] == kOnPath) break;  // a cycle
      state[a] = kOnPath;
      path.push_back(a);
      a = links_[a].parent;
    }
    for (int32_t p : path) {
      state[p] = outcome;
      if (outcome == kDetached) links_[p].parent = -1;
    }
  }
}

void AssocTree::NormalizeShares(bool fair_tree_shares) {
  const int32_t n = static_cast<int32_t>(nodes_.size());
  // One pass over the large nodes for the two fields used here (see Build).
  std::vector<uint32_t> shares(n);
  std::vector<uint32_t> priority(n);
  uint32_t max_priority = 0;
  for (int32_t i = 0; i < n; ++i) {
    shares[i] = nodes_[i].shares_raw;
    priority[i] = nodes_[i].priority;
    max_priority = std::max(max_priority, priority[i]);
  }
  auto uses_parent = [&](int32_t i) { return shares[i] == kSharesUseParent; };

  // Level shares: each fs child list shares one sum; a "parent" child
  // contributes the level shares of its own (empty) list, i.e. its children's
  // shares if it had any listed, which assoc_mgr never does.
  auto children_level_shares = [&](auto&& self, int32_t i) -> uint32_t {
    uint32_t sum = 0;
    for (int32_t c : fs_children_[i]) {
      sum += uses_parent(c) ? self(self, c) : shares[c];
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
      if (uses_parent(i) && links_[i].fs_parent >= 0) fs_assoc = links_[i].fs_parent;
      // The root is never a child and keeps level_shares NO_VAL; assoc_mgr
      // divides by it all the same, and so do we.
      double norm = 0.0;
      uint32_t level = links_[fs_assoc].level_shares;
      if (level != 0) {
        norm = static_cast<double>(shares[fs_assoc]) / static_cast<double>(level);
      }
      links_[i].shares_norm = norm;
    }
  } else {
    // List order does not guarantee parents first, so walk each chain. The
    // product is taken from the association upwards; a top-down product
    // would round differently, so the walk stays (it is short and reads
    // only the compact arrays and links_).
    auto traditional = [&](int32_t i) {
      double norm = 1.0;
      int32_t a = i;
      for (int32_t steps = 0; a >= 0 && links_[a].parent >= 0 && steps <= n; ++steps) {
        if (!uses_parent(a)) {
          uint32_t level = links_[a].level_shares;
          if (level == 0) {
            norm = 0;
          } else {
            norm *= static_cast<double>(shares[a]) / static_cast<double>(level);
          }
        }
        a = links_[a].parent;
      }
      return norm;
    };
    for (int32_t i = 0; i < n; ++i) {
      if (!uses_parent(i)) links_[i].shares_norm = traditional(i);
    }
    for (int32_t i = 0; i < n; ++i) {
      if (uses_parent(i)) {
        int32_t fs = links_[i].fs_parent;
        links_[i].shares_norm = fs >= 0 ? links_[fs].shares_norm : traditional(i);
      }
    }
  }

  for (int32_t i = 0; i < n; ++i) {
    links_[i].priority_norm =
        max_priority ? static_cast<double>(priority[i]) / max_priority : 0.0;
  }
}

}  // namespace fairway
