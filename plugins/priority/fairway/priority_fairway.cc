// SPDX-License-Identifier: GPL-2.0-or-later
// priority/fairway: the Slurm plugin ABI. Every entry point here is a short
// wrapper that forwards to the adapter, catches every exception (nothing C++
// may unwind through slurmctld) and returns the documented safe value.
#include <cstring>
#include <exception>

#include "assoc_bridge.h"
#include "decay_thread.h"
#include "factors_list.h"
#include "fairshare.h"
#include "job_bridge.h"
#include "plugin_config.h"
#include "plugin_log.h"
#include "priority_pass.h"
#include "usage_bridge.h"
#include "slurm_api.h"

#define FAIRWAY_EXPORT __attribute__((visibility("default")))

// slurmctld's globals: defined here so the plugin also loads in clients
// (sshare) and test programs; inside slurmctld the executable's copies win.
// cluster_cpus == NO_VAL tells init() it is not inside slurmctld.
extern "C" {
FAIRWAY_EXPORT void* acct_db_conn = nullptr;
FAIRWAY_EXPORT uint32_t cluster_cpus = NO_VAL;
FAIRWAY_EXPORT List job_list = nullptr;
FAIRWAY_EXPORT time_t last_job_update = 0;
FAIRWAY_EXPORT int slurmctld_tres_cnt = 0;
FAIRWAY_EXPORT uint16_t accounting_enforce = 0;
}

extern "C" FAIRWAY_EXPORT const char plugin_name[] = "Priority FAIRWAY plugin";
extern "C" FAIRWAY_EXPORT const char plugin_type[] = "priority/fairway";
extern "C" FAIRWAY_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

namespace fp = fairway::plugin;

namespace {

bool g_client_mode = false;
bool g_site_factor_started = false;

void ReportException(const char* where, const char* what) {
  fp::LogError("%s failed: %s", where, what);
}

#define FAIRWAY_GUARD(where, fallback)            \
  catch (const std::exception& e) {               \
    ReportException(where, e.what());             \
    return fallback;                              \
  }                                               \
  catch (...) {                                   \
    ReportException(where, "unknown exception");  \
    return fallback;                              \
  }

}  // namespace

extern "C" FAIRWAY_EXPORT int init(void) {
  try {
    if (cluster_cpus == NO_VAL) {
      // A client (sshare) or test program: only priority_p_calc_fs_factor
      // is used; no thread, no job structures.
      g_client_mode = true;
      return SLURM_SUCCESS;
    }
    g_client_mode = false;
    const bool with_slurmdbd = slurm_with_slurmdbd();
    fp::LoadConfig(with_slurmdbd, true);
    if (!with_slurmdbd) {
      // No decay thread without accounting; factors are computed once so
      // that sprio has data, then on job events only (as multifactor does).
      // No decay thread exists here, so the pass's buffers are ours.
      const time_t now = time(nullptr);
      auto config = fp::CurrentConfig();
      fp::RunPriorityPass(now, [now, &config](const fp::JobPointers& jobs) {
        fp::ChargeListedJobs(jobs, 0, now, *config);
      });
    } else if (assoc_mgr_root_assoc) {
      assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
      fp::StartDecayThread();
    } else {
      // multifactor calls fatal() here when PriorityWeightFairshare is set;
      // a priority plugin must not stop the controller, so fairshare is
      // disabled with an error instead.
      if (slurm_conf.priority_weight_fs) {
        fp::LogError("no association data from the database: fairshare disabled until "
                     "slurmctld restarts with slurmdbd reachable");
      }
      fp::LoadConfig(false, false);
    }
    site_factor_plugin_init();
    g_site_factor_started = true;
    return SLURM_SUCCESS;
  }
  FAIRWAY_GUARD("init", SLURM_ERROR)
}

extern "C" FAIRWAY_EXPORT int fini(void) {
  try {
    fp::StopDecayThread();
    fp::ReleasePriorityPassBuffers();
    if (g_site_factor_started) {
      site_factor_plugin_fini();
      g_site_factor_started = false;
    }
    return SLURM_SUCCESS;
  }
  FAIRWAY_GUARD("fini", SLURM_SUCCESS)
}

extern "C" FAIRWAY_EXPORT uint32_t priority_p_set(uint32_t last_prio, job_record_t* job_ptr) {
  try {
    site_factor_g_set(job_ptr);
    fp::ForgetLastPassFactors(job_ptr->job_id);
    return fp::ComputeAndStoreJobPriority(job_ptr, time(nullptr), *fp::CurrentConfig());
  }
  // 1 is the lowest priority of a job that may run (0 would hold it).
  FAIRWAY_GUARD("priority_p_set", job_ptr && job_ptr->priority ? job_ptr->priority : 1)
}

extern "C" FAIRWAY_EXPORT void priority_p_reconfig(bool assoc_clear) {
  try {
    if (g_client_mode) return;
    fp::RequestReconfig();
    fp::LoadConfig(slurm_with_slurmdbd(), true);
    if (assoc_clear) fp::InitGrpUsedTresRunSecs(fp::LastDecayRan());
    site_factor_g_reconfig();
  }
  FAIRWAY_GUARD("priority_p_reconfig", )
}

extern "C" FAIRWAY_EXPORT void priority_p_set_assoc_usage(slurmdb_assoc_rec_t* assoc) {
  try {
    fp::SetAssocUsage(assoc, *fp::CurrentConfig());
  }
  FAIRWAY_GUARD("priority_p_set_assoc_usage", )
}

extern "C" FAIRWAY_EXPORT double priority_p_calc_fs_factor(long double usage_efctv,
                                                           long double shares_norm) {
  try {
    // The client's own FairShareDampeningFactor, read live (sshare).
    uint16_t damp = slurm_conf.fs_dampening_factor ? slurm_conf.fs_dampening_factor : 1;
    return fairway::CalcFsFactor(usage_efctv, shares_norm, damp);
  }
  FAIRWAY_GUARD("priority_p_calc_fs_factor", 0.0)
}

extern "C" FAIRWAY_EXPORT List priority_p_get_priority_factors_list(
    priority_factors_request_msg_t* req_msg, uid_t uid) {
  try {
    return fp::BuildPriorityFactorsList(req_msg, uid);
  }
  FAIRWAY_GUARD("priority_p_get_priority_factors_list", nullptr)
}

extern "C" FAIRWAY_EXPORT void priority_p_job_end(job_record_t* job_ptr) {
  try {
    fp::ChargeJob(job_ptr, fp::LastDecayRan(), time(nullptr), true, *fp::CurrentConfig());
  }
  FAIRWAY_GUARD("priority_p_job_end", )
}
