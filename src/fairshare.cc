// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairshare.h"

#include <cmath>

#include "classic.h"
#include "fair_tree.h"
#include "planned_use.h"
#include "ranged_tree.h"

namespace fairway {

bool SharesNormalizedLikeFairTree(FairshareMode mode) {
  return mode != FairshareMode::kClassic && mode != FairshareMode::kDepthOblivious;
}

double CalcFsFactor(long double usage_efctv, long double shares_norm, uint16_t damp) {
  long double diff = usage_efctv - kNoValLd;
  if (diff > -1e-6 && diff < 1e-6) return 0.0;  // Slurm's fuzzy_equal(NO_VAL)
  if (shares_norm <= 0) return 0.0;
  if (damp == 0) return 0.0;
  return std::pow(2.0, static_cast<double>(-((usage_efctv / shares_norm) / damp)));
}

long double UsageNorm(const AssocTree& tree, int32_t i) {
  return NormalizedUsage(tree.node(i).usage_raw, tree.node(tree.root()).usage_raw);
}

FairshareResults ComputeFairshare(const AssocTree& tree, const Params& params,
                                  const PlannedUseLedger* ledger, double default_capacity) {
  FairshareResults results;
  results.mode = params.Mode();
  switch (results.mode) {
    case FairshareMode::kClassic:
      ComputeClassic(tree, params, false, &results);
      break;
    case FairshareMode::kDepthOblivious:
      ComputeClassic(tree, params, true, &results);
      break;
    case FairshareMode::kFairTree:
      ComputeFairTree(tree, &results);
      break;
    case FairshareMode::kRanged:
      ComputeRangedTree(tree, params, &results);
      break;
    case FairshareMode::kPlannedUse: {
      // Without a ledger nothing was charged: every association has u = 0
      // and F = 1 (R and usage_norm are still filled).
      // Never freed: no static destructor.
      static const PlannedUseLedger* const kEmpty = new PlannedUseLedger();
      const double capacity =
          params.planned_use_capacity > 0 ? params.planned_use_capacity : default_capacity;
      ComputePlannedUse(tree, ledger ? *ledger : *kEmpty, params, capacity, &results);
      break;
    }
  }
  return results;
}

}  // namespace fairway
