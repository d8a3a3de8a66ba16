// SPDX-License-Identifier: GPL-2.0-or-later
// Job priorities through the C interface: a job snapshot made the core's
// JobInputs (as the C++ plugin's GatherJobInputs made them from a job
// record), one job's priority, sprio's partition and QOS rows, and
// INCR_ONLY.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "api/api_internal.h"
#include "priority_terms.h"

namespace fairway::api {

namespace {

// Copies the counts of the weighted TRES (PriorityWeightTRES), the only
// ones the priority reads. A pass copies two or three arrays per job, so
// only the weighted columns are written, not Slurm's whole TRES count: the
// others hold 0 from when the vector got its size or, in a scratch vector
// kept across a reconfigure that changed the weights, a count whose weight
// is now 0; either way they add nothing to the priority.
void AssignTres(const uint64_t* counts, const fw_config& config, std::vector<uint64_t>* out) {
  if (!counts || config.tres_cnt == 0) {
    out->clear();
    return;
  }
  const size_t n = CountedTres(config);
  if (out->size() != n) out->assign(n, 0);
  for (uint32_t column : config.weighted_tres) {
    if (column < n) (*out)[column] = counts[column];
  }
}

void FillPartition(const fw_partition_input_t& part, const fw_config& config,
                   PartitionInputs* in) {
  in->name.clear();  // names are not needed for the arithmetic
  in->priority_job_factor = part.priority_job_factor;
  in->norm_priority = part.norm_priority;
  in->max_time_min = part.max_time_min;
  AssignTres(part.tres_cnt, config, &in->tres_cnt);
}

// The partitions of a multi-partition job in the order the scheduler will
// index priority_array: tier descending, stable (priority_sort_part_tier in
// slurm-22-05-8-1:src/slurmctld/partition_mgr.c).
void SortedOrder(const fw_partition_input_t* const* partitions, uint32_t count,
                 std::vector<uint32_t>* order) {
  order->resize(count);
  std::iota(order->begin(), order->end(), 0u);
  std::stable_sort(order->begin(), order->end(), [partitions](uint32_t a, uint32_t b) {
    return partitions[a]->priority_tier > partitions[b]->priority_tier;
  });
}

}  // namespace

double FairshareFactorOf(const fw_config& config, const fw_job_input_t& job) {
  if (!job.has_assoc || !config.params.weight_fairshare || !config.calc_fairshare) return 0.0;
  // Fair Tree and Fairway's modes read the association's fs_factor written
  // by the last pass; classic modes compute 2^(-UE/S) from the fairshare
  // association (the boundary fills in an effective usage still unset).
  if (SharesNormalizedLikeFairTree(config.params.Mode())) return job.fs_factor;
  return CalcFsFactor(job.fs_usage_efctv, static_cast<long double>(job.fs_shares_norm),
                      config.params.damp_factor);
}

void JobInputsFrom(const fw_config& config, const fw_job_input_t& job, JobInputs* in,
                   const void** filled_from) {
  in->job_id = job.job_id;
  in->has_details = true;
  in->accrue_time = job.key.accrue_time;
  in->has_assoc = job.has_assoc;
  in->has_qos = job.has_qos;
  in->total_cpus = job.key.total_cpus;
  in->max_cpus = job.max_cpus;
  in->min_cpus = job.min_cpus;
  in->min_nodes = job.key.min_nodes;
  in->time_limit_min = job.key.time_limit;
  if (job.partition) {
    const bool filled = filled_from && in->partition && *filled_from == job.partition->key;
    if (!in->partition) in->partition.emplace();
    if (!filled) FillPartition(*job.partition, config, &*in->partition);
    if (filled_from) *filled_from = job.partition->key;
  } else {
    in->partition.reset();
    if (filled_from) *filled_from = nullptr;
  }
  in->site_factor = job.key.site_factor;
  in->nice = job.key.nice;
  AssignTres(job.tres_alloc, config, &in->tres_alloc);
  AssignTres(job.tres_req, config, &in->tres_req);
  in->fairshare_factor = FairshareFactorOf(config, job);
  in->assoc_priority = job.has_assoc ? job.assoc_priority : 0;
  in->assoc_priority_norm = job.has_assoc ? job.assoc_priority_norm : 0;
  in->qos_priority = job.has_qos ? job.qos_priority : 0;
  in->qos_norm_priority = job.has_qos ? job.qos_norm_priority : 0;
  in->partition_list.clear();
  in->previous_partition_priorities.clear();
  if (job.partitions) {
    static thread_local std::vector<uint32_t> order;
    SortedOrder(job.partitions, job.partition_count, &order);
    in->partition_list.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      FillPartition(*job.partitions[order[i]], config, &in->partition_list[i]);
    }
  }
  in->qos_list.resize(job.qos_list ? job.qos_count : 0);
  for (size_t q = 0; q < in->qos_list.size(); ++q) {
    in->qos_list[q] = QosInputs{job.qos_list[q].priority, job.qos_list[q].norm_priority};
  }
  // priority_array is indexed by the sorted partition's position (and the
  // QOS's within it).
  if (job.priority_array) {
    const uint32_t count = PriorityCount(job);
    in->previous_partition_priorities.assign(job.priority_array, job.priority_array + count);
  }
}

uint32_t PriorityCount(const fw_job_input_t& job) {
  return fw_priority_array_count(job.partitions ? job.partition_count : 0,
                                 job.qos_list ? job.qos_count : 0);
}

void FactorsOf(const JobPriority& result, fw_factors_t* out) {
  const PriorityFactors& w = result.weighted;
  *out = fw_factors_t{};
  terms::CopyScalarFactors(w, out);
  out->site = w.site;
  out->nice = w.nice;
  out->tres = w.tres.empty() ? nullptr : w.tres.data();
  out->tres_cnt = static_cast<uint32_t>(w.tres.size());
  out->partition_priorities =
      result.partition_priorities.empty() ? nullptr : result.partition_priorities.data();
  out->partition_count = static_cast<uint32_t>(result.partition_priorities.size());
  out->priority = result.priority;
  out->clamped = result.clamped;
}

}  // namespace fairway::api

using namespace fairway;
using fairway::api::ReportException;

extern "C" {

void fw_job_priority(const fw_config_t* config, const fw_job_input_t* job,
                     const fw_cluster_t* cluster, int64_t now, fw_factors_t* out,
                     double* tres_out, uint32_t* partition_out) {
  if (!out) return;
  *out = fw_factors_t{};
  if (!config || !job) return;
  try {
    // priority_p_set runs on many threads: each its own scratch.
    static thread_local JobInputs in;
    static thread_local JobPriority result;
    api::JobInputsFrom(*config, *job, &in, nullptr);
    const ClusterInputs c{cluster ? cluster->cluster_cpus : 0, cluster ? cluster->node_count : 0};
    ComputeJobPriorityInto(in, config->params, c, now, &result);
    api::FactorsOf(result, out);
    // The caller's arrays: what the thread-local result holds now is
    // overwritten by its next job.
    if (tres_out && out->tres_cnt) {
      std::memcpy(tres_out, out->tres, out->tres_cnt * sizeof(double));
      out->tres = tres_out;
    } else {
      out->tres = nullptr;
      out->tres_cnt = 0;
    }
    if (partition_out && out->partition_count) {
      std::memcpy(partition_out, out->partition_priorities,
                  out->partition_count * sizeof(uint32_t));
      out->partition_priorities = partition_out;
    } else {
      out->partition_priorities = nullptr;
      out->partition_count = 0;
    }
  } catch (...) {
    *out = fw_factors_t{};
    ReportException(config, "fw_job_priority");
  }
}

uint32_t fw_priority_count(const fw_job_input_t* job) {
  return job ? api::PriorityCount(*job) : 0;
}

uint32_t fw_priority_array_count(uint32_t partitions, uint32_t qos_count) {
  // A job with several QOS is queued once per (partition, QOS) pair, its
  // partition alone counting as one; otherwise once per listed partition.
  if (!qos_count) return partitions;
  return (partitions ? partitions : 1) * qos_count;
}

void fw_partition_order(const fw_partition_input_t* const* partitions, uint32_t count,
                        uint32_t* order) {
  if (!order) return;
  try {
    std::vector<uint32_t> sorted;
    api::SortedOrder(partitions, count, &sorted);
    std::copy(sorted.begin(), sorted.end(), order);
  } catch (...) {
    for (uint32_t i = 0; i < count; ++i) order[i] = i;
    ReportException(nullptr, "fw_partition_order");
  }
}

double fw_sprio_partition_row(const fw_config_t* config, const fw_job_input_t* job,
                              const fw_partition_input_t* partition, double* row_tres,
                              uint32_t tres_cnt) {
  if (!config || !job || !partition) return 0;
  try {
    // sprio runs on RPC threads: each its own scratch.
    static thread_local JobInputs counts;
    static thread_local PartitionInputs part;
    api::AssignTres(job->tres_alloc, *config, &counts.tres_alloc);
    api::AssignTres(job->tres_req, *config, &counts.tres_req);
    api::FillPartition(*partition, *config, &part);
    return SprioPartitionRow(counts, part, config->params, row_tres, row_tres ? tres_cnt : 0);
  } catch (...) {
    ReportException(config, "fw_sprio_partition_row");
  }
  return 0;
}

double fw_sprio_qos_row(const fw_config_t* config, const fw_qos_input_t* qos,
                        double job_weighted_qos) {
  if (!config || !qos) return job_weighted_qos;
  return PairQosFactor(QosInputs{qos->priority, qos->norm_priority}, job_weighted_qos,
                       config->params);
}

double fw_job_fairshare_factor(const fw_config_t* config, const fw_job_input_t* job) {
  if (!config || !job) return 0;
  return api::FairshareFactorOf(*config, *job);
}

uint32_t fw_priority_after_incr_only(const fw_config_t* config, uint32_t computed,
                                     uint32_t previous) {
  if (!config) return computed;
  return PriorityAfterIncrOnly(computed, previous, config->params);
}

}  // extern "C"
