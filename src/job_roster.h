// SPDX-License-Identifier: GPL-2.0-or-later
// How a decay pass reaches every job record without walking slurmctld's
// linked job list. The list is one small heap node per job, each holding the
// address of the next: a chain of dependent cache misses that no prefetch
// can run ahead of (a quarter of a pass at 20,000 jobs on the Intel VM of
// doc/benchmark.md). slurmctld also finds a job by id in a hash table whose
// slots for consecutive ids are adjacent, and job ids are handed out in
// increasing order. So a pass looks up the ids the last pass found, then
// the ids above the largest of them, and accepts the result only when it
// is certain to be the whole job list: exactly as many records as the list
// counts, each of the last pass's ids still naming the record it named.
// Otherwise the caller walks the list, and the roster starts again from
// that walk.
//
// The order of the records matters to the caller (the usage charge adds
// running jobs in list order, as multifactor does, and floating-point sums
// depend on their order), so the roster keeps the list's order: the last
// pass's jobs in their order, then the new ones by increasing id, which is
// the order slurmctld appended them in. The cases where new ids are not in
// that order are refused: new records of job arrays (when a task is split
// off, its record keeps its place under a new id while the array's id
// moves to a new record at the end; so a pass after an array was
// submitted or a task of one started walks the list), ids that wrapped around at MaxJobId or were set
// below the largest by hand, and federated sibling jobs (ids far from the
// others). Two cases pass unseen, both needing a job id set by hand
// (`sbatch --jobid`, SlurmUser only): a job given an id above the largest
// the last pass found is placed among the jobs submitted since by its id,
// not by when it was submitted; and a purged job's id given to a new job
// whose record reuses the old one's address keeps the old one's place.
// Both leave the records right and only their order off until the next
// walk, which changes nothing but the last bits of usage sums that add
// several running jobs.
#ifndef FAIRWAY_JOB_ROSTER_H_
#define FAIRWAY_JOB_ROSTER_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "page_allocator.h"

namespace fairway {

// Whether ids holds n distinct ids, none of them 0 (a record whose id is
// not yet set). A roster built from a list that broke this could find one
// record twice and miss another.
bool AllDistinctJobIds(const uint32_t* ids, std::size_t n);

template <typename Record>
class JobRoster {
 public:
  // Consecutive ids above the largest known one that may name no job
  // before the search gives up: submissions that failed after taking an
  // id leave such gaps, and looking up an absent id costs a few loads.
  static constexpr uint32_t kMaxIdGap = 4096;
  // Records whose lines are requested ahead of the lookups.
  static constexpr std::size_t kPrefetchAhead = 16;

  // After a walk over the job list: fill(&records, &ids) appends the list's
  // records in order and their ids to the two empty vectors. Returns
  // whether the next Refind may rely on them (false when two share an id
  // or one has none: the next pass walks again).
  template <typename Fill>
  bool AssignWalked(Fill&& fill) {
    records_.clear();
    ids_.clear();
    fill(&records_, &ids_);
    valid_ = records_.size() == ids_.size() && AllDistinctJobIds(ids_.data(), ids_.size());
    max_id_ = 0;
    for (uint32_t id : ids_) max_id_ = id > max_id_ ? id : max_id_;
    return valid_;
  }

  // Finds the job list's records by id, as described above. lookup(id)
  // returns the record with that id or nullptr (slurmctld's
  // find_job_record); prefetch(record) may ask for the lines a lookup of
  // the record reads, given an address from the last pass that must never
  // be read through (the record may be gone); in_id_order(record) says
  // whether a record found under a new id is certain to sit in the list
  // where its id says (false for any record of a job array: a task split
  // off takes a new id and keeps its place, and its array's record moves
  // to the end under the old id).
  // expected is the number of records in the list; new ids are searched
  // below id_limit, the first id slurmctld does not hand out. True:
  // records() and ids() are the list's, in its order. False: they are
  // unchanged, and the caller walks the list and calls AssignWalked.
  template <typename Lookup, typename Prefetch, typename InIdOrder>
  bool Refind(std::size_t expected, uint32_t id_limit, Lookup&& lookup, Prefetch&& prefetch,
              InIdOrder&& in_id_order) {
    if (!valid_) return false;
    next_records_.clear();
    next_ids_.clear();
    ReserveReusing(&next_records_, expected);
    ReserveReusing(&next_ids_, expected);
    const std::size_t known = ids_.size();
    for (std::size_t i = 0; i < known; ++i) {
      if (i + kPrefetchAhead < known) prefetch(records_[i + kPrefetchAhead]);
      Record* record = lookup(ids_[i]);
      if (!record) continue;  // purged since
      // Another record under a known id took a new place in the list.
      if (record != records_[i]) return false;
      next_records_.push_back(record);
      next_ids_.push_back(ids_[i]);
    }
    if (next_records_.size() > expected) return false;
    // New jobs: increasing ids above every id found so far.
    uint64_t id = max_id_;
    uint32_t gap = 0;
    while (next_records_.size() < expected) {
      if (++id >= id_limit || ++gap > kMaxIdGap) return false;
      Record* record = lookup(static_cast<uint32_t>(id));
      if (!record) continue;
      if (!in_id_order(record)) return false;
      gap = 0;
      next_records_.push_back(record);
      next_ids_.push_back(static_cast<uint32_t>(id));
    }
    // The search stops at the last id it found (or never ran).
    max_id_ = static_cast<uint32_t>(id);
    std::swap(records_, next_records_);
    std::swap(ids_, next_ids_);
    return true;
  }

  const PageVector<Record*>& records() const { return records_; }
  const PageVector<uint32_t>& ids() const { return ids_; }
  // Forgets the records: the next Refind fails, so the next pass walks.
  void Invalidate() { valid_ = false; }

 private:
  PageVector<Record*> records_;
  PageVector<uint32_t> ids_;
  PageVector<Record*> next_records_;  // Refind's result, swapped in on success
  PageVector<uint32_t> next_ids_;
  uint32_t max_id_ = 0;  // the largest id ever found: new jobs get larger ones
  bool valid_ = false;
};

}  // namespace fairway

#endif  // FAIRWAY_JOB_ROSTER_H_
