// SPDX-License-Identifier: GPL-2.0-or-later
// Usage bookkeeping on slurmctld's association and QOS records: decay,
// reset, charging a running or ending job, and re-adjusting GrpTRESRunMins
// reservations after a restart. The arithmetic is the core's
// (usage_charge.h, decay.h); this file only adds it to the right records
// under the right locks.
#ifndef FAIRWAY_PLUGIN_USAGE_BRIDGE_H_
#define FAIRWAY_PLUGIN_USAGE_BRIDGE_H_

#include <ctime>

#include "plugin_config.h"

struct job_record;

namespace fairway::plugin {

// Takes assoc W + QOS W. Multiplies usage, per-TRES usage and wall time of
// every association (and separate leaf usage) and of every QOS without
// NoDecay by real_decay.
void ApplyDecay(double real_decay);

// Takes assoc W + QOS W. Zeroes usage of every association and QOS (NoDecay
// included), dropping separate account leaf usage.
void ResetUsage();

// Requires: the job WRITE lock with adjust_for_end (it marks the job's end
// charged), the READ lock without (the periodic charge reads the job only);
// takes assoc W + QOS W + TRES R. Charges the job's usage for
// [start_period, end_period]; with adjust_for_end, the final slice
// (priority_p_job_end). Returns false when nothing was charged because
// the job's end was already charged.
bool ChargeJob(job_record* job, time_t start_period, time_t end_period, bool adjust_for_end,
               const PluginConfig& config);

// Takes job R, then assoc W + QOS W + TRES R. Releases from
// grp_used_tres_run_secs what running jobs used before last_ran (acct_policy
// re-reserved their whole time limit at restart).
void InitGrpUsedTresRunSecs(time_t last_ran);

// Whether the periodic pass charges this job (not finished or completing;
// running, suspended, or pending with CALCULATE_RUNNING; started; with an
// association).
bool ShouldChargePeriodically(const job_record* job, const PluginConfig& config);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_USAGE_BRIDGE_H_
