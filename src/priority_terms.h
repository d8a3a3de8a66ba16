// SPDX-License-Identifier: GPL-2.0-or-later
// The factor formulas of a job's priority on plain scalars, shared by the
// general computation (ComputeJobPriorityInto, over JobInputs) and the
// flat one the decay pass uses (ComputeFlatPriority): one definition, so
// the two give bit-identical results.
#ifndef FAIRWAY_PRIORITY_TERMS_H_
#define FAIRWAY_PRIORITY_TERMS_H_

#include <cmath>
#include <cstdint>

#include "api/fairway_api.h"
#include "params.h"
#include "slurm_values.h"

namespace fairway::terms {

inline double AgeFactor(int64_t accrue_time, const Params& params, int64_t now) {
  if (!params.weight_age || !accrue_time) return 0;
  // Slurm keeps the difference and PriorityMaxAge in 32 bits.
  uint32_t diff = 0;
  if (now > accrue_time) diff = static_cast<uint32_t>(now - accrue_time);
  uint32_t max_age = static_cast<uint32_t>(params.max_age_s);
  if (diff < max_age) return static_cast<double>(diff) / static_cast<double>(max_age);
  return 1.0;
}

// What the job size factor reads of a job and its partition.
struct JobSizeTerms {
  uint32_t total_cpus = 0;
  uint32_t max_cpus = kNoVal;
  uint32_t min_cpus = 0;
  uint32_t min_nodes = 1;
  uint32_t time_limit_min = kNoVal;
  bool has_partition = false;
  uint32_t partition_max_time_min = kNoVal;
};

// The job-size terms of a job's scalars (a JobInputs, or the boundary's
// fw_job_input_t record's `scalars`); the partition's time limit only
// where it has one.
inline JobSizeTerms SizeTermsOf(const fw_job_scalars_t& job, bool has_partition,
                                uint32_t partition_max_time_min) {
  JobSizeTerms t;
  t.total_cpus = job.total_cpus;
  t.max_cpus = job.max_cpus;
  t.min_cpus = job.min_cpus;
  t.min_nodes = job.min_nodes;
  t.time_limit_min = job.time_limit_min;
  t.has_partition = has_partition;
  if (has_partition) t.partition_max_time_min = partition_max_time_min;
  return t;
}

inline double JobSizeFactor(const JobSizeTerms& job, const Params& params, uint32_t cluster_cpus,
                            uint32_t node_count) {
  if (!params.weight_job_size) return 0;
  if (!node_count || !cluster_cpus) return 0;  // Slurm: NaN/inf
  uint32_t cpu_cnt = 0;
  if (job.total_cpus) {
    cpu_cnt = job.total_cpus;
  } else if (job.max_cpus != kNoVal) {
    cpu_cnt = job.max_cpus;
  } else if (job.min_cpus) {
    cpu_cnt = job.min_cpus;
  }
  const uint32_t min_nodes = job.min_nodes;
  const uint32_t nodes = node_count;
  const uint32_t cpus = cluster_cpus;
  double js;
  if (params.flags & kFlagSizeRelative) {
    uint32_t time_limit = 1;
    js = static_cast<double>(min_nodes) * static_cast<double>(cpus) / static_cast<double>(nodes);
    if (cpu_cnt > js) js = static_cast<double>(cpu_cnt);
    if (job.time_limit_min != kNoVal) {
      time_limit = job.time_limit_min;
    } else if (job.has_partition) {
      time_limit = job.partition_max_time_min;
    }
    js /= time_limit;  // a zero limit gives +inf, clamped to 1 below
    js /= cpus;
    if (params.favor_small) js = 1.0 - js;
  } else if (params.favor_small) {
    // Unsigned differences, as in Slurm: an oversized request wraps to a
    // huge value and is clamped to 1 (_get_priority_internal in
    // slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c, kept for parity).
    if (params.favor_small_clamps_nodes) {
      js = nodes > min_nodes
               ? static_cast<double>(nodes - min_nodes) / static_cast<double>(nodes)
               : 0.0;
    } else {
      js = static_cast<double>(nodes - min_nodes) / static_cast<double>(nodes);
    }
    if (cpu_cnt) {
      js += static_cast<double>(cpus - cpu_cnt) / static_cast<double>(cpus);
      js /= 2;
    }
  } else {
    js = static_cast<double>(min_nodes) / static_cast<double>(nodes);
    if (cpu_cnt) {
      js += static_cast<double>(cpu_cnt) / static_cast<double>(cpus);
      js /= 2;
    }
  }
  if (std::isnan(js)) return 0.0;
  if (js < 0.0) return 0.0;
  if (js > 1.0) return 1.0;
  return js;
}

inline double PartitionFactor(uint16_t priority_job_factor, double norm_priority,
                              const Params& params) {
  return (params.flags & kFlagNoNormalPart) ? priority_job_factor : norm_priority;
}

// One TRES's unweighted factor: the count over the partition's total (0
// without one), or the raw count with NO_NORMAL_TRES.
inline double TresFactor(uint64_t count, bool has_partition, uint64_t partition_total,
                         const Params& params) {
  if (params.flags & kFlagNoNormalTres) return static_cast<double>(count);
  if (count && has_partition && partition_total) {
    return count / static_cast<double>(partition_total);
  }
  return 0.0;
}

// Replaces NaN by 0 so that no NaN reaches the integer conversion.
inline double Sane(double value, bool* had_nan) {
  if (std::isnan(value)) {
    *had_nan = true;
    return 0.0;
  }
  return value;
}

// The six scalar factors of a job, unweighted or weighted.
struct ScalarFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
};

// Copies the six scalar factors between any two of the structs that hold
// them under the same names (ScalarFactors, PriorityFactors, FlatResult,
// the pass's records).
template <typename From, typename To>
void CopyScalarFactors(const From& from, To* to) {
  to->age = from.age;
  to->assoc = from.assoc;
  to->fairshare = from.fairshare;
  to->job_size = from.job_size;
  to->partition = from.partition;
  to->qos = from.qos;
}

// The unweighted scalar factors of a job's scalars (a JobInputs, or the
// boundary's fw_job_input_t record's `scalars`) in its partition `part`
// (PartitionInputs or fw_partition_input_t, nullptr for none): each 0 when
// its weight is 0, as in Slurm.
template <typename Partition>
ScalarFactors UnweightedFactors(const fw_job_scalars_t& job, const Partition* part,
                                const Params& params, uint32_t cluster_cpus, uint32_t node_count,
                                int64_t now) {
  ScalarFactors f;
  f.age = AgeFactor(job.accrue_time, params, now);
  if (job.has_assoc && params.weight_fairshare) f.fairshare = job.fairshare_factor;
  const JobSizeTerms size = SizeTermsOf(job, part != nullptr, part ? part->max_time_min : kNoVal);
  f.job_size = JobSizeFactor(size, params, cluster_cpus, node_count);
  if (part && part->priority_job_factor && params.weight_partition) {
    f.partition = PartitionFactor(part->priority_job_factor, part->norm_priority, params);
  }
  if (job.has_assoc && params.weight_assoc) {
    f.assoc = (params.flags & kFlagNoNormalAssoc) ? job.assoc_priority : job.assoc_priority_norm;
  }
  if (job.has_qos && job.qos_priority && params.weight_qos) {
    f.qos = (params.flags & kFlagNoNormalQos) ? job.qos_priority : job.qos_norm_priority;
  }
  return f;
}

// Each factor times its weight, NaN replaced by 0 (noted in *had_nan).
inline ScalarFactors WeightedFactors(const ScalarFactors& f, const Params& params, bool* had_nan) {
  ScalarFactors w;
  w.age = Sane(f.age * static_cast<double>(params.weight_age), had_nan);
  w.assoc = Sane(f.assoc * static_cast<double>(params.weight_assoc), had_nan);
  w.fairshare = Sane(f.fairshare * static_cast<double>(params.weight_fairshare), had_nan);
  w.job_size = Sane(f.job_size * static_cast<double>(params.weight_job_size), had_nan);
  w.partition = Sane(f.partition * static_cast<double>(params.weight_partition), had_nan);
  w.qos = Sane(f.qos * static_cast<double>(params.weight_qos), had_nan);
  return w;
}

// The weighted sum, added in Slurm's order (the order changes the last
// bits). site and nice are stored with kNiceOffset added.
inline double PrioritySum(const ScalarFactors& w, double tres_sum, uint32_t site, uint32_t nice) {
  const double site_term = static_cast<double>(static_cast<int64_t>(site) - kNiceOffset);
  const double nice_term = static_cast<double>(static_cast<int64_t>(nice) - kNiceOffset);
  return w.age + w.assoc + w.fairshare + w.job_size + w.partition + w.qos + tres_sum + site_term -
         nice_term;
}

// The sum for one partition of a multi-partition job: that partition's
// weighted partition factor and TRES sum with the job's other terms, in
// Slurm's order for priority_array entries.
inline double PartitionPrioritySum(const ScalarFactors& w, double partition_weighted,
                                   double partition_tres_sum, uint32_t site, uint32_t nice) {
  const double site_term = static_cast<double>(static_cast<int64_t>(site) - kNiceOffset);
  const double nice_term = static_cast<double>(static_cast<int64_t>(nice) - kNiceOffset);
  double sum = partition_weighted;
  sum += (w.age + w.assoc + w.fairshare + w.job_size + w.qos + partition_tres_sum + site_term -
          nice_term);
  return sum;
}

}  // namespace fairway::terms

#endif  // FAIRWAY_PRIORITY_TERMS_H_
