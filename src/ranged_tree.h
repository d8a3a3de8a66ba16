// SPDX-License-Identifier: GPL-2.0-or-later
// Ranged tree fairshare (PriorityParameters=fairshare=ranged), specified in
// doc/fairshare-modes.md "Ranged tree": each level has the classic local
// factor f = 2^(-U/(S*d)) among siblings, and each association's children
// split its slice of [0, 1], so no descendant outranks the slice its parent
// earned. Pure; any thread may call it on its own data.
#ifndef FAIRWAY_RANGED_TREE_H_
#define FAIRWAY_RANGED_TREE_H_

#include "fairshare.h"

namespace fairway {

// Fills results->assocs for every association: usage_efctv = U (usage share
// among siblings), level_fs = f (local factor), fs_factor = job_factor = F,
// slice_lo/slice_hi = the association's own slice. The tree must be built
// with fair-tree share normalisation (shares_norm = S among siblings).
void ComputeRangedTree(const AssocTree& tree, const Params& params, FairshareResults* results);

// The local factor: 2^(-U/(S*d)); 0 when S is 0; 1 when U is 0 and S > 0.
double RangedLocalFactor(long double usage_share, double shares_share, uint16_t damp);

}  // namespace fairway

#endif  // FAIRWAY_RANGED_TREE_H_
