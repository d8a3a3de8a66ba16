// SPDX-License-Identifier: GPL-2.0-or-later
// Classic (NO_FAIR_TREE) and depth-oblivious fairshare, as priority/multifactor
// 22.05 computes them (API brief §3.8). Called by ComputeFairshare.
#ifndef FAIRWAY_CLASSIC_H_
#define FAIRWAY_CLASSIC_H_

#include "fairshare.h"

namespace fairway {

// Fills results->assocs (sized to the tree) top-down from the root. With
// depth_oblivious, associations below the root's children use the
// depth-oblivious effective usage. Every association's usage_norm is computed
// before any effective usage (multifactor mixes stale values here, §8 bug 9).
void ComputeClassic(const AssocTree& tree, const Params& params, bool depth_oblivious,
                    FairshareResults* results);

}  // namespace fairway

#endif  // FAIRWAY_CLASSIC_H_
