// SPDX-License-Identifier: GPL-2.0-or-later
// Decay and reset, start-up recovery of the decay clock, the planned-use
// ledger, charging a job's usage, GrpTRESRunMins bookkeeping, and the usage
// bootstrap: fairway_api.h's usage half, on the core's functions.
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/api_internal.h"
#include "decay.h"
#include "state_recovery.h"
#include "tres_counts.h"
#include "usage_bootstrap.h"
#include "usage_charge.h"

namespace fairway::api {

char* MallocCopy(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy) std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

char* MallocBytes(const std::string& bytes, size_t* length) {
  char* out = MallocCopy(bytes);
  if (out && length) *length = bytes.size();
  return out;
}

namespace {

FileState StateOf(fw_file_state_t state) {
  switch (state) {
    case FW_FILE_OK: return FileState::kOk;
    case FW_FILE_MISSING: return FileState::kMissing;
    case FW_FILE_DAMAGED: return FileState::kDamaged;
  }
  return FileState::kDamaged;
}

DecayClock ClockFrom(const fw_file_t* file) {
  DecayClock clock;
  if (!file) return clock;  // missing
  clock.state = StateOf(file->state);
  if (clock.state == FileState::kOk) {
    return ParseDecayClock(std::string(file->bytes ? file->bytes : "", file->bytes ? file->length : 0));
  }
  if (clock.state == FileState::kDamaged && file->why) clock.why = file->why;
  return clock;
}

UsageFile UsageFrom(const fw_file_t* file, uint16_t min_version, uint16_t max_version) {
  UsageFile usage;
  if (!file) return usage;
  usage.state = StateOf(file->state);
  if (usage.state == FileState::kOk) {
    return ParseAssocUsage(std::string(file->bytes ? file->bytes : "", file->bytes ? file->length : 0),
                           min_version, max_version);
  }
  if (usage.state == FileState::kDamaged && file->why) usage.why = file->why;
  return usage;
}

}  // namespace
}  // namespace fairway::api

using namespace fairway;
using fairway::api::Log;
using fairway::api::ReportException;

extern "C" {

/* ---- decay and reset ---------------------------------------------------- */

double fw_decay_over(const fw_config_t* config, int64_t elapsed_s) {
  if (!config) return 1.0;
  return DecayOver(config->decay_per_second, elapsed_s);
}

bool fw_reset_due(fw_reset_state_t* state, int64_t now) {
  // PriorityUsageResetPeriod: NOW applies once and becomes NONE; the
  // periods apply at their next boundary, at most once per call.
  if (!state) return false;
  try {
    const auto period = static_cast<ResetPeriod>(state->period);
    switch (period) {
      case ResetPeriod::kNone:
        return false;
      case ResetPeriod::kNow:
        state->period = static_cast<uint16_t>(ResetPeriod::kNone);
        state->last_reset = now;
        return true;
      default:
        if (state->next_reset == 0) {
          state->next_reset = NextResetTime(period, state->last_reset, now);
        }
        if (state->next_reset && now >= state->next_reset) {
          state->last_reset = state->next_reset;
          state->next_reset = NextResetTime(period, state->last_reset, now);
          return true;
        }
        return false;
    }
  } catch (...) {
    ReportException(nullptr, "fw_reset_due");
  }
  return false;
}

int64_t fw_last_reset_boundary(uint16_t period, int64_t now) {
  try {
    return LastResetBoundary(static_cast<ResetPeriod>(period), now);
  } catch (...) {
    ReportException(nullptr, "fw_last_reset_boundary");
  }
  return 0;
}

/* ---- recovery ------------------------------------------------------------ */

void fw_decide_recovery(const fw_file_t* clock, const fw_file_t* clock_old,
                        const fw_file_t* usage, uint16_t min_version, uint16_t max_version,
                        int64_t now, int64_t calc_period_s, uint16_t reset_period,
                        fw_recovery_t* out) {
  if (!out) return;
  *out = fw_recovery_t{};
  try {
    RecoveryInput in;
    in.clock = api::ClockFrom(clock);
    in.clock_old = api::ClockFrom(clock_old);
    in.usage = api::UsageFrom(usage, min_version, max_version);
    in.now = now;
    in.calc_period_s = calc_period_s;
    in.configured_last_reset = LastResetBoundary(static_cast<ResetPeriod>(reset_period), now);
    std::string why;
    out->clock_damaged =
        in.clock.state == FileState::kDamaged ||
        (in.clock.state == FileState::kOk && !PlausibleClock(in.clock, now, &why));
    const RecoveryDecision decision = DecideRecovery(in);
    out->charge_from = decision.charge_from;
    out->last_reset = decision.last_reset;
    out->rebuild_usage = decision.rebuild_usage;
    out->error = decision.error;
    out->message = decision.message.empty() ? nullptr : api::MallocCopy(decision.message);
    return;
  } catch (...) {
    ReportException(nullptr, "fw_decide_recovery");
  }
  // Never fails: nothing known, so nothing is charged twice; say so.
  *out = fw_recovery_t{};
  out->charge_from = 0;
  out->error = true;
  out->message = api::MallocCopy("the state files could not be examined (out of memory?); "
                                 "running jobs are charged from the next pass on");
}

void fw_serialize_decay_clock(int64_t last_ran, int64_t last_reset,
                              unsigned char out[FW_DECAY_CLOCK_BYTES]) {
  try {
    const std::string bytes = SerializeDecayClock(last_ran, last_reset);
    std::memset(out, 0, FW_DECAY_CLOCK_BYTES);
    std::memcpy(out, bytes.data(), std::min<size_t>(bytes.size(), FW_DECAY_CLOCK_BYTES));
  } catch (...) {
    ReportException(nullptr, "fw_serialize_decay_clock");
  }
}

/* ---- the planned-use ledger --------------------------------------------- */

fw_ledger_t* fw_ledger_create(void) {
  try {
    return new fw_ledger();
  } catch (...) {
    ReportException(nullptr, "fw_ledger_create");
  }
  return nullptr;
}

void fw_ledger_destroy(fw_ledger_t* ledger) { delete ledger; }

bool fw_ledger_parse(fw_ledger_t* ledger, const char* bytes, size_t length,
                     int64_t charged_until, char** why) {
  if (why) *why = nullptr;
  try {
    if (!ledger) throw std::invalid_argument("no ledger");
    PlannedUseLedger parsed;
    std::string error;
    if (!ParseLedger(std::string(bytes ? bytes : "", bytes ? length : 0), &parsed, &error)) {
      if (why) *why = api::MallocCopy(error);
      return false;
    }
    ledger->ledger = std::move(parsed);
    ledger->charged_until = charged_until;
    return true;
  } catch (const std::exception& e) {
    if (why) *why = api::MallocCopy(e.what());
  } catch (...) {
    if (why) *why = api::MallocCopy("unknown error");
  }
  return false;
}

char* fw_ledger_serialize(const fw_ledger_t* ledger, size_t* length) {
  if (length) *length = 0;
  try {
    return api::MallocBytes(SerializeLedger(ledger ? ledger->ledger : PlannedUseLedger()), length);
  } catch (...) {
    ReportException(nullptr, "fw_ledger_serialize");
  }
  return nullptr;
}

size_t fw_ledger_entries(const fw_ledger_t* ledger) {
  return ledger ? ledger->ledger.entries.size() : 0;
}

void fw_ledger_roll(fw_ledger_t* ledger, const fw_config_t* config, int64_t now) {
  if (!ledger || !config) return;
  try {
    const Params& p = config->params;
    ledger->ledger.Roll(now, p.planned_use_interval_s,
                        PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
  } catch (...) {
    ReportException(config, "fw_ledger_roll");
  }
}

/* ---- charging ------------------------------------------------------------ */

void fw_charge_job(const fw_config_t* config, const fw_charge_input_t* in, fw_ledger_t* ledger,
                   fw_charge_t* out) {
  if (!config || !in || !out) return;
  try {
    JobChargeInput ci;
    ci.start_period = in->start_period;
    ci.end_period = in->end_period;
    ci.adjust_for_end = in->adjust_for_end;
    ci.start_time = in->start_time;
    ci.end_time = in->end_time;
    ci.end_time_exp = in->end_time_exp;
    ci.time_limit_min = in->time_limit_min;
    ci.finished_or_completing = in->finished_or_completing;
    ci.billable_tres = in->billable_tres;
    ci.has_qos = in->has_qos;
    ci.qos_usage_factor = in->qos_usage_factor;
    if (in->tres_alloc) ci.tres_alloc.assign(in->tres_alloc, in->tres_alloc + in->tres_cnt);
    const JobCharge charge = ComputeJobCharge(ci, config->decay_per_second, kNoConsumeVal64);
    out->run_delta_s = charge.run_delta_s;
    out->run_decay_s = charge.run_decay_s;
    out->run_nodecay_s = charge.run_nodecay_s;
    out->real_decay = charge.real_decay;
    out->real_nodecay = charge.real_nodecay;
    // Without an allocation the per-TRES vectors are empty: nothing to
    // release or add.
    for (uint32_t i = 0; i < in->tres_cnt; ++i) {
      const bool has = i < charge.tres_run_delta.size();
      if (out->tres_run_release) out->tres_run_release[i] = has ? charge.tres_run_delta[i] : 0;
      if (out->tres_usage_decay) out->tres_usage_decay[i] = has ? charge.tres_run_decay[i] : 0;
      if (out->tres_usage_nodecay) {
        out->tres_usage_nodecay[i] = has ? charge.tres_run_nodecay[i] : 0;
      }
    }
    if (ledger && config->params.Mode() == FairshareMode::kPlannedUse) {
      PlannedUseJobSlice slice;
      slice.charge = config->params.planned_use_charge;
      slice.start_time = in->start_time;
      slice.start_period = in->start_period;
      slice.time_limit_min = in->time_limit_min;
      slice.billable_tres = in->billable_tres;
      slice.has_qos = in->has_qos;
      slice.qos_usage_factor = in->qos_usage_factor;
      slice.run_delta_s = charge.run_delta_s;
      slice.real_nodecay = charge.real_nodecay;
      slice.charged_until = ledger->charged_until;
      ledger->ledger.ChargeIds(in->assoc_path, in->assoc_path ? in->assoc_path_length : 0,
                               PlannedUseJobCharge(slice));
    }
    Log(config, FW_LOG_PRIO, "job %u charged %.0f s x %.2f billing = %.2f (decayed)", in->job_id,
        charge.run_delta_s, in->billable_tres, charge.real_decay);
  } catch (...) {
    ReportException(config, "fw_charge_job");
  }
}

void fw_apply_tres_run(long double* usage_tres_raw, uint64_t* run_secs,
                       const long double* usage_add, const uint64_t* release, uint32_t tres_cnt,
                       uint32_t skip_index, fw_underflow_fn underflow, void* arg) {
  // multifactor's _apply_new_usage
  // (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c):
  // per TRES but energy, add the usage and release run-seconds, flooring an
  // underflow at 0.
  for (uint32_t i = 0; i < tres_cnt; ++i) {
    if (i == skip_index) continue;
    if (usage_add && usage_tres_raw) usage_tres_raw[i] += usage_add[i];
    if (!run_secs) continue;
    const uint64_t amount = release ? release[i] : 0;
    if (amount > run_secs[i]) {
      if (underflow) underflow(arg, i, amount, run_secs[i]);
      run_secs[i] = 0;
    } else {
      run_secs[i] -= amount;
    }
  }
}

void fw_restart_release(const uint64_t* tres_alloc, uint32_t tres_cnt, int64_t start_time,
                        int64_t last_ran, bool has_qos, double qos_usage_factor,
                        uint64_t* release) {
  if (!release) return;
  if (!tres_alloc) {
    for (uint32_t i = 0; i < tres_cnt; ++i) release[i] = 0;
    return;
  }
  RestartRelease(tres_alloc, tres_cnt, start_time, last_ran, has_qos, qos_usage_factor,
                 kNoConsumeVal64, release);
}

/* ---- usage bootstrap ----------------------------------------------------- */

bool fw_bootstrap_wanted(const fw_config_t* config, bool usage_missing) {
  if (!config || !config->calc_fairshare) return false;
  switch (config->params.usage_bootstrap) {
    case UsageBootstrap::kOff: return false;
    case UsageBootstrap::kForce: return true;
    case UsageBootstrap::kAuto: return usage_missing;
  }
  return false;
}

int64_t fw_bootstrap_since(const fw_config_t* config, int64_t configured_last_reset,
                           int64_t now) {
  // Usage counts since the configured reset (all history without one);
  // with decay, older usage weighs under 0.1% after ten half-lives.
  int64_t since = configured_last_reset > 0 ? configured_last_reset : 1;
  const int64_t half_life = config ? config->params.decay_half_life_s : 0;
  if (half_life > 0 && now - 10 * half_life > since) since = now - 10 * half_life;
  return since;
}

fw_bootstrap_result_t fw_bootstrap_usage(const fw_config_t* config,
                                         const fw_assoc_input_t* assocs, size_t n,
                                         const fw_db_job_t* jobs, size_t job_count,
                                         const uint32_t* tres_ids, uint32_t tres_cnt,
                                         uint32_t energy_tres_id, bool force, int64_t since,
                                         int64_t now, bool retry, fw_ledger_t* ledger,
                                         long double* usage, long double* tres_usage) {
  if (!config) return FW_BOOTSTRAP_NOT_NEEDED;
  try {
    const Params& p = config->params;
    force = force || p.usage_bootstrap == UsageBootstrap::kForce;
    // The job records: billing for usage_raw, every TRES count for the
    // per-TRES usage.
    struct FetchedJob {
      JobUsageRecord usage;
      std::map<uint32_t, uint64_t> tres;  // per TRES id
    };
    std::vector<FetchedJob> fetched;
    fetched.reserve(job_count);
    size_t unreadable = 0;
    for (size_t k = 0; k < job_count; ++k) {
      const fw_db_job_t& job = jobs[k];
      if (!job.start || !job.assoc_id) continue;
      FetchedJob f;
      if (!ParseTresCounts(job.tres_alloc ? job.tres_alloc : "", &f.tres)) {
        ++unreadable;
        continue;
      }
      f.usage.assoc_id = job.assoc_id;
      f.usage.start = job.start;
      f.usage.end = job.end;
      f.usage.billing = AllocationBilling(f.tres);
      fetched.push_back(std::move(f));
    }
    if (unreadable) {
      Log(config, FW_LOG_ERROR,
          "usage bootstrap: %zu job records with an unreadable tres_alloc were skipped",
          unreadable);
    }
    std::vector<JobUsageRecord> records;
    records.reserve(fetched.size());
    for (const FetchedJob& f : fetched) records.push_back(f.usage);

    AssocTree tree;
    std::vector<int32_t> node_of;
    // Usage follows the links only: the shares (and whose normalisation
    // they use) do not matter here, so assoc_mgr's is not asked for.
    if (!api::TreeFromInputs(*config, assocs, n, !SharesNormalizedLikeFairTree(p.Mode()),
                             nullptr, &tree, &node_of)) {
      Log(config, FW_LOG_ERROR, "usage bootstrap: no association tree; skipped");
      return FW_BOOTSTRAP_NOT_NEEDED;
    }
    if (!force) {
      for (const AssocNode& node : tree.nodes()) {
        if (node.usage_raw > 0) {
          Log(config, FW_LOG_INFO,
              "usage bootstrap: slurmctld already has usage; nothing overwritten "
              "(usage_bootstrap=force rebuilds it anyway)");
          return FW_BOOTSTRAP_NOT_NEEDED;
        }
      }
    }
    const double f = config->decay_per_second;
    const std::vector<long double> subtree =
        SubtreeUsage(tree, DecayedUsageByAssoc(records, now, f));
    // Per-TRES usage (GrpTRESMins limits) the same way, TRES by TRES.
    std::vector<std::vector<long double>> per_tres_usage(tres_ids ? tres_cnt : 0);
    for (uint32_t t = 0; tres_ids && t < tres_cnt; ++t) {
      const uint32_t tres_id = tres_ids[t];
      std::vector<JobUsageRecord> per_tres;
      for (const FetchedJob& job : fetched) {
        auto it = job.tres.find(tres_id);
        if (it == job.tres.end() || tres_id == energy_tres_id) continue;
        JobUsageRecord r = job.usage;
        r.billing = static_cast<double>(it->second);
        per_tres.push_back(r);
      }
      per_tres_usage[t] = SubtreeUsage(tree, DecayedUsageByAssoc(per_tres, now, f));
    }
    size_t rebuilt = 0;
    for (size_t k = 0; k < n; ++k) {
      const int32_t node = node_of[k];
      if (node < 0) continue;  // a duplicate: written below from its first entry
      if (usage) usage[k] = subtree[node];
      if (subtree[node] > 0) ++rebuilt;
      for (uint32_t t = 0; tres_usage && t < per_tres_usage.size(); ++t) {
        tres_usage[k * tres_cnt + t] = per_tres_usage[t][node];
      }
    }
    // A record listed twice gets its first entry's values, so that the
    // caller may write every row.
    for (size_t k = 0; k < n; ++k) {
      if (node_of[k] >= 0) continue;
      for (size_t first = 0; first < k; ++first) {
        if (assocs[first].key != assocs[k].key || node_of[first] < 0) continue;
        if (usage) usage[k] = usage[first];
        for (uint32_t t = 0; tres_usage && t < per_tres_usage.size(); ++t) {
          tres_usage[k * tres_cnt + t] = tres_usage[first * tres_cnt + t];
        }
        break;
      }
    }
    const long double root_usage = subtree[tree.root()];
    if (p.Mode() == FairshareMode::kPlannedUse && ledger) {
      PlannedUseLedger rebuilt_ledger =
          LedgerFromJobs(tree, records, now, p.planned_use_interval_s,
                         PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
      if (force || ledger->ledger.entries.empty()) {
        ledger->ledger = std::move(rebuilt_ledger);
        Log(config, FW_LOG_INFO, "usage bootstrap: planned-use ledger rebuilt from the same jobs");
      }
    }
    // Error level: usage was lost and replaced; the site should know.
    Log(config, FW_LOG_ERROR,
        "usage bootstrap: rebuilt the usage of %zu associations from %zu jobs in slurmdbd "
        "since %lld%s (cluster usage %.0Lf billing-seconds)%s",
        rebuilt, records.size(), static_cast<long long>(since),
        since == 1 ? " (all history)" : "", root_usage,
        retry ? ", now that slurmdbd answers" : "");
    return FW_BOOTSTRAP_REBUILT;
  } catch (...) {
    ReportException(config, "fw_bootstrap_usage");
  }
  return FW_BOOTSTRAP_NOT_NEEDED;
}

}  // extern "C"
