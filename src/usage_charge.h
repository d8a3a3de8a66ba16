// SPDX-License-Identifier: GPL-2.0-or-later
// How much usage a running or ending job adds for one slice of time, as
// priority/multifactor's _apply_new_usage computes it
// (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c): the
// decayed and undecayed billing-seconds, the wall seconds, and the TRES
// run-seconds to release from GrpTRESRunMins bookkeeping. Pure arithmetic;
// the caller adds the results to the QOS and association chain under locks.
#ifndef FAIRWAY_USAGE_CHARGE_H_
#define FAIRWAY_USAGE_CHARGE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairway {

struct JobChargeInput {
  int64_t start_period = 0;     // last decay pass (or job start, if later)
  int64_t end_period = 0;       // this pass, or the job end
  bool adjust_for_end = false;  // the job-end charge: stop at end_time
  int64_t start_time = 0;       // job start
  int64_t end_time = 0;         // job end (0 = unknown)
  int64_t end_time_exp = 0;     // expected end used by acct_policy
  uint32_t time_limit_min = 0;  // job time limit in minutes
  bool finished_or_completing = false;  // also true while resizing
  double billable_tres = 0;     // billing units (calc_job_billable_tres)
  bool has_qos = false;
  double qos_usage_factor = -1;   // applied when >= 0
  std::vector<uint64_t> tres_alloc;  // empty when the job has none
};

struct JobCharge {
  double run_delta_s = 0;      // seconds in the slice
  double run_decay_s = 0;      // seconds, discounted as if used at the start
  double run_nodecay_s = 0;    // seconds, undiscounted (NoDecay QOS)
  double real_decay = 0;       // billing-seconds, discounted
  double real_nodecay = 0;     // billing-seconds, undiscounted
  uint64_t tres_time_delta_s = 0;  // seconds to release from run-secs
  std::vector<uint64_t> tres_run_delta;        // per TRES, to release
  std::vector<long double> tres_run_decay;     // per TRES usage, discounted
  std::vector<long double> tres_run_nodecay;   // per TRES usage, undiscounted
};

JobCharge ComputeJobCharge(const JobChargeInput& in, double decay_factor_per_second,
                           uint64_t no_consume_marker);

// The restart release. At restart acct_policy reserves a running job's
// whole time limit in GrpTRESRunMins again, though the job used part of it
// before last_ran (the usage saved then already holds that part); so
// release[i] = tres_alloc[i] x (last_ran - start_time) x the QOS usage
// factor (when has_qos and >= 0), converted to an integer as multifactor
// does, and 0 for a TRES marked no_consume_marker. The caller picks the
// jobs: running, started at or before last_ran, with an allocation.
void RestartRelease(const uint64_t* tres_alloc, size_t tres_cnt, int64_t start_time,
                    int64_t last_ran, bool has_qos, double qos_usage_factor,
                    uint64_t no_consume_marker, uint64_t* release);

}  // namespace fairway

#endif  // FAIRWAY_USAGE_CHARGE_H_
