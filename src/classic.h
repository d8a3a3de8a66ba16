// SPDX-License-Identifier: GPL-2.0-or-later
// Classic (NO_FAIR_TREE) and depth-oblivious fairshare, as priority/multifactor
// 22.05 computes them (_set_assoc_usage_efctv, _depth_oblivious_set_usage_efctv
// and priority_p_calc_fs_factor in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
// Called by ComputeFairshare.
#ifndef FAIRWAY_CLASSIC_H_
#define FAIRWAY_CLASSIC_H_

#include "fairshare.h"

namespace fairway {

// The single-association formulas, for callers that update one association
// in place (the plugin's priority_p_set_assoc_usage) and for explanations.
// UE = UA + (UE_parent - UA) * S_child / S_all_siblings; UE_parent when no
// sibling has shares.
long double ClassicEffectiveUsage(long double usage_norm, long double parent_efctv,
                                  uint32_t shares_raw, uint32_t level_shares);

struct DepthObliviousInputs {
  double shares_norm = 0;
  double parent_shares_norm = 0;
  long double parent_efctv = 0;
  long double usage_norm = 0;
  long double siblings_usage_norm = 0;  // sum over non-"parent" fs siblings
};
// R = Rp * Rl^k; returns R * shares_norm, or usage_norm when any input is 0.
long double DepthObliviousEffectiveUsage(const DepthObliviousInputs& in);

// usage_raw / root_usage_raw, 0 when the root has no usage, capped at 1.
long double NormalizedUsage(long double usage_raw, long double root_usage_raw);

// One association's usage_norm and effective usage from its fs parent's
// current values, as priority_p_set_assoc_usage computes them between
// passes (the association manager calls it when an association is added or
// its shares change). The caller has checked that the association has an fs
// parent.
struct OneAssocUsageInputs {
  long double usage_raw = 0;
  long double root_usage_raw = 0;
  bool parent_is_root = false;  // its fs parent is the root
  bool uses_parent = false;     // Fairshare=parent: the fs parent's value
  long double parent_efctv = 0;
  uint32_t shares_raw = 0;
  uint32_t level_shares = 0;
  double shares_norm = 0;
  double parent_shares_norm = 0;
  // Depth-oblivious only: the usage_norm of the fs parent's children that
  // do not use "parent", in list order. Entry self_index is this
  // association's own, replaced by the usage_norm computed here.
  const long double* sibling_usage_norm = nullptr;
  size_t sibling_count = 0;
  size_t self_index = static_cast<size_t>(-1);
};
struct OneAssocUsage {
  long double usage_norm = 0;
  long double usage_efctv = 0;
};
OneAssocUsage ComputeOneAssocUsage(const OneAssocUsageInputs& in, bool depth_oblivious);

// Fills results->assocs (sized to the tree) top-down from the root. With
// depth_oblivious, associations below the root's children use the
// depth-oblivious effective usage. Every association's usage_norm is
// computed before any effective usage (multifactor mixes stale values here:
// _set_assoc_usage_efctv in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
void ComputeClassic(const AssocTree& tree, const Params& params, bool depth_oblivious,
                    FairshareResults* results);

}  // namespace fairway

#endif  // FAIRWAY_CLASSIC_H_
