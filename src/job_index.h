// SPDX-License-Identifier: GPL-2.0-or-later
// Job id -> position in an array of per-job records, for tens of thousands
// of jobs, rebuilt once per priority pass and looked up by sprio. Job ids
// are nearly consecutive, so the usual case is a dense array indexed by
// id - smallest id (4 bytes per id in the span, written and read in order);
// ids spread wider than kMaxSpanPerId times their number go into a flat
// open-addressing table instead. Neither allocates per job; both are
// PageVectors, so an index that is destroyed gives its memory back.
#ifndef FAIRWAY_JOB_INDEX_H_
#define FAIRWAY_JOB_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "page_allocator.h"

namespace fairway {

class JobIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;
  // Above this many span slots per id the dense array would cost more
  // memory than the table (8 bytes per slot, at most half full).
  static constexpr uint64_t kMaxSpanPerId = 4;

  // Replaces what is indexed by ids[i] -> i for every non-zero id (job id 0
  // does not exist); a repeated id keeps its first position. Keeps the
  // storage of the last build when it is large enough.
  void Assign(const uint32_t* ids, std::size_t id_count);
  void Assign(const std::vector<uint32_t>& ids) { Assign(ids.data(), ids.size()); }
  uint32_t Find(uint32_t id) const;
  std::size_t size() const { return size_; }
  bool dense() const { return dense_; }

 private:
  struct Slot {
    uint32_t id = 0;  // 0 = empty
    uint32_t position = 0;
  };
  void AssignDense(const uint32_t* ids, std::size_t id_count, uint32_t smallest, uint64_t span);
  void AssignHashed(const uint32_t* ids, std::size_t id_count, std::size_t count);
  std::size_t Home(uint32_t id) const;

  bool dense_ = true;
  uint32_t base_ = 0;                // dense: the smallest id
  uint64_t span_ = 0;                // dense: ids base_ .. base_ + span_ - 1
  PageVector<uint32_t> positions_;   // dense: position of id base_ + i, or kNotFound
  PageVector<Slot> slots_;           // hashed: a power of two, at most half full
  unsigned hash_shift_ = 60;         // hashed: 64 - log2(slots_.size())
  std::size_t size_ = 0;
};

}  // namespace fairway

#endif  // FAIRWAY_JOB_INDEX_H_
