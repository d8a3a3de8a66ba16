// SPDX-License-Identifier: GPL-2.0-or-later
#include "classic.h"

#include <cmath>

namespace fairway {

long double ClassicEffectiveUsage(long double usage_norm, long double parent_efctv,
                                  uint32_t shares_raw, uint32_t level_shares) {
  if (!level_shares) return parent_efctv;
  return usage_norm + (parent_efctv - usage_norm) * (shares_raw / static_cast<long double>(level_shares));
}

// priority_multifactor.c _depth_oblivious_set_usage_efctv; its pow() of long
// doubles is the double pow, kept for identical digits.
long double DepthObliviousEffectiveUsage(const DepthObliviousInputs& in) {
  if (!(in.shares_norm && in.parent_shares_norm && in.parent_efctv && in.usage_norm)) {
    return in.usage_norm;
  }
  const long double f = 5.0;
  long double ratio_p = in.parent_efctv / in.parent_shares_norm;
  long double ratio_s = in.siblings_usage_norm / in.parent_shares_norm;
  long double ratio_l = (in.usage_norm / in.shares_norm) / ratio_s;
  long double k;
  if (!ratio_p || !ratio_l || logl(ratio_p) * logl(ratio_l) >= 0) {
    k = 1;
  } else {
    k = 1 / (1 + powl(f * logl(ratio_p), 2));
  }
  return ratio_p * std::pow(static_cast<double>(ratio_l), static_cast<double>(k)) * in.shares_norm;
}

long double NormalizedUsage(long double usage_raw, long double root_usage_raw) {
  if (!root_usage_raw) return 0.0L;
  long double norm = usage_raw / root_usage_raw;
  if (norm > 1.0L) norm = 1.0L;
  return norm;
}

namespace {

long double ClassicEfctv(const AssocTree& tree, int32_t i, const FairshareResults& r) {
  const AssocLinks& links = tree.links(i);
  return ClassicEffectiveUsage(r.assocs[i].usage_norm, r.assocs[links.fs_parent].usage_efctv,
                               tree.node(i).shares_raw, links.level_shares);
}

long double DepthObliviousEfctv(const AssocTree& tree, int32_t i, const FairshareResults& r) {
  const int32_t parent = tree.links(i).fs_parent;
  DepthObliviousInputs in;
  in.shares_norm = tree.links(i).shares_norm;
  in.parent_shares_norm = tree.links(parent).shares_norm;
  in.parent_efctv = r.assocs[parent].usage_efctv;
  in.usage_norm = r.assocs[i].usage_norm;
  for (int32_t s : tree.fs_children(parent)) {
    if (!tree.node(s).uses_parent()) in.siblings_usage_norm += r.assocs[s].usage_norm;
  }
  return DepthObliviousEffectiveUsage(in);
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
