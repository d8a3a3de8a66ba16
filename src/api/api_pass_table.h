// SPDX-License-Identifier: GPL-2.0-or-later
// The table sprio reads: the pass's computed results, one compact record
// per pending job with its TRES factors and partition priorities beside
// it, indexed by job id. There is one table: a pass updates it in place
// (api_pass.cc), the jobs whose priority did not change during the gather,
// the others when the store writes their priority, so that sprio always
// reads factors that agree with job->priority. C++ only; never included by
// the boundary.
#ifndef FAIRWAY_API_API_PASS_TABLE_H_
#define FAIRWAY_API_API_PASS_TABLE_H_

#include <cstdint>
#include <vector>

#include "api/fairway_api.h"
#include "job_index.h"
#include "page_allocator.h"

namespace fairway::api {

// One job's computed result, kept compact (64 bytes, one per pending job:
// tens of thousands), so the TRES values and the priorities of
// multi-partition and multi-QOS jobs live in a parallel array and a shared
// arena rather than in the record; the job id is kept in the table's
// job_ids and index.
struct PassRecord {
  PassRecord()
      : published(false), forgotten(false), seen(false), clamped(false), multi_partition(false) {}
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t priority = 0;
  uint32_t site = 0, nice = 0;
  bool published : 1;  // the job's current factors: sprio may show them
  // priority_p_set stored newer factors in the job since the last gather
  // reached it: the store must not publish the pass's over them.
  bool forgotten : 1;
  bool seen : 1;  // equal to PassTable::parity: the last gather reached it
  bool clamped : 1;
  bool multi_partition : 1;  // has a PartitionSlice
};
static_assert(sizeof(PassRecord) == 64, "one record per pending job: keep it to a cache line");

// Where a multi-partition job's priorities are in partition_priorities.
struct PartitionSlice {
  uint32_t position = 0;  // of the record
  uint32_t offset = 0;
  uint32_t count = 0;
};

// The table. Records keep their position from pass to pass (a new job is
// appended) until a gather finds enough of them unreached to compact it.
// Its large arrays are PageVectors: mapped on their own, and given back
// to the system when the queue shrinks, not kept in malloc's arena.
struct PassTable {
  PageVector<PassRecord> records;
  // The weighted TRES factors of the TRES that have a weight (most of
  // Slurm's TRES have none and their factors are 0): tres_columns.size()
  // per record, in order; tres_columns are their indexes among tres_cnt.
  PageVector<double> tres;
  PageVector<uint32_t> job_ids;  // records[i]'s job id
  std::vector<uint32_t> tres_columns;
  uint32_t tres_cnt = 0;
  // By position, ascending. A slice whose count changes gets a new place
  // at the arena's end; compaction drops the old ones.
  std::vector<PartitionSlice> partition_slices;
  std::vector<uint32_t> partition_priorities;
  // Job id -> records position, for the positions job_ids had when it was
  // last assigned. Job ids identify jobs: slurmctld does not reuse one
  // while its record exists.
  JobIndex index;
  bool parity = false;  // PassRecord::seen of the records this gather reached
};

// The scalar factors, priority and clamp of r into *s (the rest of *s
// untouched): what a record holds without its table.
void ScalarFactorsOf(const PassRecord& r, fw_factors_t* s);

// The factors of record r of table t, as fairway_api.h's fw_factors_t: the
// TRES and partition priorities point into t (valid while t is unchanged).
void StoredOf(const PassRecord& r, const PassTable& t, fw_factors_t* s);

// Sets the partition priorities of the record at position (count > 0).
void SetPartitionPriorities(PassTable* t, uint32_t position, const uint32_t* values,
                            uint32_t count);

// Empties t, keeping its storage.
void ClearTable(PassTable* t);

// Drops the records the last gather did not reach (seen != parity),
// keeping the others' order, and rebuilds the index. remap (resized to the
// old record count): each old position's new one, JobIndex::kNotFound for
// a dropped record. Gives storage back when the table shrank to less than
// half of it.
void CompactTable(PassTable* t, std::vector<uint32_t>* remap);

// fw_pass_factors: the factors sprio shows for job_id, false when the
// table holds none that are the job's current ones.
bool TableFactors(const PassTable& t, uint32_t job_id, fw_factors_t* out);

}  // namespace fairway::api

#endif  // FAIRWAY_API_API_PASS_TABLE_H_
