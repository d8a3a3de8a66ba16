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

}  // namespace fairway
