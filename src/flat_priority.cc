// SPDX-License-Identifier: GPL-2.0-or-later
#include "flat_priority.h"

#include "priority_terms.h"

namespace fairway {

void BuildFlatWeights(const Params& params, const std::vector<uint32_t>& weighted_columns,
                      size_t counted_tres, FlatWeights* out) {
  *out = FlatWeights{};
  out->params = &params;
  if (params.weight_tres.empty()) return;  // no TRES terms at all
  out->tres_columns = weighted_columns.data();
  out->tres_count = weighted_columns.size();
  out->counted_tres = counted_tres;
}

void ComputeFlatPriority(const fw_job_input_t& job, const fw_partition_input_t* part,
                         const FlatWeights& weights, const ClusterInputs& cluster, int64_t now,
                         FlatResult* out, double* tres) {
  const Params& params = *weights.params;
  bool had_nan = false;
  const terms::ScalarFactors w =
      terms::WeightedFactors(terms::UnweightedFactors(job.scalars, part, params,
                                                      cluster.cluster_cpus, cluster.node_count, now),
                             params, &had_nan);
  out->age = w.age;
  out->assoc = w.assoc;
  out->fairshare = w.fairshare;
  out->job_size = w.job_size;
  out->partition = w.partition;
  out->qos = w.qos;
  out->site = job.scalars.site_factor;
  out->nice = job.scalars.nice;
  // The TRES with no weight add +0.0 each to the general sum (every
  // factor is finite and non-negative): leaving them out changes nothing.
  // Only the first counted_tres entries of the arrays are slurmctld's.
  const size_t counted = weights.counted_tres;
  double tres_sum = 0.0;
  for (size_t k = 0; k < weights.tres_count; ++k) {
    const uint32_t column = weights.tres_columns[k];
    const uint64_t count =
        AllocatedElseRequested(job.tres_alloc, counted, job.tres_req, counted, column);
    const uint64_t total =
        part && part->tres_cnt && column < counted ? part->tres_cnt[column] : 0;
    tres[k] = terms::TresFactor(count, part != nullptr, total, params) *
              params.weight_tres[column];
    tres_sum += tres[k];
  }
  tres_sum = terms::Sane(tres_sum, &had_nan);

  out->sum = terms::PrioritySum(w, tres_sum, out->site, out->nice);
  out->priority = PriorityFromSum(out->sum, &out->clamped);
  out->had_nan = had_nan;
}

}  // namespace fairway
