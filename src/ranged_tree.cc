// SPDX-License-Identifier: GPL-2.0-or-later
// Ranged tree fairshare (doc/fairshare-modes.md, "Ranged tree").
//
// Decisions beyond the specification:
//  - Fairshare=parent associations do not compete among their fs siblings:
//    they are left out of the usage sum (their usage is already in their
//    fs parent's, and their children, listed as siblings, carry it again)
//    just as assoc_mgr leaves them out of level_shares. They take their fs
//    parent's U, f, F and slice.
//  - Zero shares give f = 0, hence F = lo_p: the bottom of the parent's
//    slice, with an empty own slice [lo_p, lo_p] that their descendants share.
//  - FairShareDampeningFactor 0 is treated as 1 (Slurm requires >= 1; we
//    never divide by zero).
//  - Orphans (no path to the root) are never ranked: F = 0, slice [0, 0].
#include "ranged_tree.h"

#include <algorithm>
#include <cmath>

namespace fairway {

namespace {

// Clamps x into [lo, hi]; a NaN becomes lo.
double Clamp(double x, double lo, double hi) {
  if (!(x >= lo)) return lo;
  if (x > hi) return hi;
  return x;
}

void SplitSlice(const AssocTree& tree, int32_t parent, const Params& params,
                FairshareResults* r) {
  const AssocFairshare& p = r->assocs[parent];
  const double lo_p = p.slice_lo;
  const double hi_p = p.slice_hi;
  const double width = std::max(0.0, hi_p - lo_p);

  // Competing siblings: every fs child except the Fairshare=parent ones.
  std::vector<int32_t> competing;
  long double usage_sum = 0;
  for (int32_t c : tree.fs_children(parent)) {
    if (tree.node(c).uses_parent()) continue;
    competing.push_back(c);
    long double u = tree.node(c).usage_raw;
    if (u > 0) usage_sum += u;  // negative usage is treated as none
  }

  for (int32_t c : competing) {
    AssocFairshare& out = r->assocs[c];
    long double usage = tree.node(c).usage_raw;
    long double U = 0;
    if (usage_sum > 0 && usage > 0) {
      U = usage / usage_sum;
      if (!(U <= 1)) U = 1;  // rounding, or an infinite sum
    }
    out.usage_efctv = U;
    out.usage_norm = UsageNorm(tree, c);
    out.level_fs = RangedLocalFactor(U, tree.links(c).shares_norm, params.damp_factor);
  }

  // Ascending f; stable, so list order breaks nothing (ties get equal F).
  std::stable_sort(competing.begin(), competing.end(), [&](int32_t a, int32_t b) {
    return r->assocs[a].level_fs < r->assocs[b].level_fs;
  });

  // lo of a sibling = F of the nearest sibling with a strictly lower f.
  double lower_F = lo_p;      // F of the last group with a strictly lower f
  double group_F = lo_p;      // F of the current group of equal f
  long double group_f = -1;   // f of the current group (none yet)
  double group_lo = lo_p;
  for (int32_t c : competing) {
    AssocFairshare& out = r->assocs[c];
    const long double f = out.level_fs;
    if (f != group_f) {
      lower_F = group_f < 0 ? lo_p : group_F;
      group_f = f;
      group_lo = lower_F;
      // F = hi_p - (1 - f)(hi_p - lo_p). Rounding is monotone in f, and the
      // clamp keeps F inside the parent's slice whatever the rounding did.
      group_F = Clamp(hi_p - (1.0 - static_cast<double>(f)) * width, lo_p, hi_p);
    }
    out.slice_lo = std::min(group_lo, group_F);
    out.slice_hi = group_F;
    out.fs_factor = group_F;
    out.job_factor = group_F;
  }

  // Fairshare=parent children take the parent's values.
  for (int32_t c : tree.fs_children(parent)) {
    if (!tree.node(c).uses_parent()) continue;
    AssocFairshare& out = r->assocs[c];
    out.usage_efctv = p.usage_efctv;
    out.level_fs = p.level_fs;
    out.usage_norm = UsageNorm(tree, c);
    out.slice_lo = lo_p;
    out.slice_hi = hi_p;
    out.fs_factor = p.fs_factor;
    out.job_factor = p.job_factor;
  }

  for (int32_t c : competing) {
    if (!tree.fs_children(c).empty()) SplitSlice(tree, c, params, r);
  }
}

}  // namespace

double RangedLocalFactor(long double usage_share, double shares_share, uint16_t damp) {
  if (!(shares_share > 0)) return 0.0;       // zero (or NaN) shares
  if (usage_share != usage_share) return 0.0;  // NaN usage: rank last
  if (usage_share <= 0) return 1.0;
  const long double d = damp == 0 ? 1.0L : static_cast<long double>(damp);
  const long double exponent = usage_share / (static_cast<long double>(shares_share) * d);
  double f = std::pow(2.0, static_cast<double>(-exponent));  // 0 when it underflows
  return Clamp(f, 0.0, 1.0);
}

void ComputeRangedTree(const AssocTree& tree, const Params& params, FairshareResults* results) {
  results->mode = FairshareMode::kRanged;
  results->assocs.assign(tree.size(), AssocFairshare{});
  if (tree.root() < 0) return;
  AssocFairshare& root = results->assocs[tree.root()];
  root.usage_efctv = 1.0L;
  root.level_fs = 1.0L;
  root.slice_lo = 0.0;
  root.slice_hi = 1.0;
  root.fs_factor = 1.0;
  root.job_factor = 1.0;
  SplitSlice(tree, tree.root(), params, results);
}

}  // namespace fairway
