// SPDX-License-Identifier: GPL-2.0-or-later
// The table sprio reads: one pass's computed results, one compact record
// per pending job with its TRES factors and partition priorities beside
// it, indexed by job id (api_pass.cc fills one table while sprio reads the
// other, and swaps them when the store ends). C++ only; never included by
// the boundary.
#ifndef FAIRWAY_API_API_PASS_TABLE_H_
#define FAIRWAY_API_API_PASS_TABLE_H_

#include <cstdint>
#include <vector>

#include "api/fairway_api.h"
#include "job_index.h"
#include "page_allocator.h"

namespace fairway::api {

// One job's computed result, kept compact: one per pending job (tens of
// thousands) in the table sprio reads, and in the one a pass fills while it
// runs, so the TRES values and the priorities of multi-partition and
// multi-QOS jobs live in a parallel array and a shared arena rather than in the
// record (64 bytes); the job id is kept only in the index and in the
// pass's job_ids (api_pass.cc), which its changed jobs refer to.
struct PassRecord {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t priority = 0;
  uint32_t site = 0, nice = 0;
  bool published = true;        // still the job's factors for sprio
  bool awaiting_store = false;  // changed; the store has not reached it yet
  bool clamped = false;
  bool multi_partition = false;  // has a PartitionSlice
};

// Where a multi-partition job's priorities are in partition_priorities.
struct PartitionSlice {
  uint32_t position = 0;  // of the record
  uint32_t offset = 0;
  uint32_t count = 0;
};

// The results of one pass. The pass fills one table while sprio reads the
// previous one; the store swaps them under the job write lock, and the
// table sprio no longer reads is refilled by the next pass. It is kept
// (about 100 bytes per job) rather than freed: mapping and populating the
// pages anew every pass, and unmapping them, took over a quarter of the
// pass's CPU on the benchmark machine (perf: mmap, page faults, munmap).
// Its arrays are PageVectors: one that outgrows a shrunken queue is
// given back to the system (ReserveReusing), not kept in malloc's arena.
struct PassTable {
  PageVector<PassRecord> records;
  // The weighted TRES factors of the TRES that have a weight (most of
  // Slurm's TRES have none and their factors are 0): tres_columns.size()
  // per record, in order; tres_columns are their indexes among tres_cnt.
  PageVector<double> tres;
  std::vector<uint32_t> tres_columns;
  uint32_t tres_cnt = 0;
  std::vector<PartitionSlice> partition_slices;  // by position, ascending
  std::vector<uint32_t> partition_priorities;
  // Job id -> records position. Job ids identify jobs: slurmctld does not
  // reuse one while its record exists.
  JobIndex index;
};

// The factors of record r of table t, as fairway_api.h's fw_factors_t: the
// TRES and partition priorities point into t (valid while t is unchanged).
void StoredOf(const PassRecord& r, const PassTable& t, fw_factors_t* s);

// fw_pass_factors: the factors sprio shows for job_id, from published,
// or, while a store is under way (building not null), from the pass's own
// table for the jobs it has stored or left unchanged. False when neither
// holds the job's current factors.
bool TableFactors(const PassTable& published, const PassTable* building, uint32_t job_id,
                  fw_factors_t* out);

}  // namespace fairway::api

#endif  // FAIRWAY_API_API_PASS_TABLE_H_
