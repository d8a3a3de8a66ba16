// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority_pass.h"

#include <vector>

#include "job_bridge.h"
#include "job_priority.h"
#include "plugin_config.h"
#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

// What must not have changed between gathering and storing for a computed
// priority to still be right. Anything else a job update changes goes
// through priority_p_set, which recomputes under the caller's lock.
struct JobFingerprint {
  job_record_t* job = nullptr;
  uint32_t job_state = 0;
  uint32_t priority = 0;
  bool direct_set_prio = false;
  uint32_t nice = 0;
  uint32_t site_factor = 0;
  uint32_t time_limit = 0;
  uint32_t total_cpus = 0;
  uint32_t min_nodes = 0;
  time_t accrue_time = 0;
  const void* part_ptr = nullptr;
  const void* part_ptr_list = nullptr;
  const void* qos_ptr = nullptr;
  const void* assoc_ptr = nullptr;

  bool operator==(const JobFingerprint& o) const {
    return job == o.job && job_state == o.job_state && priority == o.priority &&
           direct_set_prio == o.direct_set_prio && nice == o.nice &&
           site_factor == o.site_factor && time_limit == o.time_limit &&
           total_cpus == o.total_cpus && min_nodes == o.min_nodes &&
           accrue_time == o.accrue_time && part_ptr == o.part_ptr &&
           part_ptr_list == o.part_ptr_list && qos_ptr == o.qos_ptr && assoc_ptr == o.assoc_ptr;
  }
};

JobFingerprint FingerprintOf(job_record_t* job) {
  JobFingerprint f;
  f.job = job;
  f.job_state = job->job_state;
  f.priority = job->priority;
  f.direct_set_prio = job->direct_set_prio;
  f.nice = job->details ? job->details->nice : 0;
  f.site_factor = job->site_factor;
  f.time_limit = job->time_limit;
  f.total_cpus = job->total_cpus;
  f.min_nodes = job->details ? job->details->min_nodes : 0;
  f.accrue_time = job->details ? job->details->accrue_time : 0;
  f.part_ptr = job->part_ptr;
  f.part_ptr_list = job->part_ptr_list;
  f.qos_ptr = job->qos_ptr;
  f.assoc_ptr = job->assoc_ptr;
  return f;
}

struct PassEntry {
  uint32_t job_id = 0;
  bool operator_set = false;  // direct_set_prio: factors zeroed, priority kept
  JobFingerprint fingerprint;
  JobInputs inputs;
  JobPriority result;
};

// Reused between passes so that a pass allocates (almost) nothing.
std::vector<PassEntry>* g_entries = nullptr;

bool Eligible(const job_record_t* job, bool running_too) {
  if (job->priority == 0 || IS_JOB_POWER_UP_NODE(job)) return false;
  return IS_JOB_PENDING(job) || running_too;
}

}  // namespace

void RunPriorityPass(time_t now) {
  if (!job_list) return;
  auto config = CurrentConfig();
  const bool incr_only = config->params.flags & kFlagIncrOnly;
  const bool running_too = config->params.flags & kFlagCalculateRunning;
  if (!g_entries) g_entries = new std::vector<PassEntry>();
  std::vector<PassEntry>& entries = *g_entries;
  size_t count = 0;

  // 1. Gather under read locks.
  slurmctld_lock_t read_lock = {NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  assoc_mgr_lock_t assoc_read = {};
  assoc_read.assoc = READ_LOCK;
  assoc_read.qos = READ_LOCK;
  lock_slurmctld(read_lock);
  assoc_mgr_lock(&assoc_read);
  ListIterator it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (!Eligible(job, running_too)) continue;
    if (count == entries.size()) entries.emplace_back();
    PassEntry& e = entries[count++];
    e.job_id = job->job_id;
    e.fingerprint = FingerprintOf(job);
    e.operator_set = (job->direct_set_prio && job->priority > 0) || !job->details;
    if (!e.operator_set) GatherJobInputs(job, *config, &e.inputs);
  }
  list_iterator_destroy(it);
  assoc_mgr_unlock(&assoc_read);
  unlock_slurmctld(read_lock);

  // 2. Compute with no lock held.
  const ClusterInputs cluster{cluster_cpus, static_cast<uint32_t>(node_record_count)};
  for (size_t i = 0; i < count; ++i) {
    PassEntry& e = entries[i];
    if (!e.operator_set) e.result = ComputeJobPriority(e.inputs, config->params, cluster, now);
  }

  // 3. Store under the write lock; recompute any job that changed meanwhile.
  size_t recomputed = 0;
  const time_t stored_at = time(nullptr);
  slurmctld_lock_t write_lock = {NO_LOCK, WRITE_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  lock_slurmctld(write_lock);
  for (size_t i = 0; i < count; ++i) {
    PassEntry& e = entries[i];
    job_record_t* job = find_job_record(e.job_id);
    if (!job || !Eligible(job, running_too)) continue;
    uint32_t priority;
    if (!(FingerprintOf(job) == e.fingerprint)) {
      priority = ComputeAndStoreJobPriority(job, now, *config);
      ++recomputed;
    } else if (e.operator_set) {
      priority = ComputeAndStoreJobPriority(job, now, *config);  // zeroes factors
    } else {
      StoreJobPriority(job, e.result, *config);
      priority = e.result.priority;
    }
    if (!incr_only || job->priority < priority) {
      job->priority = priority;
      last_job_update = stored_at;
    }
  }
  unlock_slurmctld(write_lock);
  if (recomputed) LogPrio("%zu of %zu jobs changed during the pass and were recomputed", recomputed, count);
}

void ReleasePriorityPassBuffers() {
  delete g_entries;
  g_entries = nullptr;
}

}  // namespace fairway::plugin
