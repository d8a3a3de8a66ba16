// SPDX-License-Identifier: GPL-2.0-or-later
#include "usage_bootstrap_bridge.h"

#include <unistd.h>

#include <map>
#include <vector>

#include "assoc_bridge.h"
#include "planned_use.h"
#include "planned_use_state.h"
#include "plugin_log.h"
#include "tres_counts.h"
#include "usage_bootstrap.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

bool g_told_no_connection = false;  // decay thread only

struct FetchedJob {
  JobUsageRecord usage;                 // billing
  std::map<uint32_t, uint64_t> tres;    // per TRES id
};

bool FetchJobs(time_t since, time_t now, std::vector<FetchedJob>* jobs) {
  slurmdb_job_cond_t cond{};
  cond.usage_start = since;
  cond.usage_end = now;
  cond.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC;
  cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;  // 0 would select only jobs without flags
  cond.cluster_list = list_create(nullptr);
  list_append(cond.cluster_list, slurm_conf.cluster_name);
  List list = jobacct_storage_g_get_jobs_cond(acct_db_conn, getuid(), &cond);
  FREE_NULL_LIST(cond.cluster_list);
  if (!list) return false;
  size_t unreadable = 0;
  ListIterator it = list_iterator_create(list);
  while (auto* job = static_cast<slurmdb_job_rec_t*>(list_next(it))) {
    if (!job->start || !job->associd) continue;
    FetchedJob f;
    if (!ParseTresCounts(job->tres_alloc_str ? job->tres_alloc_str : "", &f.tres)) {
      ++unreadable;
      continue;
    }
    f.usage.assoc_id = job->associd;
    f.usage.start = job->start;
    f.usage.end = job->end;
    f.usage.billing = AllocationBilling(f.tres);
    jobs->push_back(std::move(f));
  }
  list_iterator_destroy(it);
  FREE_NULL_LIST(list);
  if (unreadable) {
    LogError("usage bootstrap: %zu job records with an unreadable tres_alloc were skipped",
             unreadable);
  }
  return true;
}

}  // namespace

bool UsageBootstrapWanted(const PluginConfig& config, bool usage_missing) {
  if (!config.calc_fairshare) return false;
  switch (config.params.usage_bootstrap) {
    case UsageBootstrap::kOff: return false;
    case UsageBootstrap::kForce: return true;
    case UsageBootstrap::kAuto: return usage_missing;
  }
  return false;
}

BootstrapResult RunUsageBootstrap(time_t now, time_t configured_last_reset,
                                  const PluginConfig& config, bool replace, bool retry) {
  const Params& p = config.params;
  const bool force = replace || p.usage_bootstrap == UsageBootstrap::kForce;
  if (!acct_db_conn) {
    // No accounting connection at all (none configured, or none yet).
    if (!g_told_no_connection) {
      g_told_no_connection = true;
      LogError("usage bootstrap: slurmctld has no accounting connection; usage is not rebuilt "
               "from slurmdbd until it has one (each decay pass checks)");
    }
    return BootstrapResult::kRetryLater;
  }
  // Usage counts since the configured reset (all history without one);
  // with decay, older usage weighs under 0.1% after ten half-lives.
  time_t since = configured_last_reset > 0 ? configured_last_reset : 1;
  if (p.decay_half_life_s > 0 && now - 10 * p.decay_half_life_s > since) {
    since = now - 10 * p.decay_half_life_s;
  }
  std::vector<FetchedJob> fetched;
  if (!FetchJobs(since, now, &fetched)) {
    if (!retry) {
      LogError("usage bootstrap: slurmdbd returned no job records (is it reachable?); usage "
               "starts from what slurmctld has, and every decay pass retries until slurmdbd "
               "answers");
    }
    return BootstrapResult::kRetryLater;
  }
  std::vector<JobUsageRecord> jobs;
  jobs.reserve(fetched.size());
  for (const FetchedJob& f : fetched) jobs.push_back(f.usage);

  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  locks.tres = READ_LOCK;
  assoc_mgr_lock(&locks);
  AssocSnapshot snapshot;
  if (!SnapshotAssocs(p.Mode(), &snapshot)) {
    assoc_mgr_unlock(&locks);
    LogError("usage bootstrap: no association tree; skipped");
    return BootstrapResult::kNotNeeded;
  }
  const AssocTree& tree = snapshot.tree;
  if (!force) {
    for (const AssocNode& n : tree.nodes()) {
      if (n.usage_raw > 0) {
        assoc_mgr_unlock(&locks);
        LogInfo("usage bootstrap: slurmctld already has usage; nothing overwritten "
                "(usage_bootstrap=force rebuilds it anyway)");
        return BootstrapResult::kNotNeeded;
      }
    }
  }
  const double f = config.decay_factor_per_second;
  std::vector<long double> usage = SubtreeUsage(tree, DecayedUsageByAssoc(jobs, now, f));
  // Per-TRES usage (GrpTRESMins limits) the same way, TRES by TRES.
  std::vector<std::vector<long double>> tres_usage(slurmctld_tres_cnt);
  const bool limits = accounting_enforce & ACCOUNTING_ENFORCE_LIMITS;
  for (int t = 0; limits && t < slurmctld_tres_cnt; ++t) {
    const uint32_t tres_id = assoc_mgr_tres_array[t]->id;
    std::vector<JobUsageRecord> per_tres;
    for (const FetchedJob& job : fetched) {
      auto it = job.tres.find(tres_id);
      if (it == job.tres.end() || tres_id == TRES_ENERGY) continue;
      JobUsageRecord r = job.usage;
      r.billing = static_cast<double>(it->second);
      per_tres.push_back(r);
    }
    tres_usage[t] = SubtreeUsage(tree, DecayedUsageByAssoc(per_tres, now, f));
  }
  size_t rebuilt = 0;
  for (size_t i = 0; i < snapshot.records.size(); ++i) {
    slurmdb_assoc_usage_t* u = snapshot.records[i]->usage;
    u->usage_raw = usage[i];
    if (usage[i] > 0) ++rebuilt;
    for (int t = 0; limits && t < slurmctld_tres_cnt; ++t) u->usage_tres_raw[t] = tres_usage[t][i];
  }
  const long double root_usage = usage[tree.root()];
  if (p.Mode() == FairshareMode::kPlannedUse) {
    PlannedUseLedger ledger =
        LedgerFromJobs(tree, jobs, now, p.planned_use_interval_s,
                       PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
    if (ReplacePlannedUseLedgerIfEmpty(std::move(ledger), force)) {
      LogInfo("usage bootstrap: planned-use ledger rebuilt from the same jobs");
    }
  }
  assoc_mgr_unlock(&locks);
  // Error level: usage was lost and replaced; the site should know.
  LogError("usage bootstrap: rebuilt the usage of %zu associations from %zu jobs in slurmdbd "
           "since %lld%s (cluster usage %.0Lf billing-seconds)%s",
           rebuilt, jobs.size(), static_cast<long long>(since),
           since == 1 ? " (all history)" : "", root_usage,
           retry ? ", now that slurmdbd answers" : "");
  return BootstrapResult::kRebuilt;
}

}  // namespace fairway::plugin
