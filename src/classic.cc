// SPDX-License-Identifier: GPL-2.0-or-later
#include "classic.h"

#include <cmath>

namespace fairway {

namespace {

// UE = UA + (UE_parent - UA) * S_child / S_all_siblings (the classic formula),
// or UE_parent when no sibling has shares.
long double ClassicEfctv(const AssocTree& tree, int32_t i, const FairshareResults& r) {
  const AssocLinks& links = tree.links(i);
  long double ua_child = r.assocs[i].usage_norm;
  long double ue_parent = r.assocs[links.fs_parent].usage_efctv;
  uint32_t s_child = tree.node(i).shares_raw;
  uint32_t s_all_siblings = links.level_shares;
  if (!s_all_siblings) return ue_parent;
  return ua_child + (ue_parent - ua_child) * (s_child / static_cast<long double>(s_all_siblings));
}

// R = Rp * Rl^k, efctv = R * shares_norm (priority_multifactor.c
// _depth_oblivious_set_usage_efctv; note its pow() of a long double is the
// double pow, which we keep for identical digits).
long double DepthObliviousEfctv(const AssocTree& tree, int32_t i, const FairshareResults& r) {
  const AssocLinks& links = tree.links(i);
  const int32_t parent = links.fs_parent;
  const double shares_norm = links.shares_norm;
  const double parent_shares_norm = tree.links(parent).shares_norm;
  const long double parent_efctv = r.assocs[parent].usage_efctv;
  const long double usage_norm = r.assocs[i].usage_norm;
  if (!(shares_norm && parent_shares_norm && parent_efctv && usage_norm)) return usage_norm;

  const long double f = 5.0;
  long double ratio_p = parent_efctv / parent_shares_norm;
  long double ratio_s = 0;
  for (int32_t s : tree.fs_children(parent)) {
    if (!tree.node(s).uses_parent()) ratio_s += r.assocs[s].usage_norm;
  }
  ratio_s /= parent_shares_norm;
  long double ratio_l = (usage_norm / shares_norm) / ratio_s;
  long double k;
  if (!ratio_p || !ratio_l || logl(ratio_p) * logl(ratio_l) >= 0) {
    k = 1;
  } else {
    k = 1 / (1 + powl(f * logl(ratio_p), 2));
  }
  return ratio_p * std::pow(static_cast<double>(ratio_l), static_cast<double>(k)) * shares_norm;
}

void Descend(const AssocTree& tree, int32_t parent, bool depth_oblivious,
             FairshareResults* r) {
  for (int32_t i : tree.fs_children(parent)) {
    AssocFairshare& out = r->assocs[i];
    const AssocLinks& links = tree.links(i);
    if (links.fs_parent == tree.root()) {
      out.usage_efctv = out.usage_norm;
    } else if (tree.node(i).uses_parent()) {
      out.usage_efctv = r->assocs[links.fs_parent].usage_efctv;
    } else if (depth_oblivious) {
      out.usage_efctv = DepthObliviousEfctv(tree, i, *r);
    } else {
      out.usage_efctv = ClassicEfctv(tree, i, *r);
    }
    if (!tree.node(i).is_user()) Descend(tree, i, depth_oblivious, r);
  }
}

}  // namespace

void ComputeClassic(const AssocTree& tree, const Params& params, bool depth_oblivious,
                    FairshareResults* results) {
  results->assocs.assign(tree.size(), AssocFairshare{});
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    if (i != tree.root()) results->assocs[i].usage_norm = UsageNorm(tree, i);
  }
  results->assocs[tree.root()].usage_efctv = 1.0L;
  Descend(tree, tree.root(), depth_oblivious, results);

  // A job's factor comes from its association, or from its fs parent when
  // the association's Fairshare is "parent" (_get_fairshare_priority).
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    int32_t fs_assoc = i;
    if (tree.node(i).uses_parent() && tree.links(i).fs_parent >= 0) {
      fs_assoc = tree.links(i).fs_parent;
    }
    results->assocs[i].job_factor =
        CalcFsFactor(results->assocs[fs_assoc].usage_efctv,
                     static_cast<long double>(tree.links(fs_assoc).shares_norm),
                     params.damp_factor);
  }
}

}  // namespace fairway
