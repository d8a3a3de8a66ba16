// SPDX-License-Identifier: GPL-2.0-or-later
// The decay pass's path for the priority of a single-partition job: its
// inputs in one fixed-size record (no vectors, no optional, the TRES
// counts of the weighted TRES only), the weights prepared once per pass.
// Same formulas (priority_terms.h) and the same order of operations as
// ComputeJobPriorityInto, so the same doubles and the same integer
// priority; test/unit/flat_priority_test.cc checks this bit for bit.
// Multi-partition jobs, and configurations with more weighted TRES than
// kFlatTresMax, take ComputeJobPriorityInto.
#ifndef FAIRWAY_FLAT_PRIORITY_H_
#define FAIRWAY_FLAT_PRIORITY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "job_priority.h"
#include "params.h"
#include "slurm_values.h"

namespace fairway {

// Weighted TRES a flat record holds; sites weight two or three.
constexpr size_t kFlatTresMax = 8;

struct FlatPartition {
  uint16_t priority_job_factor = 0;
  double norm_priority = 0;
  uint32_t max_time_min = kNoVal;
  uint64_t tres_total[kFlatTresMax] = {};  // per weighted TRES, 0 = none
};

struct FlatJob {
  int64_t accrue_time = 0;  // 0 = not accruing age
  bool has_assoc = false;
  double fairshare_factor = 0;
  uint32_t assoc_priority = 0;
  double assoc_priority_norm = 0;
  bool has_qos = false;
  uint32_t qos_priority = 0;
  double qos_norm_priority = 0;
  uint32_t total_cpus = 0;
  uint32_t max_cpus = kNoVal;
  uint32_t min_cpus = 0;
  uint32_t min_nodes = 1;
  uint32_t time_limit_min = kNoVal;
  uint32_t site_factor = kNiceOffset;
  uint32_t nice = kNiceOffset;
  const FlatPartition* partition = nullptr;  // the job's part_ptr, if any
  // Per weighted TRES: the allocated count, else the requested one.
  uint64_t tres_count[kFlatTresMax] = {};
};

// What a pass prepares once: the parameters and the weighted TRES.
struct FlatWeights {
  const Params* params = nullptr;
  size_t tres_columns = 0;  // weighted TRES, in column order
  double tres_weight[kFlatTresMax] = {};
};

// Prepares *out for params and the indexes (ascending) of the TRES with a
// non-zero weight. False when there are more than kFlatTresMax of them.
bool BuildFlatWeights(const Params& params, const std::vector<uint32_t>& weighted_columns,
                      FlatWeights* out);

struct FlatResult {
  // Weighted factors, as sprio shows them.
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  double tres[kFlatTresMax] = {};  // per weighted TRES
  uint32_t site = kNiceOffset;
  uint32_t nice = kNiceOffset;
  double sum = 0;  // the weighted sum before floor/truncation
  uint32_t priority = 1;
  bool clamped = false;
  bool had_nan = false;
};

void ComputeFlatPriority(const FlatJob& job, const FlatWeights& weights,
                         const ClusterInputs& cluster, int64_t now, FlatResult* out);

// The flat record of a single-partition JobInputs (its partition into
// *partition): what the plugin's gather builds from a job record, here
// from the general inputs, for tests and tools.
void FlatJobFromInputs(const JobInputs& job, const std::vector<uint32_t>& weighted_columns,
                       FlatPartition* partition, FlatJob* out);

}  // namespace fairway

#endif  // FAIRWAY_FLAT_PRIORITY_H_
