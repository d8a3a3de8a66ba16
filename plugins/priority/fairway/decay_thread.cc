// SPDX-License-Identifier: GPL-2.0-or-later
#include "decay_thread.h"

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "assoc_bridge.h"
#include "decay.h"
#include "job_bridge.h"
#include "plugin_config.h"
#include "planned_use_state.h"
#include "plugin_log.h"
#include "priority_pass.h"
#include "state_file.h"
#include "state_recovery.h"
#include "usage_bootstrap_bridge.h"
#include "usage_bridge.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

// g_mutex guards the three fields below it and is held only for them and
// the sleep between passes, never across a pass: slurmctld calls
// priority_p_reconfig and fini while holding its own locks (setdebugflags
// holds the job read lock), and a pass waits for those locks.
std::mutex g_mutex;
std::condition_variable g_wakeup;   // fini wakes the sleeping thread
std::condition_variable g_started;  // StartDecayThread waits for the state
bool g_shutdown = false;
bool g_state_read = false;
std::thread* g_thread = nullptr;    // raw: no static destructor at exit
// Set by priority_p_reconfig, read at the start of the next pass; an atomic
// so that the caller never waits for a pass.
std::atomic<bool> g_reconfig{false};
std::atomic<time_t> g_last_ran{0};
size_t g_charged_this_pass = 0;   // jobs charged by the current pass

// CPU time of this thread, in ms: where a pass spends it, phase by phase,
// is logged at verbose so that a site (and make bench) can see it.
double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// The decay thread's CPU per phase of the current pass (ms).
struct PassCpu {
  double decay = 0, find = 0, charge = 0, fairshare = 0, priority = 0, state = 0;
};
PassCpu g_pass_cpu;

// site_factor/none, Slurm's default, updates nothing: the pass then needs
// no job write lock for it.
bool SiteFactorPluginUpdates() {
  const char* plugin = slurm_conf.site_factor_plugin;
  return plugin && std::strcmp(plugin, "site_factor/none") != 0;
}

bool IsClassicFamily(FairshareMode mode) {
  return mode == FairshareMode::kClassic || mode == FairshareMode::kDepthOblivious;
}

// Applies PriorityUsageResetPeriod; returns the updated reset state.
void HandleReset(ResetPeriod* period, time_t* last_reset, time_t* next_reset, time_t now) {
  switch (*period) {
    case ResetPeriod::kNone:
      return;
    case ResetPeriod::kNow:
      ResetUsage();
      *period = ResetPeriod::kNone;
      *last_reset = now;
      return;
    default:
      if (*next_reset == 0) *next_reset = NextResetTime(*period, *last_reset, now);
      if (*next_reset && now >= *next_reset) {
        ResetUsage();
        *last_reset = *next_reset;
        *next_reset = NextResetTime(*period, *last_reset, now);
      }
  }
}

void RunPass(time_t start_time, ResetPeriod* reset_period, time_t* last_reset,
             time_t* next_reset) {
  auto config = CurrentConfig();
  HandleReset(reset_period, last_reset, next_reset, start_time);
  const time_t last_ran = g_last_ran.load();
  const bool classic = IsClassicFamily(config->params.Mode());
  // No state (first run) or a clock that did not advance: nothing to decay.
  // Classic modes then skip the job passes too, as multifactor does.
  const bool skip = last_ran == 0 || start_time - last_ran <= 0;
  double mark = ThreadCpuMs();
  auto lap = [&mark](double* phase) {
    const double now_ms = ThreadCpuMs();
    *phase = now_ms - mark;
    mark = now_ms;
  };
  if (!skip) {
    ApplyDecay(DecayOver(config->decay_factor_per_second, start_time - last_ran));
  }
  lap(&g_pass_cpu.decay);
  if (skip && classic) {
    // Nothing to charge and, as in multifactor, no priorities: fairshare only.
    lap(&g_pass_cpu.charge);
    RecomputeFairshare();
    lap(&g_pass_cpu.fairshare);
    return;
  }
  const bool planned_use = config->params.Mode() == FairshareMode::kPlannedUse;
  // The ledger must be in memory before the charge adds to it.
  if (planned_use) LoadPlannedUseLedger();
  if (!skip && SiteFactorPluginUpdates()) UpdateSiteFactors();
  // Charging needs the running jobs and the priorities the pending ones:
  // one finding of the job records (by id, or by a walk over the list: see
  // job_roster.h) serves both, under one hold of the job READ lock.
  // Fairshare is recomputed in between, from the usage just charged. Without a decay
  // clock Fair Tree still charges, from each job's start (last_ran 0).
  RunPriorityPass(start_time, [&](const JobPointers& jobs) {
    lap(&g_pass_cpu.find);  // the job records, by id or by a walk over the list
    g_charged_this_pass = ChargeListedJobs(jobs, last_ran, start_time, *config);
    lap(&g_pass_cpu.charge);
    if (planned_use) RollPlannedUseLedger(start_time, *config);
    RecomputeFairshare();
    lap(&g_pass_cpu.fairshare);
  });
  // Written after the locks are released: file I/O under the job lock
  // would keep job writers waiting on the disk.
  if (planned_use) SavePlannedUseLedger();
  lap(&g_pass_cpu.priority);
}

void ThreadMain() {
  pthread_setname_np(pthread_self(), "fw_decay");
  time_t start_time = time(nullptr);
  auto config = CurrentConfig();
  ResetPeriod reset_period = config->params.reset_period;
  time_t next_reset = 0;
  // Read before anything of ours runs, and while slurmctld waits in our
  // init: assoc_mgr rewrites assoc_usage on its next state save.
  const RecoveryDecision recovery = RecoverDecayState(reset_period, start_time);
  g_last_ran = recovery.charge_from;
  time_t last_reset = recovery.last_reset ? recovery.last_reset : start_time;
  bool bootstrap_pending = UsageBootstrapWanted(*config, recovery.rebuild_usage);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_state_read = true;
  }
  g_started.notify_all();
  InitGrpUsedTresRunSecs(g_last_ran.load());
  // The ledger must be in memory before the first charge (a pass or a job
  // end), or loading it later would drop those charges.
  if (config->params.Mode() == FairshareMode::kPlannedUse) LoadPlannedUseLedger();
  // The rebuild reaches back to the reset the configuration implies, not
  // to a last_reset that may have come from a lost clock.
  auto try_bootstrap = [&](time_t now, bool retry) {
    switch (RunUsageBootstrap(now, LastResetBoundary(reset_period, now), *config,
                              recovery.rebuild_usage, retry)) {
      case BootstrapResult::kRebuilt:
        // Everything up to now is counted: charge running jobs from here on.
        g_last_ran = now;
        bootstrap_pending = false;
        break;
      case BootstrapResult::kNotNeeded:
        bootstrap_pending = false;
        break;
      case BootstrapResult::kRetryLater:
        break;
    }
  };
  if (bootstrap_pending) try_bootstrap(start_time, false);

  // The deadline advances on a fixed cadence from the thread's start, on the
  // monotonic clock: a wall clock set back must not stall the passes (with
  // a system_clock deadline the thread would wait until the clock caught up).
  auto deadline = std::chrono::steady_clock::now();
  for (;;) {
    if (g_reconfig.exchange(false)) {
      reset_period = CurrentConfig()->params.reset_period;
      next_reset = 0;
    }
    config = CurrentConfig();
    g_charged_this_pass = 0;
    g_pass_cpu = PassCpu{};
    const time_t reset_before = last_reset;
    // A rebuild that found no slurmdbd is retried by every pass until
    // slurmdbd answers.
    if (bootstrap_pending) try_bootstrap(start_time, true);
    try {
      RunPass(start_time, &reset_period, &last_reset, &next_reset);
    } catch (const std::exception& e) {
      LogError("decay pass failed: %s", e.what());
    }
    g_last_ran = start_time;
    const double state_start = ThreadCpuMs();
    WriteDecayState(DecayState{start_time, last_reset});
    // Then save the usage this pass charged: slurmctld writes assoc_usage
    // only every few minutes, so a crash would lose more than one pass.
    // In this order a crash in between loses at most one pass and never
    // charges one twice.
    // Only when the pass charged jobs or reset usage: decay alone loses
    // nothing if a crash replays it from the older state.
    if (config->calc_fairshare && (g_charged_this_pass > 0 || last_reset != reset_before)) {
      dump_assoc_mgr_state();
    }
    g_pass_cpu.state = ThreadCpuMs() - state_start;
    const PassCpu& c = g_pass_cpu;
    LogVerbose("decay pass CPU %.3f ms: decay %.3f, find %.3f, charge %.3f, fairshare %.3f, "
               "priority %.3f, state %.3f",
               c.decay + c.find + c.charge + c.fairshare + c.priority + c.state, c.decay, c.find,
               c.charge, c.fairshare, c.priority, c.state);
    deadline += std::chrono::seconds(slurm_conf.priority_calc_period);
    std::unique_lock<std::mutex> lock(g_mutex);
    if (g_wakeup.wait_until(lock, deadline, [] { return g_shutdown; })) break;
    lock.unlock();
    start_time = time(nullptr);
  }
}

}  // namespace

void RecomputeFairshare() {
  auto config = CurrentConfig();
  if (!config->calc_fairshare) return;
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  AssocSnapshot snapshot;
  if (SnapshotAssocs(config->params.Mode(), &snapshot)) {
    FairshareResults results;
    if (config->params.Mode() == FairshareMode::kPlannedUse) {
      results.mode = FairshareMode::kPlannedUse;
      ComputePlannedUseFairshare(snapshot.tree, *config, &results);
    } else {
      results = ComputeFairshare(snapshot.tree, config->params);
    }
    WriteFairshare(snapshot, results);
  }
  assoc_mgr_unlock(&locks);
}

void UpdateSiteFactors() {
  slurmctld_lock_t job_write_lock = {NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK};
  lock_slurmctld(job_write_lock);
  site_factor_g_update();
  unlock_slurmctld(job_write_lock);
}

size_t ChargeListedJobs(const JobPointers& jobs, time_t start_period, time_t now,
                        const PluginConfig& config) {
  // One cache miss per job record: ask for the state's line a few jobs ahead.
  constexpr size_t kPrefetchAhead = 8;
  size_t charged = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i + kPrefetchAhead < jobs.size()) __builtin_prefetch(&jobs[i + kPrefetchAhead]->job_state);
    if (ShouldChargePeriodically(jobs[i], config)) {
      charged += ChargeJob(jobs[i], start_period, now, false, config);
    }
  }
  return charged;
}

void StartDecayThread() {
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_thread) return;
  g_shutdown = false;
  g_state_read = false;
  g_thread = new std::thread(ThreadMain);
  g_started.wait(lock, [] { return g_state_read; });
}

void StopDecayThread() {
  std::thread* thread = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_shutdown = true;
    thread = g_thread;
    g_thread = nullptr;
  }
  g_wakeup.notify_all();
  if (thread) {
    thread->join();
    delete thread;
  }
}

void RequestReconfig() { g_reconfig = true; }

time_t LastDecayRan() { return g_last_ran.load(); }

}  // namespace fairway::plugin
