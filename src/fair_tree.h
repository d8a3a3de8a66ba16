// SPDX-License-Identifier: GPL-2.0-or-later
// Fair Tree fairshare (the default mode), as priority/multifactor 22.05.8's
// fair_tree.c computes it: level_fs = S/U per level, siblings ranked by
// level_fs (users before accounts on ties, stable order), and every user gets
// rank / user_assoc_count. Tied sibling accounts are not merged, exactly as in
// 22.05.8 (_count_tied_accounts in
// slurm-22-05-8-1:src/plugins/priority/multifactor/fair_tree.c).
#ifndef FAIRWAY_FAIR_TREE_H_
#define FAIRWAY_FAIR_TREE_H_

#include "fairshare.h"

namespace fairway {

// Fills results->assocs: usage_efctv (usage / fs parent usage), usage_norm,
// level_fs and, for users, fs_factor (= job_factor).
void ComputeFairTree(const AssocTree& tree, FairshareResults* results);

// S/U for one association (0 when S is 0, +inf when U is 0, +inf for a
// "parent" user, NO_VAL for a "parent" account).
long double FairTreeLevelFs(const AssocTree& tree, int32_t i, long double usage_efctv);

// The same from the association's own values (S = shares_norm among its
// siblings): for callers that see one association and not its tree, such as
// `fairway explain` for a user under PrivateData=usage.
long double FairTreeLevelFs(double shares_norm, long double usage_efctv, bool uses_parent,
                            bool is_user);

}  // namespace fairway

#endif  // FAIRWAY_FAIR_TREE_H_
