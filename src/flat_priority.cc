// SPDX-License-Identifier: GPL-2.0-or-later
#include "flat_priority.h"

#include "priority_terms.h"

namespace fairway {

bool BuildFlatWeights(const Params& params, const std::vector<uint32_t>& weighted_columns,
                      FlatWeights* out) {
  *out = FlatWeights{};
  out->params = &params;
  if (params.weight_tres.empty()) return true;  // no TRES terms at all
  if (weighted_columns.size() > kFlatTresMax) return false;
  for (uint32_t column : weighted_columns) {
    if (column >= params.weight_tres.size()) return false;
  }
  out->tres_columns = weighted_columns.size();
  for (size_t k = 0; k < weighted_columns.size(); ++k) {
    out->tres_weight[k] = params.weight_tres[weighted_columns[k]];
  }
  return true;
}

void ComputeFlatPriority(const FlatJob& job, const FlatWeights& weights,
                         const ClusterInputs& cluster, int64_t now, FlatResult* out) {
  const Params& params = *weights.params;
  const FlatPartition* part = job.partition;
  bool had_nan = false;
  const terms::ScalarFactors w = terms::WeightedFactors(
      terms::UnweightedFactors(job, part, params, cluster.cluster_cpus, cluster.node_count, now),
      params, &had_nan);
  out->age = w.age;
  out->assoc = w.assoc;
  out->fairshare = w.fairshare;
  out->job_size = w.job_size;
  out->partition = w.partition;
  out->qos = w.qos;
  out->site = job.site_factor;
  out->nice = job.nice;
  // The TRES with no weight add +0.0 each to the general sum (every
  // factor is finite and non-negative): leaving them out changes nothing.
  double tres_sum = 0.0;
  for (size_t k = 0; k < weights.tres_columns; ++k) {
    const uint64_t total = part ? part->tres_total[k] : 0;
    out->tres[k] = terms::TresFactor(job.tres_count[k], part != nullptr, total, params) *
                   weights.tres_weight[k];
    tres_sum += out->tres[k];
  }
  tres_sum = terms::Sane(tres_sum, &had_nan);

  out->sum = terms::PrioritySum(w, tres_sum, out->site, out->nice);
  out->priority = PriorityFromSum(out->sum, &out->clamped);
  out->had_nan = had_nan;
}

void FlatJobFromInputs(const JobInputs& job, const std::vector<uint32_t>& weighted_columns,
                       FlatPartition* partition, FlatJob* out) {
  *out = FlatJob{};
  out->accrue_time = job.accrue_time;
  out->has_assoc = job.has_assoc;
  out->fairshare_factor = job.fairshare_factor;
  out->assoc_priority = job.assoc_priority;
  out->assoc_priority_norm = job.assoc_priority_norm;
  out->has_qos = job.has_qos;
  out->qos_priority = job.qos_priority;
  out->qos_norm_priority = job.qos_norm_priority;
  out->total_cpus = job.total_cpus;
  out->max_cpus = job.max_cpus;
  out->min_cpus = job.min_cpus;
  out->min_nodes = job.min_nodes;
  out->time_limit_min = job.time_limit_min;
  out->site_factor = job.site_factor;
  out->nice = job.nice;
  if (job.partition) {
    *partition = FlatPartition{};
    partition->priority_job_factor = job.partition->priority_job_factor;
    partition->norm_priority = job.partition->norm_priority;
    partition->max_time_min = job.partition->max_time_min;
    out->partition = partition;
  }
  for (size_t k = 0; k < weighted_columns.size() && k < kFlatTresMax; ++k) {
    const uint32_t column = weighted_columns[k];
    out->tres_count[k] = JobTresCount(job, column);
    if (job.partition && column < job.partition->tres_cnt.size()) {
      partition->tres_total[k] = job.partition->tres_cnt[column];
    }
  }
}

}  // namespace fairway
