// SPDX-License-Identifier: GPL-2.0-or-later
// Job priorities through the C interface: the boundary's job record made
// the general path's JobInputs (multi-partition jobs, jobs with several
// QOS, priority_p_set), one job's priority, sprio's partition and QOS
// rows.
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
// slurm-22-05-8-1:src/slurmctld/partition_mgr.c). order[i]: a position in
// job.partition_list.
void SortedOrder(const fw_job_input_t& job, const fw_partition_input_t* partitions,
                 std::vector<uint32_t>* order) {
  order->resize(job.partition_list ? job.partition_count : 0);
  std::iota(order->begin(), order->end(), 0u);
  const uint32_t* list = job.partition_list;
  std::stable_sort(order->begin(), order->end(), [partitions, list](uint32_t a, uint32_t b) {
    return partitions[list[a]].priority_tier > partitions[list[b]].priority_tier;
  });
}

}  // namespace

void JobInputsFrom(const fw_config& config, const fw_job_input_t& job,
                   const fw_partition_input_t* partitions, JobInputs* in) {
  in->job_id = job.job_id;
  in->has_details = true;
  // The scalars as one struct; then the rule that differs from a copy:
  // without an association (QOS) its numbers are 0, whatever the record
  // holds.
  static_cast<fw_job_scalars_t&>(*in) = job.scalars;
  if (!job.scalars.has_assoc) {
    in->fairshare_factor = 0;
    in->assoc_priority = 0;
    in->assoc_priority_norm = 0;
  }
  if (!job.scalars.has_qos) {
    in->qos_priority = 0;
    in->qos_norm_priority = 0;
  }
  if (job.partition != FW_NO_PARTITION && partitions) {
    if (!in->partition) in->partition.emplace();
    FillPartition(partitions[job.partition], config, &*in->partition);
  } else {
    in->partition.reset();
  }
  AssignTres(job.tres_alloc, config, &in->tres_alloc);
  AssignTres(job.tres_req, config, &in->tres_req);
  in->partition_list.clear();
  in->previous_partition_priorities.clear();
  if (job.partition_list && partitions) {
    static thread_local std::vector<uint32_t> order;
    SortedOrder(job, partitions, &order);
    in->partition_list.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      FillPartition(partitions[job.partition_list[order[i]]], config, &in->partition_list[i]);
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
  return fw_priority_array_count(job.partition_list ? job.partition_count : 0,
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
                     const fw_partition_input_t* partitions, const fw_cluster_t* cluster,
                     int64_t now, fw_factors_t* out, double* tres_out, uint32_t* partition_out) {
  if (!out) return;
  *out = fw_factors_t{};
  if (!config || !job) return;
  try {
    // priority_p_set runs on many threads: each its own scratch.
    static thread_local JobInputs in;
    static thread_local JobPriority result;
    api::JobInputsFrom(*config, *job, partitions, &in);
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

void fw_partition_order(const fw_job_input_t* job, const fw_partition_input_t* partitions,
                        uint32_t* order) {
  if (!order || !job || !job->partition_list) return;
  try {
    std::vector<uint32_t> sorted;
    api::SortedOrder(*job, partitions, &sorted);
    std::copy(sorted.begin(), sorted.end(), order);
  } catch (...) {
    for (uint32_t i = 0; i < job->partition_count; ++i) order[i] = i;
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

}  // extern "C"
