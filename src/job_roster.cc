// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_roster.h"

#include <algorithm>
#include <vector>

namespace fairway {

bool AllDistinctJobIds(const uint32_t* ids, std::size_t n) {
  if (n == 0) return true;
  uint32_t smallest = UINT32_MAX, largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) return false;
    smallest = std::min(smallest, ids[i]);
    largest = std::max(largest, ids[i]);
  }
  const uint64_t span = static_cast<uint64_t>(largest) - smallest + 1;
  // Job ids are nearly consecutive: a bitmap over their span (a few bits
  // per job) is one pass; sorting a copy is for ids spread wide.
  constexpr uint64_t kMaxSpanPerId = 64;
  if (span <= kMaxSpanPerId * n) {
    std::vector<bool> seen(span);
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t k = ids[i] - smallest;
      if (seen[k]) return false;
      seen[k] = true;
    }
    return true;
  }
  std::vector<uint32_t> sorted(ids, ids + n);
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

bool JobRoster::AssignWalked(const uint32_t* ids, std::size_t count) {
  ids_.clear();
  ReserveReusing(&ids_, count);
  if (count) ids_.insert(ids_.end(), ids, ids + count);
  valid_ = AllDistinctJobIds(ids_.data(), ids_.size());
  max_id_ = 0;
  for (uint32_t id : ids_) max_id_ = id > max_id_ ? id : max_id_;
  return valid_;
}

bool JobRoster::Known(const uint32_t** ids, std::size_t* count, uint32_t* first_new_id) const {
  *ids = ids_.data();
  *count = valid_ ? ids_.size() : 0;
  *first_new_id = max_id_ + 1;
  return valid_;
}

bool JobRoster::Accept(const uint32_t* ids, std::size_t count, std::size_t first_new,
                       std::size_t expected, uint32_t id_limit) {
  if (!valid_ || count != expected || first_new > count) return false;
  // The known ids found again: the roster's, in its order, some left out.
  std::size_t j = 0;
  for (std::size_t k = 0; k < first_new; ++k) {
    while (j < ids_.size() && ids_[j] != ids[k]) ++j;
    if (j == ids_.size()) return false;
    ++j;
  }
  // The new ids: increasing from above every id found so far, each at most
  // kMaxIdGap above the one before (fewer than kMaxIdGap absent ids in
  // between), below id_limit.
  uint64_t previous = max_id_;
  for (std::size_t k = first_new; k < count; ++k) {
    const uint64_t id = ids[k];
    if (id <= previous || id - previous > kMaxIdGap || id >= id_limit) return false;
    previous = id;
  }
  // The search stops at the last id it found (or never ran).
  max_id_ = static_cast<uint32_t>(previous);
  ids_.assign(ids, ids + count);
  return true;
}

}  // namespace fairway
