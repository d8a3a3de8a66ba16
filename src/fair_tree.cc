// SPDX-License-Identifier: GPL-2.0-or-later
#include "fair_tree.h"

#include <algorithm>
#include <cmath>

namespace fairway {

namespace {

struct Ranking {
  uint32_t rank;
  uint32_t rnt;  // rank with no ties: what rank would be if nothing tied
  uint32_t user_count;
};

void CalcLevel(const AssocTree& tree, std::vector<int32_t> siblings, bool account_tied,
               Ranking* ranking, FairshareResults* r) {
  for (int32_t i : siblings) {
    AssocFairshare& out = r->assocs[i];
    int32_t fs_parent = tree.links(i).fs_parent;
    long double parent_usage = fs_parent >= 0 ? tree.node(fs_parent).usage_raw : 0;
    out.usage_efctv = parent_usage ? tree.node(i).usage_raw / parent_usage : 0.0L;
    out.usage_norm = UsageNorm(tree, i);
    out.level_fs = FairTreeLevelFs(tree, i, out.usage_efctv);
  }
  // glibc's qsort is a stable merge sort here; stable_sort keeps list order.
  std::stable_sort(siblings.begin(), siblings.end(), [&](int32_t a, int32_t b) {
    long double la = r->assocs[a].level_fs, lb = r->assocs[b].level_fs;
    if (la != lb) return la > lb;
    return tree.node(a).is_user() && !tree.node(b).is_user();
  });

  long double prev_level_fs = kNoValLd;
  for (size_t k = 0; k < siblings.size(); ++k) {
    int32_t i = siblings[k];
    const long double level_fs = r->assocs[i].level_fs;
    bool tied = (k == 0 && account_tied) ? true : (prev_level_fs == level_fs);
    if (tree.node(i).is_user()) {
      if (!tied) ranking->rank = ranking->rnt;
      double factor = ranking->rank / static_cast<double>(ranking->user_count);
      r->assocs[i].fs_factor = factor;
      r->assocs[i].job_factor = factor;
      ranking->rnt--;
    } else {
      // 22.05.8 means to merge tied sibling accounts here, but its counter
      // stops at the first account, so only users that follow with an equal
      // level_fs (impossible after the sort) would be skipped. Reproduce it.
      size_t merge_count = 0;
      for (size_t m = k + 1; m < siblings.size(); ++m) {
        const AssocNode& next = tree.node(siblings[m]);
        if (!next.is_user()) break;
        if (r->assocs[siblings[m]].level_fs != level_fs) break;
        ++merge_count;
      }
      std::vector<int32_t> children;
      for (size_t m = k; m <= k + merge_count; ++m) {
        const std::vector<int32_t>& list = tree.fs_children(siblings[m]);
        children.insert(children.end(), list.begin(), list.end());
      }
      CalcLevel(tree, std::move(children), tied, ranking, r);
      k += merge_count;
    }
    prev_level_fs = level_fs;
  }
}

}  // namespace

long double FairTreeLevelFs(double shares_norm, long double usage_efctv, bool uses_parent,
                            bool is_user) {
  if (uses_parent) return is_user ? static_cast<long double>(INFINITY) : kNoValLd;
  long double S = shares_norm;
  if (S == 0.0L) return 0.0L;
  return S / usage_efctv;  // U == 0 gives +inf, a valid value
}

long double FairTreeLevelFs(const AssocTree& tree, int32_t i, long double usage_efctv) {
  const AssocNode& node = tree.node(i);
  return FairTreeLevelFs(tree.links(i).shares_norm, usage_efctv, node.uses_parent(),
                         node.is_user());
}

void ComputeFairTree(const AssocTree& tree, FairshareResults* results) {
  results->assocs.assign(tree.size(), AssocFairshare{});
  AssocFairshare& root = results->assocs[tree.root()];
  root.usage_efctv = 1.0L;
  root.level_fs = kNoValLd;
  Ranking ranking{tree.user_assoc_count(), tree.user_assoc_count(), tree.user_assoc_count()};
  CalcLevel(tree, tree.fs_children(tree.root()), false, &ranking, results);
}

}  // namespace fairway
