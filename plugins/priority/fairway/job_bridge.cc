// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_bridge.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "assoc_bridge.h"
#include "fairshare.h"
#include "job_priority.h"
#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

// The core restates Slurm's sentinels (slurm_values.h); the flat path
// compares slurmctld's own arrays against the core's copy.
static_assert(kNoConsumeVal64 == NO_CONSUME_VAL64, "NO_CONSUME_VAL64 restated wrongly");

// The TRES a priority can read: weighted and counted by slurmctld.
size_t CountedTres(const PluginConfig& config) {
  if (slurmctld_tres_cnt <= 0) return 0;
  return std::min(config.params.weight_tres.size(), static_cast<size_t>(slurmctld_tres_cnt));
}

// Copies the counts of the weighted TRES (PriorityWeightTRES), the only
// ones the priority reads. A pass copies two or three arrays per job, so
// only the weighted columns are written, not Slurm's whole TRES count: the
// others hold 0 from when the vector got its size or, in a scratch vector
// kept across a reconfigure that changed the weights, a count whose weight
// is now 0; either way they add nothing to the priority.
void AssignTres(const uint64_t* counts, const PluginConfig& config, std::vector<uint64_t>* out) {
  if (!counts || slurmctld_tres_cnt <= 0) {
    out->clear();
    return;
  }
  const size_t n = CountedTres(config);
  if (out->size() != n) out->assign(n, 0);
  for (uint32_t column : config.weighted_tres) {
    if (column < n) (*out)[column] = counts[column];
  }
}

void FillPartition(const part_record_t* part, const PluginConfig& config, PartitionInputs* in) {
  in->name.clear();  // names are not needed for the arithmetic
  in->priority_job_factor = part->priority_job_factor;
  in->norm_priority = part->norm_priority;
  in->max_time_min = part->max_time;
  AssignTres(part->tres_cnt, config, &in->tres_cnt);
}

void ClearFactors(job_record_t* job) {
  if (!job->prio_factors) return;
  xfree(job->prio_factors->tres_weights);
  xfree(job->prio_factors->priority_tres);
  std::memset(job->prio_factors, 0, sizeof(priority_factors_object_t));
}

// The job's fairshare factor: Fair Tree and Fairway's modes read the
// association's fs_factor written by the last pass; classic modes compute
// 2^(-UE/S) from the fs association, filling it in first if it is unset.
double FairshareFactor(job_record_t* job, const PluginConfig& config) {
  slurmdb_assoc_rec_t* assoc = job->assoc_ptr;
  if (!assoc) {
    LogError("job %u has no association, so no fairshare factor", job->job_id);
    return 0.0;
  }
  if (SharesNormalizedLikeFairTree(config.params.Mode())) return assoc->usage->fs_factor;
  slurmdb_assoc_rec_t* fs_assoc = assoc;
  if (assoc->shares_raw == SLURMDB_FS_USE_PARENT && assoc->usage->fs_assoc_ptr) {
    fs_assoc = assoc->usage->fs_assoc_ptr;
  }
  // An association added since the last pass has no effective usage yet.
  // multifactor stores one here, under the read lock (a data race); it is
  // computed without storing it, and the next pass stores it.
  long double efctv = fs_assoc->usage->usage_efctv;
  long double diff = efctv - static_cast<long double>(NO_VAL);
  if (diff > -1e-6 && diff < 1e-6 && assoc_mgr_root_assoc) {
    const AssocUsageValues values = ComputeAssocUsage(fs_assoc, config);
    if (values.has_efctv) efctv = values.usage_efctv;
  }
  return CalcFsFactor(efctv,
                      static_cast<long double>(fs_assoc->usage->shares_norm),
                      config.params.damp_factor);
}

// The partitions of a multi-partition job in the order the scheduler will
// index priority_array: tier descending, stable (priority_sort_part_tier).
void SortedPartitions(job_record_t* job, std::vector<part_record_t*>* parts) {
  parts->clear();
  ListIterator it = list_iterator_create(job->part_ptr_list);
  while (auto* part = static_cast<part_record_t*>(list_next(it))) parts->push_back(part);
  list_iterator_destroy(it);
  std::stable_sort(parts->begin(), parts->end(), [](const part_record_t* a, const part_record_t* b) {
    return a->priority_tier > b->priority_tier;
  });
}

}  // namespace

void ListJobs(JobPointers* jobs) {
  jobs->clear();
  if (!job_list) return;
  ReserveReusing(jobs, static_cast<size_t>(list_count(job_list)));
  list_for_each_ro(
      job_list,
      [](void* job, void* out) {
        static_cast<JobPointers*>(out)->push_back(static_cast<job_record_t*>(job));
        return 0;
      },
      jobs);
}

bool FindJobs(JobRoster<job_record_t>* roster) {
  if (!job_list) {
    roster->Invalidate();
    return false;
  }
  const auto expected = static_cast<size_t>(list_count(job_list));
  // Only addresses are computed from the last pass's records: the line
  // find_job_record compares.
  auto prefetch = [](const job_record_t* hint) { __builtin_prefetch(&hint->job_id); };
  // A job array's records move in the list when a task is split off.
  auto in_id_order = [](const job_record_t* job) { return job->array_job_id == 0; };
  if (roster->Refind(expected, slurm_conf.max_job_id, find_job_record, prefetch, in_id_order)) {
    return false;
  }
  roster->AssignWalked([](JobPointers* records, PageVector<uint32_t>* ids) {
    ListJobs(records);
    ReserveReusing(ids, records->size());
    constexpr size_t kPrefetchAhead = 8;
    for (size_t i = 0; i < records->size(); ++i) {
      if (i + kPrefetchAhead < records->size()) {
        __builtin_prefetch(&(*records)[i + kPrefetchAhead]->job_id);
      }
      ids->push_back((*records)[i]->job_id);
    }
  });
  return true;
}

void GatherJobInputs(job_record_t* job, const PluginConfig& config, JobInputs* in,
                     PartitionFillCache* cache) {
  const Params& p = config.params;
  job_details* details = job->details;
  in->job_id = job->job_id;
  in->has_details = true;
  in->accrue_time = details->accrue_time;
  in->has_assoc = job->assoc_ptr != nullptr;
  in->has_qos = job->qos_ptr != nullptr;
  in->total_cpus = job->total_cpus;
  in->max_cpus = details->max_cpus;
  in->min_cpus = details->min_cpus;
  in->min_nodes = details->min_nodes;
  in->time_limit_min = job->time_limit;
  if (job->part_ptr) {
    const bool filled = cache && in->partition && cache->filled_from == job->part_ptr;
    if (!in->partition) in->partition.emplace();
    if (!filled) FillPartition(job->part_ptr, config, &*in->partition);
    if (cache) cache->filled_from = job->part_ptr;
  } else {
    in->partition.reset();
    if (cache) cache->filled_from = nullptr;
  }
  in->site_factor = job->site_factor;
  in->nice = details->nice;
  AssignTres(job->tres_alloc_cnt, config, &in->tres_alloc);
  AssignTres(job->tres_req_cnt, config, &in->tres_req);
  in->fairshare_factor = 0;
  if (job->assoc_ptr && p.weight_fairshare && config.calc_fairshare) {
    in->fairshare_factor = FairshareFactor(job, config);
  }
  in->assoc_priority = job->assoc_ptr ? job->assoc_ptr->priority : 0;
  in->assoc_priority_norm = job->assoc_ptr ? job->assoc_ptr->usage->priority_norm : 0;
  in->qos_priority = job->qos_ptr ? job->qos_ptr->priority : 0;
  in->qos_norm_priority = job->qos_ptr ? job->qos_ptr->usage->norm_priority : 0;
  in->partition_list.clear();
  in->previous_partition_priorities.clear();
  if (job->part_ptr_list) {
    static thread_local std::vector<part_record_t*> parts;
    SortedPartitions(job, &parts);
    in->partition_list.resize(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      FillPartition(parts[i], config, &in->partition_list[i]);
      in->previous_partition_priorities.push_back(
          job->priority_array ? job->priority_array[i] : 0);
    }
  }
}

void FlatPartitions::Clear() {
  entries_.clear();
  last_ = nullptr;
}

const FlatPartition* FlatPartitions::Of(const part_record_t* part, const PluginConfig& config) {
  if (last_ && last_->part == part) return &last_->record;
  for (const Entry& entry : entries_) {
    if (entry.part == part) {
      last_ = &entry;
      return &entry.record;
    }
  }
  Entry& entry = entries_.emplace_back(Entry{part, FlatPartition{}});
  FlatPartition& record = entry.record;
  record.priority_job_factor = part->priority_job_factor;
  record.norm_priority = part->norm_priority;
  record.max_time_min = part->max_time;
  // As AssignTres: only the TRES both weighted and counted by slurmctld.
  const size_t counted = CountedTres(config);
  if (part->tres_cnt) {
    for (size_t k = 0; k < config.weighted_tres.size() && k < kFlatTresMax; ++k) {
      const uint32_t column = config.weighted_tres[k];
      if (column < counted) record.tres_total[k] = part->tres_cnt[column];
    }
  }
  last_ = &entry;
  return &record;
}

void GatherFlatJob(job_record_t* job, const PluginConfig& config, FlatPartitions* partitions,
                   FlatJob* in) {
  const Params& p = config.params;
  const job_details* details = job->details;
  const slurmdb_assoc_rec_t* assoc = job->assoc_ptr;
  const slurmdb_qos_rec_t* qos = job->qos_ptr;
  in->accrue_time = details->accrue_time;
  in->has_assoc = assoc != nullptr;
  in->fairshare_factor = 0;
  if (assoc && p.weight_fairshare && config.calc_fairshare) {
    in->fairshare_factor = FairshareFactor(job, config);
  }
  in->assoc_priority = assoc ? assoc->priority : 0;
  in->assoc_priority_norm = assoc ? assoc->usage->priority_norm : 0;
  in->has_qos = qos != nullptr;
  in->qos_priority = qos ? qos->priority : 0;
  in->qos_norm_priority = qos ? qos->usage->norm_priority : 0;
  in->total_cpus = job->total_cpus;
  in->max_cpus = details->max_cpus;
  in->min_cpus = details->min_cpus;
  in->min_nodes = details->min_nodes;
  in->time_limit_min = job->time_limit;
  in->site_factor = job->site_factor;
  in->nice = details->nice;
  in->partition = job->part_ptr ? partitions->Of(job->part_ptr, config) : nullptr;
  // The counts JobTresCount reads from AssignTres's copies, read in place:
  // only the first CountedTres columns are slurmctld's.
  const size_t counted = CountedTres(config);
  for (size_t k = 0; k < config.weighted_tres.size() && k < kFlatTresMax; ++k) {
    in->tres_count[k] = AllocatedElseRequested(job->tres_alloc_cnt, counted, job->tres_req_cnt,
                                                counted, config.weighted_tres[k]);
  }
}

namespace {

// Stores weighted factors where sprio reads them.
void StoreFactors(job_record_t* job, const StoredFactors& in, const PluginConfig& config) {
  if (!job->prio_factors) {
    job->prio_factors =
        static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  }
  StoredFactors without_tres = in;
  without_tres.tres = nullptr;
  without_tres.tres_cnt = 0;
  without_tres.tres_columns = nullptr;
  without_tres.tres_values = 0;
  FillFactorsObject(without_tres, config, job->prio_factors);
}

}  // namespace

void FillFactorsObject(const StoredFactors& in, const PluginConfig& config,
                       priority_factors_object_t* f) {
  // No caller keeps TRES arrays to be refilled (sprio's objects are new,
  // job->prio_factors holds none): whatever is there is freed.
  xfree(f->priority_tres);
  xfree(f->tres_weights);
  std::memset(f, 0, sizeof(priority_factors_object_t));
  f->priority_age = in.age;
  f->priority_assoc = in.assoc;
  f->priority_fs = in.fairshare;
  f->priority_js = in.job_size;
  f->priority_part = in.partition;
  f->priority_qos = in.qos;
  f->priority_site = in.site;
  f->nice = in.nice;
  if (!in.tres_cnt) return;
  auto* tres = static_cast<double*>(xcalloc(in.tres_cnt, sizeof(double)));
  auto* weights = static_cast<double*>(xcalloc(in.tres_cnt, sizeof(double)));
  if (in.tres_columns) {
    for (uint32_t k = 0; k < in.tres_values; ++k) {
      if (in.tres_columns[k] < in.tres_cnt) tres[in.tres_columns[k]] = in.tres[k];
    }
  } else {
    std::memcpy(tres, in.tres, in.tres_cnt * sizeof(double));
  }
  const std::vector<double>& weight_tres = config.params.weight_tres;
  std::copy_n(weight_tres.begin(), std::min<size_t>(in.tres_cnt, weight_tres.size()), weights);
  f->priority_tres = tres;
  f->tres_weights = weights;
  f->tres_cnt = in.tres_cnt;
}

StoredFactors StoredFactorsOf(const JobPriority& result) {
  const PriorityFactors& w = result.weighted;
  StoredFactors out;
  CopyWeightedFactors(w, &out);
  out.tres = w.tres.data();
  out.tres_cnt = static_cast<uint32_t>(w.tres.size());
  out.partition_priorities = result.partition_priorities.data();
  out.partition_count = static_cast<uint32_t>(result.partition_priorities.size());
  out.priority = result.priority;
  out.clamped = result.clamped;
  return out;
}

void StoreJobFactors(job_record_t* job, const StoredFactors& stored, const PluginConfig& config) {
  StoreFactors(job, stored, config);
  if (job->part_ptr_list && stored.partition_count) {
    // Slurm's scheduler indexes priority_array by the position in
    // part_ptr_list, which we sort by tier as multifactor does; the result
    // was computed in the same (stable) order.
    const int count = list_count(job->part_ptr_list);
    if (!job->priority_array) {
      job->priority_array = static_cast<uint32_t*>(xcalloc(count + 1, sizeof(uint32_t)));
    }
    list_sort(job->part_ptr_list, priority_sort_part_tier);
    const uint32_t n = std::min(stored.partition_count, static_cast<uint32_t>(count));
    for (uint32_t i = 0; i < n; ++i) job->priority_array[i] = stored.partition_priorities[i];
  }
  if (stored.clamped) {
    LogError("job %u priority exceeds 32 bits; reduced to 4294967295 (2^32 - 1)", job->job_id);
  }
  if (PrioDebugEnabled()) {
    LogPrio("job %u priority %u = age %.2f + assoc %.2f + fairshare %.2f + jobsize %.2f + "
            "partition %.2f + qos %.2f + tres + site %lld - nice %lld",
            job->job_id, stored.priority, stored.age, stored.assoc, stored.fairshare,
            stored.job_size, stored.partition, stored.qos,
            static_cast<long long>(stored.site) - NICE_OFFSET,
            static_cast<long long>(stored.nice) - NICE_OFFSET);
  }
}

void StoreJobPriority(job_record_t* job, const JobPriority& result, const PluginConfig& config) {
  StoreJobFactors(job, StoredFactorsOf(result), config);
}

uint32_t ComputeAndStoreJobPriority(job_record_t* job, time_t now, const PluginConfig& config) {
  if (HasOperatorSetPriority(job)) {
    ClearFactors(job);
    return job->priority;
  }
  if (!job->details) {
    LogError("job %u has no details, so no priority can be computed", job->job_id);
    ClearFactors(job);
    return 0;
  }
  JobInputs in;
  assoc_mgr_lock_t locks = {};
  locks.assoc = READ_LOCK;
  locks.qos = READ_LOCK;
  assoc_mgr_lock(&locks);
  GatherJobInputs(job, config, &in);
  assoc_mgr_unlock(&locks);
  ClusterInputs cluster{cluster_cpus, static_cast<uint32_t>(node_record_count)};
  JobPriority result = ComputeJobPriority(in, config.params, cluster, now);
  StoreJobPriority(job, result, config);
  return result.priority;
}

void FactorsForPartition(const job_record_t* job, const part_record_t* part,
                         const PluginConfig& config, priority_factors_object_t* factors) {
  // sprio runs on RPC threads: each its own scratch.
  static thread_local JobInputs counts;
  static thread_local PartitionInputs partition;
  AssignTres(job->tres_alloc_cnt, config, &counts.tres_alloc);
  AssignTres(job->tres_req_cnt, config, &counts.tres_req);
  FillPartition(part, config, &partition);
  factors->priority_part = SprioPartitionRow(counts, partition, config.params,
                                             factors->priority_tres, factors->tres_cnt);
}

void AddTresFactors(const job_record_t* job, const part_record_t* part, const PluginConfig& config,
                    priority_factors_object_t* f) {
  const std::vector<double>& weights = config.params.weight_tres;
  if (f->priority_tres || weights.empty() || !part) return;
  const auto count = static_cast<uint32_t>(weights.size());
  f->priority_tres = static_cast<double*>(xcalloc(count, sizeof(double)));
  f->tres_weights = static_cast<double*>(xcalloc(count, sizeof(double)));
  std::copy(weights.begin(), weights.end(), f->tres_weights);
  f->tres_cnt = count;
  // The row's TRES only: the partition factor stays the stored one.
  const double partition = f->priority_part;
  FactorsForPartition(job, part, config, f);
  f->priority_part = partition;
}

}  // namespace fairway::plugin
