// SPDX-License-Identifier: GPL-2.0-or-later
// Usage decay and usage reset periods, as priority/multifactor 22.05 applies
// them. Times are Unix seconds; local time (the process's TZ) decides reset
// boundaries, as in Slurm. No clock is read: callers pass "now".
#ifndef FAIRWAY_DECAY_H_
#define FAIRWAY_DECAY_H_

#include <cstdint>

#include "slurm_values.h"

namespace fairway {

// Per-second decay factor 1 - 0.693 / half_life (Slurm's first-order
// approximation of 2^(-1/half_life)); 1 when half_life_s <= 0 (no decay).
double DecayFactorPerSecond(int64_t half_life_s);

// factor^elapsed_s, floored at DBL_MIN so usage never becomes exactly 0;
// exactly 1 when elapsed_s <= 0 (a clock that went backwards decays nothing).
double DecayOver(double factor_per_second, int64_t elapsed_s);

// The next usage-reset boundary after last_reset for DAILY..YEARLY (local
// midnight; next Sunday; 1st of next month; next Apr/Jul/Oct/Jan 1st; Jan
// 1st), skipping missed daily/weekly boundaries so at most one reset fires at
// "now". 0 for NONE and NOW (they have no boundary).
int64_t NextResetTime(ResetPeriod period, int64_t last_reset, int64_t now);

// The latest reset boundary at or before now for DAILY..YEARLY (the last
// reset the configuration implies, used when the decay clock that recorded
// it is lost); 0 for NONE and NOW (all history counts).
int64_t LastResetBoundary(ResetPeriod period, int64_t now);

}  // namespace fairway

#endif  // FAIRWAY_DECAY_H_
