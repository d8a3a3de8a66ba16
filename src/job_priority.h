// SPDX-License-Identifier: GPL-2.0-or-later
// A job's priority factors and their weighted sum, as priority/multifactor
// 22.05 computes them (_get_priority_internal and set_priority_factors in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c):
// age, association, fairshare, job size, partition, QOS, site, nice and
// per-TRES factors; weights; truncation toward zero; floor 1 (0 means held);
// clamp to 2^32 - 1; per-partition priorities for multi-partition jobs,
// and from Slurm 24.11 per (partition, QOS) priorities for jobs submitted
// with several QOS (_priority_each_partition and _priority_each_qos in
// slurm-24-11-5-1:src/plugins/priority/multifactor/priority_multifactor.c).
// Pure; the caller supplies "now".
#ifndef FAIRWAY_JOB_PRIORITY_H_
#define FAIRWAY_JOB_PRIORITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "params.h"
#include "slurm_values.h"

namespace fairway {

struct PartitionInputs {
  std::string name;
  uint16_t priority_job_factor = 0;
  double norm_priority = 0;        // priority_job_factor / max over partitions
  uint32_t max_time_min = kNoVal;  // MaxTime in minutes (INFINITE allowed)
  std::vector<uint64_t> tres_cnt;  // partition TRES totals; empty = none
};

// One QOS of a job submitted with several (--qos=a,b).
struct QosInputs {
  uint32_t priority = 0;
  double norm_priority = 0;
};

// The core's defaults of a job's scalar inputs (fairway_api.h's
// fw_job_scalars_t): nothing accrued, allocated or known of the
// association and QOS; no max_cpus; one node; the partition's time limit;
// site and nice 0 (biased by kNiceOffset).
constexpr fw_job_scalars_t DefaultJobScalars() {
  fw_job_scalars_t s{};
  s.max_cpus = kNoVal;
  s.min_nodes = 1;
  s.time_limit_min = kNoVal;  // NO_VAL = the partition's MaxTime
  s.site_factor = kNiceOffset;
  s.nice = kNiceOffset;
  return s;
}

// A job's inputs: its scalars (fw_job_scalars_t, read as in.nice,
// in.accrue_time...; total_cpus is 0 until the job was allocated,
// fairshare_factor the association's job factor in [0, 1]) and what holds
// more than one number.
struct JobInputs : fw_job_scalars_t {
  JobInputs() : fw_job_scalars_t(DefaultJobScalars()) {}

  uint32_t job_id = 0;
  bool has_details = true;
  std::optional<PartitionInputs> partition;     // the job's current part_ptr
  std::vector<PartitionInputs> partition_list;  // multi-partition jobs, tier order
  // A job with several QOS, in the job's order (slurmctld sorts it by QOS
  // priority, descending); empty otherwise. has_qos/qos_* stay the job's
  // current QOS (qos_ptr), which the job's own priority reads.
  std::vector<QosInputs> qos_list;
  // The job's current entries (for INCR_ONLY), indexed as
  // partition_priorities.
  std::vector<uint32_t> previous_partition_priorities;
  std::vector<uint64_t> tres_alloc;    // empty = not allocated
  std::vector<uint64_t> tres_req;
};

struct ClusterInputs {
  uint32_t cluster_cpus = 0;
  uint32_t node_count = 0;
};

// One value per factor; "weighted" ones are multiplied by their weights.
struct PriorityFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  std::vector<double> tres;  // empty when PriorityWeightTRES is unset
  uint32_t site = kNiceOffset;
  uint32_t nice = kNiceOffset;
};

struct JobPriority {
  PriorityFactors factors;   // unweighted, each in [0, 1] unless NO_NORMAL_*
  PriorityFactors weighted;  // what sprio shows (prio_factors)
  double tres_sum = 0;       // sum of weighted TRES factors
  double sum = 0;            // the weighted sum before floor/truncation
  uint32_t priority = 1;     // the job's priority (current partition)
  bool clamped = false;      // the sum exceeded 2^32 - 1
  bool had_nan = false;      // a degenerate factor was replaced by 0
  // What the scheduler indexes (priority_array): one per partition_list
  // entry; for a job with a qos_list one per (partition, QOS) pair,
  // partition-major (the partitions are partition_list, or the job's
  // partition alone when the list is empty), as
  // slurm-24-11-5-1:src/slurmctld/job_scheduler.c indexes it.
  std::vector<uint32_t> partition_priorities;
};

// Computes the factors and the priority. A job without details gets
// priority 0 with zeroed factors (as Slurm does). Operator-set priorities are
// the caller's business (they bypass this computation).
JobPriority ComputeJobPriority(const JobInputs& job, const Params& params,
                               const ClusterInputs& cluster, int64_t now);

// The same, into *result, reusing its vectors' storage: for callers that
// compute many jobs in a row without allocating per job.
void ComputeJobPriorityInto(const JobInputs& job, const Params& params,
                            const ClusterInputs& cluster, int64_t now, JobPriority* result);

// sprio's row for one partition of a multi-partition job, as multifactor
// 22.05 builds it (priority_p_get_priority_factors_list in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c,
// kept for identical sprio output):
// *row_tres holds the job's weighted TRES factors on entry; each entry with
// a count and a partition total is replaced by count / total (every entry,
// by the raw count, with NO_NORMAL_TRES), then every entry is weighted
// again, so an entry not replaced ends up weighted twice. Returns the
// partition's weighted partition factor.
double SprioPartitionRow(const JobInputs& job, const PartitionInputs& part, const Params& params,
                         double* row_tres, size_t row_tres_cnt);

// The weighted QOS factor of one (partition, QOS) pair and of sprio's row
// for it: the QOS's own when it has a priority and the QOS weight is set,
// else the job's (job_weighted_qos), as multifactor 24.11 does.
double PairQosFactor(const QosInputs& qos, double job_weighted_qos, const Params& params);

// The count of TRES i that the priority uses: allocated (unless
// NO_CONSUME), or requested before allocation; 0 when neither array has it.
// On raw arrays (either may be null) so that the plugin's flat path can
// read slurmctld's arrays without copying them into vectors.
inline uint64_t AllocatedElseRequested(const uint64_t* alloc, size_t alloc_cnt,
                                       const uint64_t* req, size_t req_cnt, size_t i) {
  if (alloc && i < alloc_cnt && alloc[i] != kNoConsumeVal64) return alloc[i];
  if (req && i < req_cnt) return req[i];
  return 0;
}

// AllocatedElseRequested over the job's copied arrays.
inline uint64_t JobTresCount(const JobInputs& job, size_t i) {
  return AllocatedElseRequested(job.tres_alloc.data(), job.tres_alloc.size(),
                                job.tres_req.data(), job.tres_req.size(), i);
}

// The integer priority of a weighted sum: floor 1, truncation toward zero,
// clamp to 2^32 - 1; NaN gives 1. *clamped is set when the clamp applied.
uint32_t PriorityFromSum(double sum, bool* clamped);

// PriorityFlags=INCR_ONLY, the one place it is applied: the value a job's
// priority (or one partition's entry) takes when `computed` replaces
// `previous`. With the flag it never goes down; without it, `computed`.
uint32_t PriorityAfterIncrOnly(uint32_t computed, uint32_t previous, const Params& params);

}  // namespace fairway

#endif  // FAIRWAY_JOB_PRIORITY_H_
