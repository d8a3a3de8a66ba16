// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_priority.h"

#include <algorithm>
#include <cmath>

#include "priority_terms.h"

namespace fairway {

namespace {

// Per-TRES factors for one partition: the allocated count (requested before
// allocation) over the partition's total, or the raw count with
// NO_NORMAL_TRES. Writes the unweighted factors (when `factors` is given)
// and the weighted ones in one loop, reusing the vectors' storage (the
// plugin's pass computes thousands of jobs into the same buffers), and
// returns the weighted sum, added in TRES order.
double TresTerms(const JobInputs& job, const PartitionInputs* part, const Params& params,
                 std::vector<double>* factors, std::vector<double>* weighted) {
  const size_t n = params.weight_tres.size();
  if (factors) factors->resize(n);
  weighted->resize(n);
  const uint64_t* totals = part ? part->tres_cnt.data() : nullptr;
  const size_t total_cnt = part ? part->tres_cnt.size() : 0;
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t total = i < total_cnt ? totals[i] : 0;
    const double factor = terms::TresFactor(JobTresCount(job, i), part != nullptr, total, params);
    if (factors) (*factors)[i] = factor;
    const double weighted_factor = factor * params.weight_tres[i];
    (*weighted)[i] = weighted_factor;
    sum += weighted_factor;
  }
  return sum;
}

double PartitionFactor(const PartitionInputs& part, const Params& params) {
  return terms::PartitionFactor(part.priority_job_factor, part.norm_priority, params);
}

using terms::Sane;

}  // namespace

double SprioPartitionRow(const JobInputs& job, const PartitionInputs& part, const Params& params,
                         double* row_tres, size_t row_tres_cnt) {
  const double partition = PartitionFactor(part, params) * static_cast<double>(params.weight_partition);
  if (!row_tres || params.weight_tres.empty()) return partition;
  const size_t n = std::min(row_tres_cnt, params.weight_tres.size());
  for (size_t i = 0; i < n; ++i) {
    const uint64_t value = JobTresCount(job, i);
    if (params.flags & kFlagNoNormalTres) {
      row_tres[i] = static_cast<double>(value);
    } else if (value && i < part.tres_cnt.size() && part.tres_cnt[i]) {
      row_tres[i] = value / static_cast<double>(part.tres_cnt[i]);
    }
    row_tres[i] *= params.weight_tres[i];
  }
  return partition;
}

uint32_t PriorityFromSum(double sum, bool* clamped) {
  if (clamped) *clamped = false;
  if (std::isnan(sum) || sum < 1) return 1;  // 0 is reserved for held jobs
  if (sum >= 4294967296.0) {
    if (clamped) *clamped = true;
    return kMaxPriority;
  }
  return static_cast<uint32_t>(static_cast<uint64_t>(sum));
}

double PairQosFactor(const QosInputs& qos, double job_weighted_qos, const Params& params) {
  if (!qos.priority || !params.weight_qos) return job_weighted_qos;
  const double factor = (params.flags & kFlagNoNormalQos) ? static_cast<double>(qos.priority)
                                                          : qos.norm_priority;
  return factor * static_cast<double>(params.weight_qos);
}

uint32_t PriorityAfterIncrOnly(uint32_t computed, uint32_t previous, const Params& params) {
  if ((params.flags & kFlagIncrOnly) && previous > computed) return previous;
  return computed;
}

JobPriority ComputeJobPriority(const JobInputs& job, const Params& params,
                               const ClusterInputs& cluster, int64_t now) {
  JobPriority out;
  ComputeJobPriorityInto(job, params, cluster, now, &out);
  return out;
}

void ComputeJobPriorityInto(const JobInputs& job, const Params& params,
                            const ClusterInputs& cluster, int64_t now, JobPriority* result) {
  JobPriority& out = *result;
  out.tres_sum = 0;
  out.sum = 0;
  out.clamped = false;
  out.had_nan = false;
  out.partition_priorities.clear();
  out.factors.age = out.factors.assoc = out.factors.fairshare = 0;
  out.factors.job_size = out.factors.partition = out.factors.qos = 0;
  if (!job.has_details) {
    out.priority = 0;
    out.factors.tres.clear();
    out.weighted = out.factors;
    out.factors.site = out.factors.nice = out.weighted.site = out.weighted.nice = kNiceOffset;
    return;
  }
  bool had_nan = false;
  const PartitionInputs* job_part = job.partition ? &*job.partition : nullptr;
  const terms::ScalarFactors unweighted =
      terms::UnweightedFactors(job, job_part, params, cluster.cluster_cpus,
                               cluster.node_count, now);
  const terms::ScalarFactors weighted = terms::WeightedFactors(unweighted, params, &had_nan);
  PriorityFactors& f = out.factors;
  terms::CopyScalarFactors(unweighted, &f);
  f.site = job.site_factor;
  f.nice = job.nice;
  PriorityFactors& w = out.weighted;
  terms::CopyScalarFactors(weighted, &w);
  w.site = f.site;
  w.nice = f.nice;
  if (!params.weight_tres.empty()) {
    const double tres_sum =
        TresTerms(job, job_part, params, &f.tres, &w.tres);
    out.tres_sum = Sane(tres_sum, &had_nan);
  } else {
    f.tres.clear();
    w.tres.clear();
  }

  out.sum = terms::PrioritySum(weighted, out.tres_sum, w.site, w.nice);
  out.priority = PriorityFromSum(out.sum, &out.clamped);

  // Multi-partition jobs: the same terms with each partition's own partition
  // and TRES factors; a job with several QOS, with each QOS's own QOS
  // factor too, for every (partition, QOS) pair, partition-major. INCR_ONLY
  // keeps an entry from going down.
  const bool several_qos = !job.qos_list.empty();
  const size_t partitions = !job.partition_list.empty() ? job.partition_list.size()
                            : several_qos                ? 1
                                                         : 0;
  static thread_local std::vector<double> part_tres_weighted;
  for (size_t p = 0; p < partitions; ++p) {
    const PartitionInputs* part =
        !job.partition_list.empty() ? &job.partition_list[p] : job_part;
    double part_tres = 0.0;
    if (!params.weight_tres.empty()) {
      part_tres = Sane(TresTerms(job, part, params, nullptr, &part_tres_weighted), &had_nan);
    }
    const double part_weighted =
        part ? PartitionFactor(*part, params) * static_cast<double>(params.weight_partition) : 0.0;
    const size_t qos_count = several_qos ? job.qos_list.size() : 1;
    for (size_t q = 0; q < qos_count; ++q) {
      terms::ScalarFactors pair = weighted;
      if (several_qos) pair.qos = Sane(PairQosFactor(job.qos_list[q], w.qos, params), &had_nan);
      const double sum = terms::PartitionPrioritySum(pair, part_weighted, part_tres, w.site, w.nice);
      bool clamped = false;
      const uint32_t value = PriorityFromSum(sum, &clamped);
      out.clamped = out.clamped || clamped;
      const size_t index = out.partition_priorities.size();
      const uint32_t previous = index < job.previous_partition_priorities.size()
                                    ? job.previous_partition_priorities[index]
                                    : 0;
      out.partition_priorities.push_back(PriorityAfterIncrOnly(value, previous, params));
    }
  }
  out.had_nan = had_nan;
}

}  // namespace fairway
