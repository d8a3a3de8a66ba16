// SPDX-License-Identifier: GPL-2.0-or-later
// Fairshare results for every association, and the entry point that computes
// them in the configured mode. Pure: the same tree and params give the same
// results on any thread. Values use Slurm's types (long double usage, double
// shares) so that ties and printed digits match priority/multifactor.
#ifndef FAIRWAY_FAIRSHARE_H_
#define FAIRWAY_FAIRSHARE_H_

#include <cstdint>
#include <vector>

#include "assoc_tree.h"
#include "params.h"

namespace fairway {

// Slurm's "not set" marker for the long double fields (NO_VAL as long double).
constexpr long double kNoValLd = static_cast<long double>(kNoVal);

struct AssocFairshare {
  long double usage_norm = kNoValLd;   // usage / root usage (<= 1); root: NO_VAL
  long double usage_efctv = 0;         // mode-specific effective usage
  long double level_fs = kNoValLd;     // Fair Tree: S/U at its level
  double fs_factor = 0;                // Slurm's usage->fs_factor field (Fair
                                       // Tree and Fairway modes; 0 in classic)
  double job_factor = 0;               // the fairshare factor a job of this
                                       // association gets, in [0, 1]
  double slice_lo = 0, slice_hi = 0;   // ranged tree: the association's slice
  double planned_rate = 0;             // planned use: R, billing units per second
};

struct FairshareResults {
  FairshareMode mode = FairshareMode::kFairTree;
  std::vector<AssocFairshare> assocs;  // indexed like AssocTree::nodes()
};

struct PlannedUseLedger;

// The one fairshare entry point: every association's fairshare in
// params.Mode(). The tree must have been built with fair-tree share
// normalisation iff the mode is fair tree, ranged or planned use
// (SharesNormalizedLikeFairTree).
// ledger and default_capacity are read in planned-use mode only: ledger is
// the association usage it keeps (nullptr: none charged yet, every u = 0),
// and default_capacity the capacity C (billing units per second) when
// PriorityParameters sets no planned_use_capacity; the plugin passes the
// cluster's CPUs (without TRESBillingWeights a CPU bills 1). A caller never
// branches on the mode to find which function to call.
FairshareResults ComputeFairshare(const AssocTree& tree, const Params& params,
                                  const PlannedUseLedger* ledger, double default_capacity);

// Whether assoc_mgr normalises shares level by level (Fair Tree) for a mode.
bool SharesNormalizedLikeFairTree(FairshareMode mode);

// 2^(-(usage_efctv / shares_norm) / damp): priority_p_calc_fs_factor.
// Returns 0 when usage_efctv is NO_VAL (within 1e-6) or shares_norm <= 0, and
// when damp is 0 (Slurm would divide by zero; we refuse to produce NaN/inf).
double CalcFsFactor(long double usage_efctv, long double shares_norm, uint16_t damp);

// usage_raw / root usage_raw, 0 when the root has none, capped at 1.
long double UsageNorm(const AssocTree& tree, int32_t i);

}  // namespace fairway

#endif  // FAIRWAY_FAIRSHARE_H_
