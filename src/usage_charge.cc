// SPDX-License-Identifier: GPL-2.0-or-later
#include "usage_charge.h"

#include <cmath>

namespace fairway {

JobCharge ComputeJobCharge(const JobChargeInput& in, double decay_factor_per_second,
                           uint64_t no_consume_marker) {
  JobCharge out;
  int64_t start_period = in.start_period;
  int64_t end_period = in.end_period;
  if (in.start_time > start_period) start_period = in.start_time;
  if (in.end_time && in.adjust_for_end && end_period > in.end_time) end_period = in.end_time;

  double run_delta = static_cast<double>(end_period - start_period);
  if (run_delta < 0) run_delta = 0;

  // Run-seconds were reserved up to start + time limit at job start, so only
  // time inside the limit is released.
  uint64_t limit_ends = static_cast<uint64_t>(in.start_time) +
                        static_cast<uint64_t>(in.time_limit_min) * 60;
  uint64_t tres_time_delta = 0;
  if (static_cast<uint64_t>(start_period) >= limit_ends) {
    tres_time_delta = 0;
  } else if (in.finished_or_completing) {
    tres_time_delta = limit_ends - static_cast<uint64_t>(start_period);
  } else if (end_period > in.end_time_exp) {
    int end_exp = static_cast<int>(in.end_time_exp - start_period);
    if (end_exp > 0) tres_time_delta = static_cast<uint64_t>(end_exp);
  } else {
    tres_time_delta = static_cast<uint64_t>(run_delta);
  }

  double run_decay = run_delta * std::pow(decay_factor_per_second, run_delta);
  double real_decay = run_decay * in.billable_tres;
  double real_nodecay = run_delta * in.billable_tres;
  double run_nodecay = run_delta;
  if (in.has_qos && in.qos_usage_factor >= 0) {
    real_decay *= in.qos_usage_factor;
    run_decay *= in.qos_usage_factor;
    real_nodecay *= in.qos_usage_factor;
    run_nodecay *= in.qos_usage_factor;
    tres_time_delta = static_cast<uint64_t>(tres_time_delta * in.qos_usage_factor);
  }

  const size_t n = in.tres_alloc.size();
  out.tres_run_delta.assign(n, 0);
  out.tres_run_decay.assign(n, 0);
  out.tres_run_nodecay.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t alloc = in.tres_alloc[i];
    if (!alloc || alloc == no_consume_marker) continue;
    out.tres_run_delta[i] = tres_time_delta * alloc;
    out.tres_run_decay[i] = static_cast<long double>(run_decay) * static_cast<long double>(alloc);
    out.tres_run_nodecay[i] = static_cast<long double>(run_nodecay) * static_cast<long double>(alloc);
  }
  out.run_delta_s = run_delta;
  out.run_decay_s = run_decay;
  out.run_nodecay_s = run_nodecay;
  out.real_decay = real_decay;
  out.real_nodecay = real_nodecay;
  out.tres_time_delta_s = tres_time_delta;
  return out;
}

void RestartRelease(const uint64_t* tres_alloc, size_t tres_cnt, int64_t start_time,
                    int64_t last_ran, bool has_qos, double qos_usage_factor,
                    uint64_t no_consume_marker, uint64_t* release) {
  double usage_factor = has_qos && qos_usage_factor >= 0 ? qos_usage_factor : 1.0;
  usage_factor *= static_cast<double>(last_ran - start_time);
  for (size_t i = 0; i < tres_cnt; ++i) {
    release[i] = tres_alloc[i] == no_consume_marker
                     ? 0
                     : static_cast<uint64_t>(tres_alloc[i] * usage_factor);
  }
}

}  // namespace fairway
