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

// A hash of what must not have changed between computing and storing for a
// computed priority to still be right (a changed job is recomputed under the
// write lock). Anything else a job update changes goes through
// priority_p_set, which recomputes under the caller's lock.
uint64_t FingerprintOf(const job_record_t* job) {
  const job_details* d = job->details;
  const uint64_t fields[] = {
      job->job_state,
      job->priority,
      job->direct_set_prio,
      d ? d->nice : 0u,
      job->site_factor,
      job->time_limit,
      job->total_cpus,
      d ? d->min_nodes : 0u,
      static_cast<uint64_t>(d ? d->accrue_time : 0),
      reinterpret_cast<uintptr_t>(job->part_ptr),
      reinterpret_cast<uintptr_t>(job->part_ptr_list),
      reinterpret_cast<uintptr_t>(job->qos_ptr),
      reinterpret_cast<uintptr_t>(job->assoc_ptr),
  };
  // One multiply-xorshift per field: this runs twice per pending job per
  // pass, so a byte-wise hash would cost more than the priority itself.
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  for (uint64_t v : fields) {
    hash = (hash ^ v) * 0xbf58476d1ce4e5b9ull;
    hash ^= hash >> 31;
  }
  return hash;
}

// One job's computed result, kept compact: a pass holds one per pending job
// (tens of thousands), so TRES values and partition priorities live in
// shared arenas rather than per-job vectors.
struct PassRecord {
  job_record_t* job = nullptr;
  // Where the store reads and writes besides the record itself, kept only
  // to prefetch: by then the job may be gone, and a prefetch of freed
  // memory is harmless where a read would not be.
  const void* details = nullptr;
  const void* prio_factors = nullptr;
  uint64_t fingerprint = 0;
  uint32_t job_id = 0;
  uint32_t priority = 0;
  uint32_t site = 0, nice = 0;
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t tres_offset = 0, part_offset = 0;
  uint16_t part_count = 0;
  bool operator_set = false;  // direct_set_prio or no details: recompute under the lock
  bool clamped = false;
};

// Reused between passes so that a pass allocates (almost) nothing.
struct PassBuffers {
  std::vector<job_record_t*> jobs;  // job_list in order, for prefetching
  std::vector<PassRecord> records;
  std::vector<double> tres;        // weighted TRES values, tres_cnt per record
  std::vector<uint32_t> partition_priorities;
  JobInputs inputs;                // scratch for one job
  JobPriority result;              // scratch for one job
};
PassBuffers* g_buffers = nullptr;  // raw: no static destructor at exit

// A pass reads a dozen fields of each of tens of thousands of job records
// scattered over the heap: it is bound by memory latency, not arithmetic.
// The loops below ask for the cache lines of the jobs a few places ahead,
// first the record's own lines, then (once the record has arrived) the
// separate allocations it points to. Prefetches never fault.
constexpr size_t kPrefetchRecordsAhead = 16;
constexpr size_t kPrefetchPartsAhead = 8;

void PrefetchRecord(const job_record_t* job) {
  __builtin_prefetch(&job->job_id);
  __builtin_prefetch(&job->assoc_ptr);
  __builtin_prefetch(&job->details);
  __builtin_prefetch(&job->job_state);
  __builtin_prefetch(&job->part_ptr_list);
  __builtin_prefetch(&job->priority);
  __builtin_prefetch(&job->qos_ptr);
  __builtin_prefetch(&job->site_factor);
  __builtin_prefetch(&job->time_limit);
  __builtin_prefetch(&job->tres_req_cnt);
}

void PrefetchAllocations(const job_record_t* job) {
  if (const job_details* d = job->details) {
    __builtin_prefetch(&d->accrue_time);
    __builtin_prefetch(&d->nice);
    __builtin_prefetch(&d->min_nodes);
  }
  if (job->tres_req_cnt) __builtin_prefetch(job->tres_req_cnt);
  if (job->assoc_ptr) __builtin_prefetch(job->assoc_ptr->usage);
}

void PrefetchForStore(const PassRecord& r) {
  if (r.details) __builtin_prefetch(r.details, 0);
  if (r.prio_factors) __builtin_prefetch(r.prio_factors, 1);
}

bool Eligible(const job_record_t* job, bool running_too) {
  if (job->priority == 0 || IS_JOB_POWER_UP_NODE(job)) return false;
  return IS_JOB_PENDING(job) || running_too;
}

StoredFactors StoredOf(const PassRecord& r, const PassBuffers& b, uint32_t tres_cnt) {
  StoredFactors s;
  s.age = r.age;
  s.assoc = r.assoc;
  s.fairshare = r.fairshare;
  s.job_size = r.job_size;
  s.partition = r.partition;
  s.qos = r.qos;
  s.site = r.site;
  s.nice = r.nice;
  s.tres = tres_cnt ? &b.tres[r.tres_offset] : nullptr;
  s.tres_cnt = tres_cnt;
  s.partition_priorities = r.part_count ? &b.partition_priorities[r.part_offset] : nullptr;
  s.partition_count = r.part_count;
  s.priority = r.priority;
  s.clamped = r.clamped;
  return s;
}

}  // namespace

void RunPriorityPass(time_t now) {
  if (!job_list) return;
  auto config = CurrentConfig();
  const bool incr_only = config->params.flags & kFlagIncrOnly;
  const bool running_too = config->params.flags & kFlagCalculateRunning;
  const uint32_t tres_cnt = static_cast<uint32_t>(config->params.weight_tres.size());
  if (!g_buffers) g_buffers = new PassBuffers();
  PassBuffers& b = *g_buffers;
  b.records.clear();
  b.tres.clear();
  b.partition_priorities.clear();
  const ClusterInputs cluster{cluster_cpus, static_cast<uint32_t>(node_record_count)};

  // 1. Gather and compute under read locks: queries keep running; only
  //    writers wait.
  slurmctld_lock_t read_lock = {NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  assoc_mgr_lock_t assoc_read = {};
  assoc_read.assoc = READ_LOCK;
  assoc_read.qos = READ_LOCK;
  lock_slurmctld(read_lock);
  assoc_mgr_lock(&assoc_read);
  b.jobs.clear();
  ListIterator it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) b.jobs.push_back(job);
  list_iterator_destroy(it);
  const size_t job_count = b.jobs.size();
  for (size_t i = 0; i < job_count; ++i) {
    if (i + kPrefetchRecordsAhead < job_count) PrefetchRecord(b.jobs[i + kPrefetchRecordsAhead]);
    if (i + kPrefetchPartsAhead < job_count) PrefetchAllocations(b.jobs[i + kPrefetchPartsAhead]);
    job_record_t* job = b.jobs[i];
    if (!Eligible(job, running_too)) continue;
    PassRecord r;
    r.job = job;
    r.details = job->details;
    r.prio_factors = job->prio_factors;
    r.job_id = job->job_id;
    r.fingerprint = FingerprintOf(job);
    r.operator_set = (job->direct_set_prio && job->priority > 0) || !job->details;
    if (!r.operator_set) {
      GatherJobInputs(job, *config, &b.inputs);
      ComputeJobPriorityInto(b.inputs, config->params, cluster, now, &b.result);
      const PriorityFactors& w = b.result.weighted;
      r.priority = b.result.priority;
      r.clamped = b.result.clamped;
      r.site = w.site;
      r.nice = w.nice;
      r.age = w.age;
      r.assoc = w.assoc;
      r.fairshare = w.fairshare;
      r.job_size = w.job_size;
      r.partition = w.partition;
      r.qos = w.qos;
      r.tres_offset = static_cast<uint32_t>(b.tres.size());
      b.tres.insert(b.tres.end(), w.tres.begin(), w.tres.end());
      b.tres.resize(r.tres_offset + tres_cnt, 0.0);
      r.part_offset = static_cast<uint32_t>(b.partition_priorities.size());
      r.part_count = static_cast<uint16_t>(b.result.partition_priorities.size());
      b.partition_priorities.insert(b.partition_priorities.end(),
                                    b.result.partition_priorities.begin(),
                                    b.result.partition_priorities.end());
    }
    b.records.push_back(r);
  }
  assoc_mgr_unlock(&assoc_read);
  unlock_slurmctld(read_lock);

  // 2. Store under the write lock; recompute any job that changed meanwhile.
  size_t recomputed = 0;
  const time_t stored_at = time(nullptr);
  slurmctld_lock_t write_lock = {NO_LOCK, WRITE_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  lock_slurmctld(write_lock);
  const size_t record_count = b.records.size();
  for (size_t i = 0; i < record_count; ++i) {
    if (i + kPrefetchRecordsAhead < record_count) {
      PrefetchRecord(b.records[i + kPrefetchRecordsAhead].job);
    }
    if (i + kPrefetchPartsAhead < record_count) PrefetchForStore(b.records[i + kPrefetchPartsAhead]);
    const PassRecord& r = b.records[i];
    job_record_t* job = find_job_record(r.job_id);
    if (job != r.job || !Eligible(job, running_too)) continue;
    uint32_t priority;
    if (r.operator_set || FingerprintOf(job) != r.fingerprint) {
      priority = ComputeAndStoreJobPriority(job, now, *config);  // also zeroes operator-set factors
      recomputed += !r.operator_set;
    } else {
      StoreJobFactors(job, StoredOf(r, b, tres_cnt), *config);
      priority = r.priority;
    }
    if (!incr_only || job->priority < priority) {
      job->priority = priority;
      last_job_update = stored_at;
    }
  }
  unlock_slurmctld(write_lock);
  if (recomputed) {
    LogPrio("%zu of %zu jobs changed during the pass and were recomputed", recomputed,
            b.records.size());
  }
}

void ReleasePriorityPassBuffers() {
  delete g_buffers;
  g_buffers = nullptr;
}

}  // namespace fairway::plugin
