// SPDX-License-Identifier: GPL-2.0-or-later
// Between slurmctld's job records and the core's job priority: gathers a
// job's factor inputs, runs ComputeJobPriority, and stores what sprio reads
// (job->prio_factors, weighted, without TRES) and the per-partition
// priority_array.
#ifndef FAIRWAY_PLUGIN_JOB_BRIDGE_H_
#define FAIRWAY_PLUGIN_JOB_BRIDGE_H_

#include <cstdint>
#include <ctime>
#include <deque>
#include <vector>

#include "flat_priority.h"
#include "job_priority.h"
#include "job_roster.h"
#include "page_allocator.h"
#include "plugin_config.h"
#include "priority_terms.h"
#include "slurm_api.h"  // part_record_t is an anonymous struct: no forward declaration

namespace fairway::plugin {

// Requires: the job WRITE lock (held by the caller); takes assoc and QOS read
// locks itself. Returns the job's new priority (the caller stores it).
// Operator-set priorities are returned unchanged, with zeroed factors.
uint32_t ComputeAndStoreJobPriority(job_record_t* job, time_t now, const PluginConfig& config);

// Requires: the job READ lock. Replaces *jobs by job_list's records, in
// order, in one traversal under the list's own lock taken once (list_next
// takes it for every job). A PageVector: the callers keep the list only for
// one pass, and its memory goes back to the system when they drop it.
using JobPointers = PageVector<job_record_t*>;
void ListJobs(JobPointers* jobs);

// Requires: the job READ lock. Makes roster job_list's records, in order,
// with their ids: found by id from what the roster held (the last pass's
// jobs) when it can be sure of the result (job_roster.h), else by walking
// the list. Returns whether it walked.
bool FindJobs(JobRoster<job_record_t>* roster);

// Which partition's inputs *inputs already holds, for callers that gather
// many jobs in a row into the same JobInputs: consecutive jobs mostly share
// a partition. Valid only while the partition read lock stays held; start
// each locked section with a fresh one.
struct PartitionFillCache {
  const part_record_t* filled_from = nullptr;
};

// Requires: the job READ lock (at least), the partition read lock when
// cache is given, and the assoc_mgr assoc and QOS read locks. Fills
// *inputs, reusing its storage; TRES counts only for the weighted TRES (the
// others 0). The job must have details.
void GatherJobInputs(job_record_t* job, const PluginConfig& config, JobInputs* inputs,
                     PartitionFillCache* cache = nullptr);

// The flat records of the partitions a pass has met, by partition: a pass
// fills one per partition, not one per job. Valid only while the
// partition read lock stays held; clear it at the start of each locked
// section.
class FlatPartitions {
 public:
  void Clear();
  // The record of part (filled on first use). The pointer stays valid
  // until Clear.
  const FlatPartition* Of(const part_record_t* part, const PluginConfig& config);

 private:
  struct Entry {
    const part_record_t* part;
    FlatPartition record;
  };
  std::deque<Entry> entries_;  // a deque: records keep their address
  const Entry* last_ = nullptr;  // consecutive jobs mostly share a partition
};

// Requires: the job READ lock (at least), the partition read lock and the
// assoc_mgr assoc and QOS read locks. Fills *inputs with a job's inputs
// for ComputeFlatPriority: a job with details and no part_ptr_list, and
// a configuration BuildFlatWeights accepted.
void GatherFlatJob(job_record_t* job, const PluginConfig& config, FlatPartitions* partitions,
                   FlatJob* inputs);

// Copies the weighted factors sprio shows between the structs that hold
// them under the same names (PriorityFactors, FlatResult, the pass's
// records, StoredFactors).
template <typename From, typename To>
void CopyWeightedFactors(const From& from, To* to) {
  terms::CopyScalarFactors(from, to);
  to->site = from.site;
  to->nice = from.nice;
}

// What is stored for one job: the weighted factors sprio shows, and the
// per-partition priorities of a multi-partition job. Pointers are borrowed.
struct StoredFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t site = 0, nice = 0;
  // Weighted TRES factors, tres_cnt columns in all. Either tres holds all
  // of them, or (tres_columns set) only the tres_values columns listed in
  // tres_columns, the others being 0: a pass table keeps only the TRES
  // that have a weight.
  const double* tres = nullptr;
  uint32_t tres_cnt = 0;
  const uint32_t* tres_columns = nullptr;
  uint32_t tres_values = 0;
  const uint32_t* partition_priorities = nullptr;
  uint32_t partition_count = 0;
  uint32_t priority = 0;
  bool clamped = false;
};
StoredFactors StoredFactorsOf(const JobPriority& result);

// An operator set the priority (scontrol update priority=N): it is kept as
// it is, with no factors, until the operator resets it.
inline bool HasOperatorSetPriority(const job_record_t* job) {
  return job->direct_set_prio && job->priority > 0;
}

// Writes factors into *f (numbers, and TRES arrays from xmalloc, as Slurm
// frees them): what sprio receives. *f must be zeroed or hold factors
// written by this function or by StoreJobFactors.
void FillFactorsObject(const StoredFactors& in, const PluginConfig& config,
                       priority_factors_object_t* f);

// The weighted TRES factors of a job in one partition into a factors
// object that has none (f->priority_tres null): for sprio, when a job's
// factors come from job->prio_factors, which keeps no TRES (see
// StoreJobFactors). Nothing when no TRES has a weight.
void AddTresFactors(const job_record_t* job, const part_record_t* part, const PluginConfig& config,
                    priority_factors_object_t* f);

// Requires: the job WRITE lock. Stores the factors in job->prio_factors,
// all but the TRES (freeing TRES arrays left there), and priority_array.
// Does not set job->priority. The TRES factors are the only ones that need
// arrays of their own, two small blocks per job; sprio reads a pass's
// table for the jobs it covers, and for the others computes the TRES from
// the job (AddTresFactors), which is what the stored values would be.
void StoreJobFactors(job_record_t* job, const StoredFactors& stored, const PluginConfig& config);

// Requires: the job WRITE lock. Stores a computed result: prio_factors,
// and priority_array (after sorting part_ptr_list by tier, the order the
// result was computed in). Does not set job->priority.
void StoreJobPriority(job_record_t* job, const JobPriority& result, const PluginConfig& config);

// Requires: the job READ lock. *factors (the job's) made sprio's row for
// one of a multi-partition job's partitions (core SprioPartitionRow).
void FactorsForPartition(const job_record_t* job, const part_record_t* part,
                         const PluginConfig& config, priority_factors_object_t* factors);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_JOB_BRIDGE_H_
