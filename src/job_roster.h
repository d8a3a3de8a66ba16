// SPDX-License-Identifier: GPL-2.0-or-later
// How a decay pass reaches every job record without walking slurmctld's
// linked job list (the rule; the lookups are the boundary's, which keeps
// the records: job_find.c). The list is one small heap node per job, each holding the
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

#include "page_allocator.h"

namespace fairway {

// Whether ids holds n distinct ids, none of them 0 (a record whose id is
// not yet set). A roster built from a list that broke this could find one
// record twice and miss another.
bool AllDistinctJobIds(const uint32_t* ids, std::size_t n);

// The ids of the job list's records in list order, and whether the next
// pass may find the records by them. The caller keeps the records, in the
// same order, and does the lookups: this class says which ids to look up
// and whether what was found is certainly the whole list.
class JobRoster {
 public:
  // Consecutive ids above the largest known one that may name no job
  // before the search gives up: submissions that failed after taking an
  // id leave such gaps, and looking up an absent id costs a few loads.
  static constexpr uint32_t kMaxIdGap = 4096;

  // After a walk over the job list: its ids in order. Returns whether the
  // next refind may rely on them (false when two share an id or one has
  // none: the next pass walks again).
  bool AssignWalked(const uint32_t* ids, std::size_t count);

  // What the caller looks up, as described above: the last pass's ids in
  // list order (*ids, *count), then new ids from *first_new_id up. False
  // when the caller must walk instead.
  bool Known(const uint32_t** ids, std::size_t* count, uint32_t* first_new_id) const;

  // The caller's lookups: ids[0..count) of the records it found, in list
  // order: first those of Known that still name the record they named
  // (all of them but the ones whose lookup found nothing; when one names
  // another record the caller walks instead), then, from first_new on, the
  // ids from *first_new_id up whose lookup found a record certain to sit
  // in the list where its id says (not a job array's: the caller walks
  // when it finds one), ascending, the search stopping once there are
  // expected records, or at an id more than kMaxIdGap above the last one
  // found (or *first_new_id - 1), or at id_limit (the first id slurmctld
  // does not hand out). expected: the
  // list's count. True when they are certainly the whole list (they are
  // then the roster's ids); false: the roster is unchanged, and the caller
  // walks and calls AssignWalked.
  bool Accept(const uint32_t* ids, std::size_t count, std::size_t first_new,
              std::size_t expected, uint32_t id_limit);

  const PageVector<uint32_t>& ids() const { return ids_; }
  // Forgets the ids: the next pass walks.
  void Invalidate() { valid_ = false; }

 private:
  PageVector<uint32_t> ids_;
  uint32_t max_id_ = 0;  // the largest id ever found: new jobs get larger ones
  bool valid_ = false;
};

}  // namespace fairway

#endif  // FAIRWAY_JOB_ROSTER_H_
