// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority_pass.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

#include "job_bridge.h"
#include "job_index.h"
#include "job_priority.h"
#include "page_allocator.h"
#include "plugin_config.h"
#include "plugin_log.h"
#include "prefetch.h"
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
  // One multiply-xorshift per field: this runs twice for every job whose
  // priority changed, so a byte-wise hash would cost more than the priority.
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  for (uint64_t v : fields) {
    hash = (hash ^ v) * 0xbf58476d1ce4e5b9ull;
    hash ^= hash >> 31;
  }
  return hash;
}

// One job's computed result, kept compact: one per pending job (tens of
// thousands) in the table sprio reads, and in the one a pass fills while it
// runs, so the TRES values and the partition priorities of multi-partition
// jobs live in a parallel array and a shared arena rather than in the
// record (64 bytes); the job id is kept only in the index, and with the
// fingerprint for the jobs the store will touch.
struct PassRecord {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t priority = 0;
  uint32_t site = 0, nice = 0;
  bool published = true;   // still the job's factors for sprio
  bool awaiting_store = false;  // changed; the store has not reached it yet
  bool clamped = false;
  bool multi_partition = false;  // has a PartitionSlice
};

// Where a multi-partition job's priorities are in partition_priorities.
struct PartitionSlice {
  uint32_t position = 0;  // of the record
  uint32_t offset = 0;
  uint32_t count = 0;
};

// The results of one pass. The pass fills one table while sprio reads the
// previous one; the store swaps them under the job write lock, and the
// table sprio no longer reads is refilled by the next pass. It is kept
// (about 100 bytes per job) rather than freed: mapping and populating the
// pages anew every pass, and unmapping them, took over a quarter of the
// pass's CPU on the benchmark machine (perf: mmap, page faults, munmap).
// Its arrays are PageVectors: one that outgrows a shrunken queue is
// given back to the system (ReserveReusing), not kept in malloc's arena.
struct PassTable {
  PageVector<PassRecord> records;
  // The weighted TRES factors of the TRES that have a weight (most of
  // Slurm's TRES have none and their factors are 0): tres_columns.size()
  // per record, in order; tres_columns are their indexes among tres_cnt.
  PageVector<double> tres;
  std::vector<uint32_t> tres_columns;
  uint32_t tres_cnt = 0;
  std::vector<PartitionSlice> partition_slices;  // by position, ascending
  std::vector<uint32_t> partition_priorities;
  // Job id -> records position. Job ids identify jobs: slurmctld does not
  // reuse one while its record exists.
  JobIndex index;
};

// A job whose new priority differs from job->priority or priority_array:
// the store writes it, after checking the job did not change meanwhile.
struct ChangedJob {
  uint32_t position = 0;  // in building.records
  uint32_t job_id = 0;
  uint64_t fingerprint = 0;
  // Where the job's record, details and factors were during the gather:
  // addresses for the store to prefetch, never read through (the job may
  // be gone by then; the store finds it by id).
  const job_record_t* record_hint = nullptr;
  const job_details* details_hint = nullptr;
  const priority_factors_object_t* factors_hint = nullptr;
};

// What a pass keeps between passes: the table sprio reads, the one the
// next pass fills, and the scratch arrays, all reused pass after pass.
struct PassBuffers {
  PassTable building;   // the decay thread's own; its contents are stale between passes
  PassTable published;  // read under the job read lock, changed under the write lock
  PageVector<ChangedJob> changed;  // building's jobs the store will write
  // job_list's records in order with their ids, kept for the next pass
  // to find them by id rather than walk the list.
  JobRoster<job_record_t> roster;
  PageVector<uint32_t> job_ids;    // building.records[i]'s job id, for the index
  PartitionFillCache partition_cache;
  // Jobs priority_p_set stored while a pass was computing: their new
  // factors replace the pass's.
  std::vector<uint32_t> set_during_pass;
  bool pass_in_progress = false;
  // Set under the job write lock once the store has begun: from then until
  // the tables are swapped, sprio reads `building` for the jobs already
  // stored (and those whose priority did not change), `published` for the
  // others, so that factors and job->priority always agree.
  bool storing = false;
  size_t next_to_store = 0;  // in changed
  JobInputs inputs;                // scratch for one job (general path)
  JobPriority result;              // scratch for one job (general path)
  FlatPartitions flat_partitions;  // this pass's partitions (flat path)
  FlatJob flat_job;                // scratch for one job (flat path)
  FlatResult flat_result;          // scratch for one job (flat path)
};
// Raw: no static destructor at exit. Atomic: the decay thread creates it
// with no lock held while sprio (job read lock) may be looking for it; what
// it points to is guarded by the job locks.
std::atomic<PassBuffers*> g_buffers{nullptr};

// A pass reads a dozen fields of each of tens of thousands of job records
// scattered over the heap: it is bound by memory latency, not arithmetic.
// The loops below ask for the cache lines of the jobs a few places ahead,
// first the record's own lines, then (once the record has arrived) the
// separate allocations it points to. Prefetches never fault.
constexpr size_t kPrefetchRecordsAhead = 16;
constexpr size_t kPrefetchPartsAhead = 8;
// The store finds each job by id (a hash lookup) before it reads the job:
// a shorter distance, as each job costs more.
constexpr size_t kPrefetchStoresAhead = 8;

// Every field the pass reads: a field left out costs a full miss per job
// (in 22.05 they lie on about ten of the record's seventeen lines; where
// the lines fall depends on the allocation, so each field is asked for).
// Not the job id: the pass has it from its roster.
FAIRWAY_PREFETCH_HELPER void PrefetchRecord(const job_record_t* job) {
  __builtin_prefetch(&job->assoc_ptr);
  __builtin_prefetch(&job->details);
  __builtin_prefetch(&job->direct_set_prio);
  __builtin_prefetch(&job->job_state);
  __builtin_prefetch(&job->part_ptr_list);
  __builtin_prefetch(&job->part_ptr);
  __builtin_prefetch(&job->priority);
  __builtin_prefetch(&job->priority_array);
  __builtin_prefetch(&job->qos_ptr);
  __builtin_prefetch(&job->site_factor);
  __builtin_prefetch(&job->time_limit);
  __builtin_prefetch(&job->total_cpus);
  __builtin_prefetch(&job->tres_req_cnt);
  __builtin_prefetch(&job->tres_alloc_cnt);
}

FAIRWAY_PREFETCH_HELPER void PrefetchAllocations(const job_record_t* job) {
  if (const job_details* d = job->details) {
    __builtin_prefetch(&d->accrue_time);
    __builtin_prefetch(&d->max_cpus);
    __builtin_prefetch(&d->min_cpus);
    __builtin_prefetch(&d->nice);
    __builtin_prefetch(&d->min_nodes);
  }
  if (job->tres_req_cnt) __builtin_prefetch(job->tres_req_cnt);
  if (job->assoc_ptr) __builtin_prefetch(job->assoc_ptr->usage);
}

// The lines the store reads and writes of a job whose priority changed:
// the record (PrefetchRecord), the details the fingerprint reads and the
// factors object sprio's fallback and the QOS usage threshold read. Only
// addresses are computed from the hints: a prefetch of memory that has
// since been freed neither faults nor reads it.
FAIRWAY_PREFETCH_HELPER void PrefetchForStore(const ChangedJob& changed) {
  __builtin_prefetch(&changed.record_hint->job_id);  // find_job_record's
  PrefetchRecord(changed.record_hint);
  if (const job_details* d = changed.details_hint) {
    __builtin_prefetch(&d->accrue_time);
    __builtin_prefetch(&d->nice);
    __builtin_prefetch(&d->min_nodes);
  }
  if (const priority_factors_object_t* f = changed.factors_hint) {
    __builtin_prefetch(f, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(f) + sizeof(*f) - 1, 1);
  }
}

bool Eligible(const job_record_t* job, bool running_too) {
  if (job->priority == 0 || IS_JOB_POWER_UP_NODE(job)) return false;
  return IS_JOB_PENDING(job) || running_too;
}

// Whether storing priority would change job->priority.
bool JobPriorityChanged(const job_record_t* job, uint32_t priority, const Params& params) {
  return PriorityAfterIncrOnly(priority, job->priority, params) != job->priority;
}

// Whether storing the result would change what the scheduler reads: the
// job's priority or a partition's entry in priority_array. (The factors
// sprio shows are served from the pass's table, see LastPassFactors.)
bool PriorityChanged(const job_record_t* job, const JobPriority& result, const Params& params) {
  if (JobPriorityChanged(job, result.priority, params)) return true;
  if (job->part_ptr_list && !result.partition_priorities.empty()) {
    if (!job->priority_array) return true;
    for (size_t i = 0; i < result.partition_priorities.size(); ++i) {
      if (job->priority_array[i] != result.partition_priorities[i]) return true;
    }
  }
  return false;
}

// A computed job's record, from either path.
template <typename Factors>
PassRecord RecordOf(const Factors& weighted, uint32_t priority, bool clamped) {
  PassRecord r;
  CopyWeightedFactors(weighted, &r);
  r.priority = priority;
  r.clamped = clamped;
  return r;
}

// Appends job's record to the table being built. Only a job the store
// will touch (its priority changed) is noted with the fingerprint that
// lets the store check it is unchanged.
void AppendRecord(job_record_t* job, uint32_t job_id, PassRecord r, bool priority_changed,
                  PassBuffers* b) {
  if (priority_changed) {
    b->changed.push_back(ChangedJob{static_cast<uint32_t>(b->building.records.size()), job_id,
                                    FingerprintOf(job), job, job->details, job->prio_factors});
    r.awaiting_store = true;
  }
  b->job_ids.push_back(job_id);
  b->building.records.push_back(r);
}

StoredFactors StoredOf(const PassRecord& r, const PassTable& t) {
  StoredFactors s;
  CopyWeightedFactors(r, &s);
  const size_t position = static_cast<size_t>(&r - t.records.data());
  const size_t stride = t.tres_columns.size();
  s.tres_cnt = t.tres_cnt;
  s.tres = stride ? &t.tres[position * stride] : nullptr;
  s.tres_columns = t.tres_columns.data();
  s.tres_values = static_cast<uint32_t>(stride);
  if (r.multi_partition) {
    const auto slice = std::lower_bound(
        t.partition_slices.begin(), t.partition_slices.end(), position,
        [](const PartitionSlice& a, size_t p) { return a.position < p; });
    if (slice != t.partition_slices.end() && slice->position == position) {
      s.partition_priorities = &t.partition_priorities[slice->offset];
      s.partition_count = slice->count;
    }
  }
  s.priority = r.priority;
  s.clamped = r.clamped;
  return s;
}

// 1. Under the job and association READ locks (queries keep running, only
// writers wait): compute every eligible job into b.building.
void GatherAndCompute(time_t now, const PluginConfig& config, PassBuffers* b) {
  const bool running_too = config.params.flags & kFlagCalculateRunning;
  const ClusterInputs cluster{cluster_cpus, static_cast<uint32_t>(node_record_count)};
  PassTable& t = b->building;
  t.records.clear();
  t.tres.clear();
  b->changed.clear();
  b->job_ids.clear();
  b->partition_cache = PartitionFillCache{};
  t.partition_priorities.clear();
  t.partition_slices.clear();
  t.tres_cnt = static_cast<uint32_t>(config.params.weight_tres.size());
  t.tres_columns = config.weighted_tres;
  b->set_during_pass.clear();
  b->pass_in_progress = true;

  // Sized once for the whole queue: growing by doubling would map and
  // copy every size on the way.
  const JobPointers& jobs = b->roster.records();  // found by RunPriorityPass
  const PageVector<uint32_t>& roster_ids = b->roster.ids();
  const size_t job_count = jobs.size();
  PageVector<uint32_t>& job_ids = b->job_ids;
  ReserveReusing(&t.records, job_count);
  ReserveReusing(&job_ids, job_count);
  ReserveReusing(&t.tres, job_count * t.tres_columns.size());
  ReleaseIfOversized(&b->changed, job_count);  // grows as needed
  // Single-partition jobs (nearly all) take the flat path: their inputs in
  // one fixed-size record, no vectors to fill, only the weighted TRES.
  // It gives the general path's results bit for bit (flat_priority.h).
  FlatWeights flat_weights;
  const bool flat_path = BuildFlatWeights(config.params, config.weighted_tres, &flat_weights);
  b->flat_partitions.Clear();
  const size_t tres_stride = t.tres_columns.size();
  for (size_t i = 0; i < job_count; ++i) {
    if (i + kPrefetchRecordsAhead < job_count) PrefetchRecord(jobs[i + kPrefetchRecordsAhead]);
    if (i + kPrefetchPartsAhead < job_count) PrefetchAllocations(jobs[i + kPrefetchPartsAhead]);
    job_record_t* job = jobs[i];
    if (!Eligible(job, running_too)) continue;
    // An operator-set priority (or a job without details) keeps what
    // priority_p_set gave it.
    if (HasOperatorSetPriority(job) || !job->details) continue;
    if (flat_path && !job->part_ptr_list) {
      GatherFlatJob(job, config, &b->flat_partitions, &b->flat_job);
      ComputeFlatPriority(b->flat_job, flat_weights, cluster, now, &b->flat_result);
      const FlatResult& f = b->flat_result;
      for (size_t k = 0; k < tres_stride; ++k) {
        t.tres.push_back(k < flat_weights.tres_columns ? f.tres[k] : 0.0);
      }
      AppendRecord(job, roster_ids[i], RecordOf(f, f.priority, f.clamped),
                   JobPriorityChanged(job, f.priority, config.params), b);
      continue;
    }
    GatherJobInputs(job, config, &b->inputs, &b->partition_cache);
    ComputeJobPriorityInto(b->inputs, config.params, cluster, now, &b->result);
    const std::vector<double>& weighted_tres = b->result.weighted.tres;
    for (uint32_t column : t.tres_columns) {
      t.tres.push_back(column < weighted_tres.size() ? weighted_tres[column] : 0.0);
    }
    PassRecord r = RecordOf(b->result.weighted, b->result.priority, b->result.clamped);
    if (!b->result.partition_priorities.empty()) {
      r.multi_partition = true;
      t.partition_slices.push_back(
          PartitionSlice{static_cast<uint32_t>(t.records.size()),
                         static_cast<uint32_t>(t.partition_priorities.size()),
                         static_cast<uint32_t>(b->result.partition_priorities.size())});
      t.partition_priorities.insert(t.partition_priorities.end(),
                                    b->result.partition_priorities.begin(),
                                    b->result.partition_priorities.end());
    }
    AppendRecord(job, roster_ids[i], r, PriorityChanged(job, b->result, config.params), b);
  }
  t.index.Assign(job_ids.data(), job_ids.size());
}

// The store takes the job write lock once per this many changed jobs (0.1 to
// 0.5 ms on the benchmark machine), not once for all: a query or
// submission then waits for one slice rather than for every job whose
// priority changed (after a restart, a third of the queue).
constexpr size_t kStoredJobsPerHold = 1000;

// 2. Under the job WRITE lock, one slice at a time: store the next jobs
// whose priority changed (a job that changed since step 1 is recomputed on
// the spot); the last slice publishes the table for sprio. Jobs whose
// priority did not change are not touched. Returns the jobs recomputed.
size_t StoreSlice(time_t now, const PluginConfig& config, PassBuffers* b) {
  const bool running_too = config.params.flags & kFlagCalculateRunning;
  PassTable& t = b->building;
  if (!b->storing) {
    b->storing = true;
    for (uint32_t job_id : b->set_during_pass) {
      const uint32_t position = t.index.Find(job_id);
      if (position != JobIndex::kNotFound) t.records[position].published = false;
    }
    b->set_during_pass.clear();
  }
  size_t recomputed = 0;
  const time_t stored_at = time(nullptr);
  const size_t end = std::min(b->next_to_store + kStoredJobsPerHold, b->changed.size());
  for (; b->next_to_store < end; ++b->next_to_store) {
    if (b->next_to_store + kPrefetchStoresAhead < end) {
      PrefetchForStore(b->changed[b->next_to_store + kPrefetchStoresAhead]);
    }
    const ChangedJob& changed = b->changed[b->next_to_store];
    PassRecord& r = t.records[changed.position];
    r.awaiting_store = false;
    job_record_t* job = find_job_record(changed.job_id);
    if (!job || !Eligible(job, running_too) || HasOperatorSetPriority(job)) {
      r.published = false;
      continue;
    }
    uint32_t priority;
    if (FingerprintOf(job) != changed.fingerprint) {
      priority = ComputeAndStoreJobPriority(job, now, config);
      r.published = false;  // the job's own factors are newer
      ++recomputed;
    } else {
      StoreJobFactors(job, StoredOf(r, t), config);
      priority = r.priority;
    }
    const uint32_t stored = PriorityAfterIncrOnly(priority, job->priority, config.params);
    if (stored != job->priority) {
      job->priority = stored;
      last_job_update = stored_at;
    }
  }
  if (b->next_to_store == b->changed.size()) {
    b->changed.clear();
    b->next_to_store = 0;
    b->storing = false;
    b->pass_in_progress = false;
    std::swap(b->building, b->published);
  }
  return recomputed;
}


}  // namespace

void RunPriorityPass(time_t now, const BeforeGather& before_gather) {
  if (!job_list) {
    if (before_gather) before_gather(JobPointers());
    return;
  }
  auto config = CurrentConfig();
  if (!g_buffers.load()) g_buffers.store(new PassBuffers());
  PassBuffers& b = *g_buffers.load();

  slurmctld_lock_t read_lock = {NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  assoc_mgr_lock_t assoc_read = {};
  assoc_read.assoc = READ_LOCK;
  assoc_read.qos = READ_LOCK;
  lock_slurmctld(read_lock);
  const bool walked = FindJobs(&b.roster);
  // Fairshare is recomputed in here: the configuration taken above predates
  // it, but a pass reads only settings from it, not fairshare.
  if (before_gather) before_gather(b.roster.records());
  const auto gather_start = std::chrono::steady_clock::now();
  assoc_mgr_lock(&assoc_read);
  GatherAndCompute(now, *config, &b);
  assoc_mgr_unlock(&assoc_read);
  unlock_slurmctld(read_lock);
  const auto gather_end = std::chrono::steady_clock::now();

  slurmctld_lock_t write_lock = {NO_LOCK, WRITE_LOCK, NO_LOCK, READ_LOCK, NO_LOCK};
  using Ms = std::chrono::duration<double, std::milli>;
  const size_t stored = b.changed.size();
  size_t recomputed = 0, holds = 0;
  double held_ms = 0, longest_hold_ms = 0;
  do {
    lock_slurmctld(write_lock);
    const auto write_start = std::chrono::steady_clock::now();
    recomputed += StoreSlice(now, *config, &b);
    const double hold_ms = Ms(std::chrono::steady_clock::now() - write_start).count();
    unlock_slurmctld(write_lock);
    ++holds;
    held_ms += hold_ms;
    longest_hold_ms = std::max(longest_hold_ms, hold_ms);
  } while (b.pass_in_progress);
  if (recomputed) {
    LogPrio("%zu of %zu jobs changed during the pass and were recomputed", recomputed,
            b.published.records.size());
  }
  // One line a pass (SlurmctldDebug=verbose): how long the pass kept job
  // queries and job writers waiting.
  LogVerbose("priority pass: %zu jobs computed, %zu stored; job write lock held %.3f ms, "
             "longest %.3f ms of %zu holds (gathering and computing under the read lock, "
             "waits included, %.3f ms); %zu job records %s",
             b.published.records.size(), stored, held_ms, longest_hold_ms, holds,
             Ms(gather_end - gather_start).count(), b.roster.records().size(),
             walked ? "listed by walking the job list" : "found by id");
}

bool LastPassFactors(const job_record_t* job, StoredFactors* out) {
  const PassBuffers* buffers = g_buffers.load();
  if (!buffers) return false;
  const PassTable* table = &buffers->published;
  uint32_t position = JobIndex::kNotFound;
  if (buffers->storing) {
    // Between two slices of the store the pass's own table is the job's
    // (a job it does not hold is no longer in a pass), unless its new
    // priority is still to be stored.
    position = buffers->building.index.Find(job->job_id);
    if (position == JobIndex::kNotFound) return false;
    if (buffers->building.records[position].awaiting_store) {
      position = buffers->published.index.Find(job->job_id);
    } else {
      table = &buffers->building;
    }
  } else {
    position = buffers->published.index.Find(job->job_id);
  }
  const PassTable& t = *table;
  if (position == JobIndex::kNotFound) return false;
  const PassRecord& r = t.records[position];
  if (!r.published) return false;
  *out = StoredOf(r, t);
  return true;
}

void ForgetLastPassFactors(uint32_t job_id) {
  PassBuffers* buffers = g_buffers.load();
  if (!buffers) return;
  PassBuffers& b = *buffers;
  if (b.storing) {
    const uint32_t position = b.building.index.Find(job_id);
    if (position != JobIndex::kNotFound) b.building.records[position].published = false;
  } else if (b.pass_in_progress) {
    b.set_during_pass.push_back(job_id);
  }
  const uint32_t position = b.published.index.Find(job_id);
  if (position != JobIndex::kNotFound) b.published.records[position].published = false;
}

void ReleasePriorityPassBuffers() {
  delete g_buffers.exchange(nullptr);
}

}  // namespace fairway::plugin
