// SPDX-License-Identifier: GPL-2.0-or-later
// The priority of a single-partition job computed on the boundary's own
// record (fairway_api.h's fw_job_input_t, its partition an entry of the
// pass's partition array): no copy into JobInputs, no vectors, only the
// weighted TRES, the weights prepared once per pass. Same formulas
// (priority_terms.h) and the same order of operations as
// ComputeJobPriorityInto, so the same doubles and the same integer
// priority; test/unit/flat_priority_test.cc checks this bit for bit.
// Multi-partition jobs and jobs with several QOS take
// ComputeJobPriorityInto, on JobInputs made from the same record
// (api_internal.h JobInputsFrom).
#ifndef FAIRWAY_FLAT_PRIORITY_H_
#define FAIRWAY_FLAT_PRIORITY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/fairway_api.h"
#include "job_priority.h"
#include "params.h"
#include "slurm_values.h"

namespace fairway {

// What a pass prepares once: the parameters and the weighted TRES.
struct FlatWeights {
  const Params* params = nullptr;
  const uint32_t* tres_columns = nullptr;  // the weighted TRES' indexes, ascending
  size_t tres_count = 0;                   // entries of tres_columns
  size_t counted_tres = 0;  // the TRES slurmctld counts and the weights cover
};

// Prepares *out for params, the indexes (ascending) of the TRES with a
// non-zero weight (kept by pointer: they must outlive *out) and
// counted_tres, the entries of the jobs' and partitions' TRES arrays that
// may be read.
void BuildFlatWeights(const Params& params, const std::vector<uint32_t>& weighted_columns,
                      size_t counted_tres, FlatWeights* out);

struct FlatResult {
  // Weighted factors, as sprio shows them.
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t site = kNiceOffset;
  uint32_t nice = kNiceOffset;
  double sum = 0;  // the weighted sum before floor/truncation
  uint32_t priority = 1;
  bool clamped = false;
  bool had_nan = false;
};

// Computes job in part (nullptr: none) into *out and the weighted TRES
// factors into tres[weights.tres_count] (the pass writes them straight
// into its table).
void ComputeFlatPriority(const fw_job_input_t& job, const fw_partition_input_t* part,
                         const FlatWeights& weights, const ClusterInputs& cluster, int64_t now,
                         FlatResult* out, double* tres);

}  // namespace fairway

#endif  // FAIRWAY_FLAT_PRIORITY_H_
