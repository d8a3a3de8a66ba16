// SPDX-License-Identifier: GPL-2.0-or-later
#include "classic.h"

#include <cmath>

namespace fairway {

long double ClassicEffectiveUsage(long double usage_norm, long double parent_efctv,
                                  uint32_t shares_raw, uint32_t level_shares) {
  if (!level_shares) return parent_efctv;
  return usage_norm + (parent_efctv - usage_norm) * (shares_raw / static_cast<long double>(level_shares));
}

namespace {

// The parts of the depth-oblivious formula that depend only on the fs
// parent (its effective usage and shares): computed once per parent when
// a pass ranks its children, so that logl and powl run once per parent
// instead of once or twice per child.
struct DepthObliviousParentTerms {
  long double ratio_p = 0;      // parent_efctv / parent_shares_norm
  long double log_ratio_p = 0;  // logl(ratio_p); only used when ratio_p != 0
  long double k_damped = 0;     // 1 / (1 + (f logl(ratio_p))^2), the k when the logs differ in sign
};

// parent_shares_norm and parent_efctv must be non-zero (the caller's
// early return in DepthObliviousEffectiveUsage).
DepthObliviousParentTerms DepthObliviousParent(const DepthObliviousInputs& in) {
  const long double f = 5.0;
  DepthObliviousParentTerms t;
  t.ratio_p = in.parent_efctv / in.parent_shares_norm;
  if (t.ratio_p) {
    t.log_ratio_p = logl(t.ratio_p);
    t.k_damped = 1 / (1 + powl(f * t.log_ratio_p, 2));
  }
  return t;
}

// multifactor's test log_ratio_p * logl(ratio_l) >= 0 (both ratios on the
// same side of 1), with the same outcome for every input but without the
// logarithm where only its sign matters: for a finite ratio_l > 0, logl is
// negative, zero or positive as ratio_l is below, at or above 1, and a
// logl of a long double other than 1 is at least about 5e-20 in magnitude,
// so the product with a non-zero log_ratio_p cannot round to 0. NaN, zero,
// negative and infinite ratios take multifactor's own expression.
bool LogProductNonNegative(long double log_ratio_p, long double ratio_l) {
  if (!(ratio_l > 0) || std::isinf(ratio_l)) return log_ratio_p * logl(ratio_l) >= 0;
  const long double log_sign = ratio_l > 1 ? 1.0L : (ratio_l < 1 ? -1.0L : 0.0L);
  return log_ratio_p * log_sign >= 0;
}

// The rest of _depth_oblivious_set_usage_efctv, given the parent's terms;
// the same results as multifactor's operations, digit for digit (a unit
// test checks this on random trees against the formula as written there).
long double DepthObliviousWithParent(const DepthObliviousInputs& in,
                                     const DepthObliviousParentTerms& p) {
  if (!(in.shares_norm && in.parent_shares_norm && in.parent_efctv && in.usage_norm)) {
    return in.usage_norm;
  }
  long double ratio_s = in.siblings_usage_norm / in.parent_shares_norm;
  long double ratio_l = (in.usage_norm / in.shares_norm) / ratio_s;
  long double k;
  if (!p.ratio_p || !ratio_l || LogProductNonNegative(p.log_ratio_p, ratio_l)) {
    k = 1;
  } else {
    k = p.k_damped;
  }
  // pow(x, 1) is x exactly (glibc's pow is within 0.52 ulp, and x is
  // representable): half the children skip the call.
  const double rl = static_cast<double>(ratio_l);
  const double rl_pow_k = k == 1 ? rl : std::pow(rl, static_cast<double>(k));
  return p.ratio_p * rl_pow_k * in.shares_norm;
}

}  // namespace

// priority_multifactor.c _depth_oblivious_set_usage_efctv; its pow() of long
// doubles is the double pow, kept for identical digits.
long double DepthObliviousEffectiveUsage(const DepthObliviousInputs& in) {
  if (!(in.shares_norm && in.parent_shares_norm && in.parent_efctv && in.usage_norm)) {
    return in.usage_norm;
  }
  return DepthObliviousWithParent(in, DepthObliviousParent(in));
}

long double NormalizedUsage(long double usage_raw, long double root_usage_raw) {
  if (!root_usage_raw) return 0.0L;
  long double norm = usage_raw / root_usage_raw;
  if (norm > 1.0L) norm = 1.0L;
  return norm;
}

OneAssocUsage ComputeOneAssocUsage(const OneAssocUsageInputs& in, bool depth_oblivious) {
  OneAssocUsage out;
  out.usage_norm = NormalizedUsage(in.usage_raw, in.root_usage_raw);
  if (in.parent_is_root) {
    out.usage_efctv = out.usage_norm;
  } else if (in.uses_parent) {
    out.usage_efctv = in.parent_efctv;
  } else if (depth_oblivious) {
    DepthObliviousInputs d;
    d.shares_norm = in.shares_norm;
    d.parent_shares_norm = in.parent_shares_norm;
    d.parent_efctv = in.parent_efctv;
    d.usage_norm = out.usage_norm;
    for (size_t k = 0; k < in.sibling_count; ++k) {
      d.siblings_usage_norm += k == in.self_index ? out.usage_norm : in.sibling_usage_norm[k];
    }
    out.usage_efctv = DepthObliviousEffectiveUsage(d);
  } else {
    // Classic, and also Fair Tree: multifactor applies the classic formula
    // here in every mode (priority_p_set_assoc_usage in
    // slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
    out.usage_efctv =
        ClassicEffectiveUsage(out.usage_norm, in.parent_efctv, in.shares_raw, in.level_shares);
  }
  return out;
}

namespace {

long double ClassicEfctv(const AssocTree& tree, int32_t i, const FairshareResults& r) {
  const AssocLinks& links = tree.links(i);
  return ClassicEffectiveUsage(r.assocs[i].usage_norm, r.assocs[links.fs_parent].usage_efctv,
                               tree.node(i).shares_raw, links.level_shares);
}

// Fills the per-child inputs; the parent's terms come from the caller.
DepthObliviousInputs DepthObliviousChildInputs(const AssocTree& tree, int32_t i,
                                               long double siblings_usage_norm,
                                               const FairshareResults& r) {
  const int32_t parent = tree.links(i).fs_parent;
  DepthObliviousInputs in;
  in.shares_norm = tree.links(i).shares_norm;
  in.parent_shares_norm = tree.links(parent).shares_norm;
  in.parent_efctv = r.assocs[parent].usage_efctv;
  in.usage_norm = r.assocs[i].usage_norm;
  in.siblings_usage_norm = siblings_usage_norm;
  return in;
}

// The depth-oblivious sibling sum: usage_norm of every non-"parent" fs child
// of parent, added in fs_children order. usage_norm is fixed before the
// descent, so one sum per parent serves all its children; summing it per
// child was O(siblings^2) for accounts with thousands of users.
long double SiblingsUsageNorm(const AssocTree& tree, int32_t parent, const FairshareResults& r) {
  long double sum = 0;
  for (int32_t s : tree.fs_children(parent)) {
    if (!tree.node(s).uses_parent()) sum += r.assocs[s].usage_norm;
  }
  return sum;
}

void Descend(const AssocTree& tree, int32_t parent, bool depth_oblivious,
             FairshareResults* r) {
  // Children of the root take their usage_norm, so only deeper levels need
  // the sum.
  long double siblings_usage_norm = 0;
  DepthObliviousParentTerms parent_terms;
  if (depth_oblivious && parent != tree.root()) {
    siblings_usage_norm = SiblingsUsageNorm(tree, parent, *r);
    // The parent's effective usage is final before its children are ranked.
    DepthObliviousInputs p;
    p.parent_shares_norm = tree.links(parent).shares_norm;
    p.parent_efctv = r->assocs[parent].usage_efctv;
    if (p.parent_shares_norm && p.parent_efctv) parent_terms = DepthObliviousParent(p);
  }
  for (int32_t i : tree.fs_children(parent)) {
    AssocFairshare& out = r->assocs[i];
    const AssocLinks& links = tree.links(i);
    if (links.fs_parent == tree.root()) {
      out.usage_efctv = out.usage_norm;
    } else if (tree.node(i).uses_parent()) {
      out.usage_efctv = r->assocs[links.fs_parent].usage_efctv;
    } else if (depth_oblivious) {
      out.usage_efctv = DepthObliviousWithParent(
          DepthObliviousChildInputs(tree, i, siblings_usage_norm, *r), parent_terms);
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
