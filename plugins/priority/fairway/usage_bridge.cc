// SPDX-License-Identifier: GPL-2.0-or-later
#include "usage_bridge.h"

#include <vector>

#include "planned_use.h"
#include "planned_use_state.h"
#include "plugin_log.h"
#include "prefetch.h"
#include "usage_charge.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

void ScaleUsage(slurmdb_assoc_usage_t* usage, double factor) {
  usage->usage_raw *= factor;
  for (int i = 0; i < slurmctld_tres_cnt; ++i) usage->usage_tres_raw[i] *= factor;
  usage->grp_used_wall *= factor;
}

void ZeroUsage(long double* usage_raw, long double* usage_tres_raw, double* grp_used_wall) {
  *usage_raw = 0;
  for (int i = 0; i < slurmctld_tres_cnt; ++i) usage_tres_raw[i] = 0;
  *grp_used_wall = 0;
}

// Decay reads three allocations per association, scattered over the heap
// and cold after a minute: the record, its usage and the usage's TRES
// array. Listing the records first lets the loop ask for each a few
// associations ahead, one allocation per stage (each stage reads a pointer
// the previous stage's prefetch brought in).
constexpr size_t kPrefetchAssocsAhead = 12;
constexpr size_t kPrefetchUsageAhead = 8;
constexpr size_t kPrefetchTresAhead = 4;

FAIRWAY_PREFETCH_HELPER void PrefetchAssoc(const slurmdb_assoc_rec_t* assoc) {
  __builtin_prefetch(&assoc->usage);
  __builtin_prefetch(&assoc->leaf_usage);
}

FAIRWAY_PREFETCH_HELPER void PrefetchUsage(const slurmdb_assoc_usage_t* usage) {
  __builtin_prefetch(&usage->usage_raw, 1);
  __builtin_prefetch(&usage->usage_tres_raw);
  __builtin_prefetch(&usage->grp_used_wall, 1);
}

// usage_tres_raw holds a long double per TRES: its first and last lines
// (a handful of TRES span two or three).
FAIRWAY_PREFETCH_HELPER void PrefetchTres(const slurmdb_assoc_usage_t* usage) {
  if (const long double* tres = usage->usage_tres_raw) {
    __builtin_prefetch(tres, 1);
    __builtin_prefetch(tres + slurmctld_tres_cnt - 1, 1);
  }
}

void ListAssocs(std::vector<slurmdb_assoc_rec_t*>* assocs) {
  assocs->clear();
  assocs->reserve(static_cast<size_t>(list_count(assoc_mgr_assoc_list)));
  ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) assocs->push_back(assoc);
  list_iterator_destroy(it);
}

bool EnforcingLimits() { return (accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) != 0; }

// Adds per-TRES usage (when given) and releases run-seconds, per TRES except
// energy; an underflow is logged and floored at 0. Only under
// AccountingStorageEnforce=limits, as in multifactor's
// _apply_new_usage (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
void HandleTresRunSecs(const char* what, uint32_t id, uint32_t job_id,
                       long double* usage_tres_raw, uint64_t* run_secs,
                       const std::vector<long double>* tres_usage,
                       const std::vector<uint64_t>& tres_release) {
  if (!EnforcingLimits()) return;
  for (int i = 0; i < slurmctld_tres_cnt; ++i) {
    if (i == TRES_ARRAY_ENERGY) continue;
    if (tres_usage && static_cast<size_t>(i) < tres_usage->size()) {
      usage_tres_raw[i] += (*tres_usage)[i];
    }
    uint64_t release = static_cast<size_t>(i) < tres_release.size() ? tres_release[i] : 0;
    if (release > run_secs[i]) {
      LogError("job %u: %s %u TRES %s grp_used_tres_run_secs underflow, tried to remove %llu "
               "seconds when only %llu remained", job_id, what, id,
               assoc_mgr_tres_name_array ? assoc_mgr_tres_name_array[i] : "?",
               static_cast<unsigned long long>(release),
               static_cast<unsigned long long>(run_secs[i]));
      run_secs[i] = 0;
    } else {
      run_secs[i] -= release;
    }
  }
}

void ChargeQos(slurmdb_qos_rec_t* qos, uint32_t job_id, const JobCharge& charge) {
  bool no_decay = qos->flags & QOS_FLAG_NO_DECAY;
  qos->usage->grp_used_wall += no_decay ? charge.run_nodecay_s : charge.run_decay_s;
  qos->usage->usage_raw += static_cast<long double>(no_decay ? charge.real_nodecay : charge.real_decay);
  HandleTresRunSecs("QOS", qos->id, job_id, qos->usage->usage_tres_raw,
                    qos->usage->grp_used_tres_run_secs,
                    no_decay ? &charge.tres_run_nodecay : &charge.tres_run_decay,
                    charge.tres_run_delta);
}

// The job's QOS and, when different, its partition's QOS.
slurmdb_qos_rec_t* PartitionQos(const job_record_t* job) {
  if (job->part_ptr && job->part_ptr->qos_ptr != job->qos_ptr) return job->part_ptr->qos_ptr;
  return nullptr;
}

// Planned use: accrue mode charges the slice's undecayed billing-seconds;
// start mode charges billing x time limit once, with the job's first slice.
// Neither charges again what the ledger loaded at start already holds.
void ChargeLedger(const job_record_t* job, const JobChargeInput& in, const JobCharge& charge,
                  const PluginConfig& config) {
  const time_t charged_until = PlannedUseLedgerChargedUntil();
  long double amount = 0;
  if (config.params.planned_use_charge == PlannedUseCharge::kAccrue) {
    const time_t slice_start = job->start_time > in.start_period ? job->start_time : in.start_period;
    amount = PlannedUseChargeAfter(charge.real_nodecay, slice_start,
                                   slice_start + static_cast<time_t>(charge.run_delta_s),
                                   charged_until);
  } else if (job->start_time >= in.start_period && job->start_time >= charged_until &&
             job->time_limit != INFINITE && job->time_limit != NO_VAL) {
    double factor = in.has_qos && in.qos_usage_factor >= 0 ? in.qos_usage_factor : 1.0;
    amount = static_cast<long double>(in.billable_tres) * job->time_limit * 60.0L * factor;
  }
  if (amount <= 0) return;
  uint32_t path[64];
  int n = 0;
  for (const slurmdb_assoc_rec_t* a = job->assoc_ptr; a && n < 64; a = a->usage->parent_assoc_ptr) {
    path[n++] = a->id;
  }
  ChargePlannedUse(path, n, amount);
}

}  // namespace

void ApplyDecay(double real_decay) {
  auto config = CurrentConfig();
  if (!config->calc_fairshare || real_decay == 1.0) return;
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  std::vector<slurmdb_assoc_rec_t*> assocs;  // a few thousand: malloc, not mapped
  ListAssocs(&assocs);
  const size_t count = assocs.size();
  for (size_t i = 0; i < count; ++i) {
    if (i + kPrefetchAssocsAhead < count) PrefetchAssoc(assocs[i + kPrefetchAssocsAhead]);
    if (i + kPrefetchUsageAhead < count) PrefetchUsage(assocs[i + kPrefetchUsageAhead]->usage);
    if (i + kPrefetchTresAhead < count) PrefetchTres(assocs[i + kPrefetchTresAhead]->usage);
    slurmdb_assoc_rec_t* assoc = assocs[i];
    ScaleUsage(assoc->usage, real_decay);
    if (assoc->leaf_usage && assoc->leaf_usage != assoc->usage) {
      ScaleUsage(assoc->leaf_usage, real_decay);
    }
  }
  ListIterator it = list_iterator_create(assoc_mgr_qos_list);
  while (auto* qos = static_cast<slurmdb_qos_rec_t*>(list_next(it))) {
    if (qos->flags & QOS_FLAG_NO_DECAY) continue;
    qos->usage->usage_raw *= real_decay;
    for (int i = 0; i < slurmctld_tres_cnt; ++i) qos->usage->usage_tres_raw[i] *= real_decay;
    qos->usage->grp_used_wall *= real_decay;
  }
  list_iterator_destroy(it);
  assoc_mgr_unlock(&locks);
}

void ResetUsage() {
  auto config = CurrentConfig();
  if (!config->calc_fairshare) return;
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    ZeroUsage(&assoc->usage->usage_raw, assoc->usage->usage_tres_raw,
              &assoc->usage->grp_used_wall);
    if (assoc->leaf_usage && assoc->leaf_usage != assoc->usage) {
      slurmdb_destroy_assoc_usage(assoc->leaf_usage);
      assoc->leaf_usage = nullptr;
    }
  }
  list_iterator_destroy(it);
  it = list_iterator_create(assoc_mgr_qos_list);
  while (auto* qos = static_cast<slurmdb_qos_rec_t*>(list_next(it))) {
    ZeroUsage(&qos->usage->usage_raw, qos->usage->usage_tres_raw, &qos->usage->grp_used_wall);
  }
  list_iterator_destroy(it);
  assoc_mgr_unlock(&locks);
  LogInfo("usage of every association and QOS was reset (PriorityUsageResetPeriod)");
}

bool ShouldChargePeriodically(const job_record_t* job, const PluginConfig& config) {
  if (IS_JOB_FINISHED(job) || IS_JOB_COMPLETING(job)) return false;
  bool eligible = (config.params.flags & kFlagCalculateRunning) || !IS_JOB_PENDING(job);
  return eligible && !IS_JOB_POWER_UP_NODE(job) && job->start_time && job->assoc_ptr;
}

bool ChargeJob(job_record_t* job, time_t start_period, time_t end_period, bool adjust_for_end,
               const PluginConfig& config) {
  // end_time_exp == NO_VAL: the end was charged already (acct_policy relies
  // on this marker too).
  if (job->end_time_exp == static_cast<time_t>(NO_VAL)) return false;
  JobChargeInput in;
  in.start_period = start_period;
  in.end_period = end_period;
  in.adjust_for_end = adjust_for_end;
  in.start_time = job->start_time;
  in.end_time = job->end_time;
  in.end_time_exp = job->end_time_exp;
  in.time_limit_min = job->time_limit;
  in.finished_or_completing = IS_JOB_FINISHED(job) || IS_JOB_COMPLETING(job) || IS_JOB_RESIZING(job);
  if (adjust_for_end) job->end_time_exp = static_cast<time_t>(NO_VAL);
  if (job->tres_alloc_cnt) {
    in.tres_alloc.assign(job->tres_alloc_cnt, job->tres_alloc_cnt + slurmctld_tres_cnt);
  }

  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  locks.tres = READ_LOCK;
  assoc_mgr_lock(&locks);
  time_t billing_start = job->start_time > start_period ? job->start_time : start_period;
  in.billable_tres = calc_job_billable_tres(job, billing_start, true);
  slurmdb_qos_rec_t* qos = job->qos_ptr;
  in.has_qos = qos != nullptr;
  if (qos) in.qos_usage_factor = qos->usage_factor;
  JobCharge charge = ComputeJobCharge(in, config.decay_factor_per_second, NO_CONSUME_VAL64);

  if (qos) ChargeQos(qos, job->job_id, charge);
  if (slurmdb_qos_rec_t* part_qos = PartitionQos(job)) ChargeQos(part_qos, job->job_id, charge);
  // Every association up to and including the root, so the root holds the
  // whole cluster's usage.
  for (slurmdb_assoc_rec_t* assoc = job->assoc_ptr; assoc; assoc = assoc->usage->parent_assoc_ptr) {
    assoc->usage->grp_used_wall += charge.run_decay_s;
    assoc->usage->usage_raw += static_cast<long double>(charge.real_decay);
    HandleTresRunSecs("assoc", assoc->id, job->job_id, assoc->usage->usage_tres_raw,
                      assoc->usage->grp_used_tres_run_secs, &charge.tres_run_decay,
                      charge.tres_run_delta);
  }
  if (config.params.Mode() == FairshareMode::kPlannedUse) ChargeLedger(job, in, charge, config);
  assoc_mgr_unlock(&locks);
  LogPrio("job %u charged %.0f s x %.2f billing = %.2f (decayed)", job->job_id,
          charge.run_delta_s, in.billable_tres, charge.real_decay);
  return true;
}

void InitGrpUsedTresRunSecs(time_t last_ran) {
  if (!(slurm_conf.accounting_storage_enforce & ACCOUNTING_ENFORCE_LIMITS)) return;
  if (!job_list || !list_count(job_list)) return;
  slurmctld_lock_t job_read_lock = {NO_LOCK, READ_LOCK, NO_LOCK, NO_LOCK, NO_LOCK};
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  locks.tres = READ_LOCK;
  lock_slurmctld(job_read_lock);
  ListIterator it = list_iterator_create(job_list);
  assoc_mgr_lock(&locks);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (job->end_time_exp == static_cast<time_t>(NO_VAL)) continue;
    if (!IS_JOB_RUNNING(job) || job->start_time > last_ran || !job->tres_alloc_cnt) continue;
    double usage_factor = 1.0;
    if (job->qos_ptr && job->qos_ptr->usage_factor >= 0) usage_factor = job->qos_ptr->usage_factor;
    usage_factor *= static_cast<double>(last_ran - job->start_time);
    std::vector<uint64_t> release(slurmctld_tres_cnt, 0);
    for (int i = 0; i < slurmctld_tres_cnt; ++i) {
      if (job->tres_alloc_cnt[i] == NO_CONSUME_VAL64) continue;
      release[i] = static_cast<uint64_t>(job->tres_alloc_cnt[i] * usage_factor);
    }
    if (job->qos_ptr) {
      HandleTresRunSecs("QOS", job->qos_ptr->id, job->job_id, job->qos_ptr->usage->usage_tres_raw,
                        job->qos_ptr->usage->grp_used_tres_run_secs, nullptr, release);
    }
    if (slurmdb_qos_rec_t* part_qos = PartitionQos(job)) {
      HandleTresRunSecs("QOS", part_qos->id, job->job_id, part_qos->usage->usage_tres_raw,
                        part_qos->usage->grp_used_tres_run_secs, nullptr, release);
    }
    for (slurmdb_assoc_rec_t* a = job->assoc_ptr; a; a = a->usage->parent_assoc_ptr) {
      HandleTresRunSecs("assoc", a->id, job->job_id, a->usage->usage_tres_raw,
                        a->usage->grp_used_tres_run_secs, nullptr, release);
    }
  }
  assoc_mgr_unlock(&locks);
  list_iterator_destroy(it);
  unlock_slurmctld(job_read_lock);
}

}  // namespace fairway::plugin
