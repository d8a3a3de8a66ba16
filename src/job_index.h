// SPDX-License-Identifier: GPL-2.0-or-later
// Job id -> position in an array of per-job records, for tens of thousands
// of jobs: one flat open-addressing table, rebuilt once per priority pass
// and looked up by sprio, so neither allocates per job nor chases pointers.
#ifndef FAIRWAY_JOB_INDEX_H_
#define FAIRWAY_JOB_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairway {

class JobIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Forgets every id and sizes the table for `expected` ids (keeps its
  // storage when large enough).
  void Reset(std::size_t expected);
  // Adds id (non-zero) at position; a repeated id keeps its first position.
  void Insert(uint32_t id, uint32_t position);
  uint32_t Find(uint32_t id) const;
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t id = 0;  // 0 = empty (job id 0 does not exist)
    uint32_t position = 0;
  };
  std::size_t Home(uint32_t id) const;

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace fairway

#endif  // FAIRWAY_JOB_INDEX_H_
