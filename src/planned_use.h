// SPDX-License-Identifier: GPL-2.0-or-later
// Planned use fairshare (PriorityParameters=fairshare=planned_use),
// specified in doc/fairshare-modes.md "Planned use": every association may
// use resources at its planned rate R = shares_norm * C; usage is kept as an
// interval-bucketed decayed index u; F = 1 while u <= 1, else 1/u; a job gets
// the minimum F along its association's path below the root.
// The ledger (per-association closed history H and open-interval sum c) is
// state the plugin charges, persists and restores. Pure; not thread-safe on
// one ledger (callers serialise access).
#ifndef FAIRWAY_PLANNED_USE_H_
#define FAIRWAY_PLANNED_USE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "fairshare.h"

namespace fairway {

struct PlannedUseEntry {
  long double history = 0;  // H: decayed sum of closed intervals, billing-seconds
  long double open = 0;     // c: usage charged in the open interval, billing-seconds
};

struct PlannedUseLedger {
  int64_t interval_index = -1;  // floor(time / interval) of the open interval; -1 = never
  std::map<uint32_t, PlannedUseEntry> entries;  // by association id

  // Closes every interval boundary between the open interval and `now`:
  // H <- c + D*H, c <- 0 at the first, H <- D*H at each further one. A clock
  // that went backwards closes nothing. The first call only sets the index.
  void Roll(int64_t now, int64_t interval_s, double per_interval_decay);
  // Adds billing-seconds to one association's open interval.
  void Charge(uint32_t assoc_id, long double billing_seconds);
  // Adds billing-seconds to association i and every ancestor (usage of
  // children is summed into parents).
  void ChargePath(const AssocTree& tree, int32_t i, long double billing_seconds);
  // The same along a path of association ids (a job's association up to
  // and including the root): the plugin's one way to charge the ledger.
  void ChargeIds(const uint32_t* assoc_ids, size_t count, long double billing_seconds);
};

// One slice of a running or ending job, as the planned-use charge sees it.
struct PlannedUseJobSlice {
  PlannedUseCharge charge = PlannedUseCharge::kAccrue;
  int64_t start_time = 0;     // the job's start
  int64_t start_period = 0;   // the slice's start (last pass, or 0)
  uint32_t time_limit_min = kNoVal;  // INFINITE and NO_VAL: no limit
  double billable_tres = 0;
  bool has_qos = false;
  double qos_usage_factor = -1;  // applied when >= 0
  double run_delta_s = 0;        // the slice's seconds (JobCharge)
  double real_nodecay = 0;       // its undiscounted billing-seconds (JobCharge)
  int64_t charged_until = 0;     // the restored ledger holds charges up to here
};

// What the slice adds to the ledger. Accrue: the slice's undiscounted
// billing-seconds, the part after charged_until only
// (PlannedUseChargeAfter). Start: billing x time limit x QOS usage factor,
// once, with the job's first slice (a job that started before the slice, or
// before charged_until, was charged already), 0 without a limit. Never
// negative.
long double PlannedUseJobCharge(const PlannedUseJobSlice& slice);

// The part of `amount`, charged evenly over [slice_start, slice_end), that
// falls after `charged_until`: a ledger restored from its file already
// holds the charges up to when it was saved, even when the usage is charged
// from an earlier instant (doc/reliability.md's recovery rule). All of it
// when charged_until <= slice_start; none when >= slice_end.
long double PlannedUseChargeAfter(long double amount, int64_t slice_start, int64_t slice_end,
                                  int64_t charged_until);

// D = 2^(-interval/half_life); 1 when half_life_s <= 0 (no decay).
double PlannedUsePerIntervalDecay(int64_t interval_s, int64_t half_life_s);

// Normalised share of the whole machine (product of shares/level shares
// along the fairshare chain), as Slurm's classic normalisation defines it.
double MachineShare(const AssocTree& tree, int32_t i);

// Fills results->assocs: usage_efctv = u (usage index), level_fs = u,
// fs_factor = F of the association itself, job_factor = min F along the path
// below the root, planned_rate = R (billing units per second).
// capacity_billing_per_s is C (Params::planned_use_capacity when set).
void ComputePlannedUse(const AssocTree& tree, const PlannedUseLedger& ledger, const Params& params,
                       double capacity_billing_per_s, FairshareResults* results);

// The ledger as bytes for the plugin's state file: magic, version, interval
// index, entries, and a checksum over all of it. ParseLedger rejects a
// truncated, wrong-version or corrupted buffer with a reason.
std::string SerializeLedger(const PlannedUseLedger& ledger);
bool ParseLedger(const std::string& bytes, PlannedUseLedger* ledger, std::string* error);

}  // namespace fairway

#endif  // FAIRWAY_PLANNED_USE_H_
