// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_index.h"

#include <algorithm>

namespace fairway {

void JobIndex::Assign(const uint32_t* ids, std::size_t id_count) {
  uint32_t smallest = UINT32_MAX, largest = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < id_count; ++i) {
    const uint32_t id = ids[i];
    if (id == 0) continue;
    smallest = std::min(smallest, id);
    largest = std::max(largest, id);
    ++count;
  }
  size_ = 0;
  if (count == 0) {
    dense_ = true;
    span_ = 0;
    return;
  }
  const uint64_t span = static_cast<uint64_t>(largest) - smallest + 1;
  if (span <= kMaxSpanPerId * count) {
    AssignDense(ids, id_count, smallest, span);
  } else {
    AssignHashed(ids, id_count, count);
  }
}

void JobIndex::AssignDense(const uint32_t* ids, std::size_t id_count, uint32_t smallest,
                           uint64_t span) {
  if (!dense_) ReleaseStorage(&slots_);  // the other layout's memory
  dense_ = true;
  base_ = smallest;
  span_ = span;
  if (positions_.size() < span) positions_.resize(span);
  std::fill(positions_.begin(), positions_.begin() + static_cast<std::ptrdiff_t>(span), kNotFound);
  for (std::size_t i = 0; i < id_count; ++i) {
    if (ids[i] == 0) continue;
    uint32_t& slot = positions_[ids[i] - base_];
    if (slot == kNotFound) {
      slot = static_cast<uint32_t>(i);
      ++size_;
    }
  }
}

void JobIndex::AssignHashed(const uint32_t* ids, std::size_t id_count, std::size_t count) {
  if (dense_) ReleaseStorage(&positions_);
  dense_ = false;
  std::size_t capacity = 16;
  unsigned bits = 4;
  while (capacity < 2 * count) {
    capacity *= 2;
    ++bits;
  }
  hash_shift_ = 64 - bits;
  if (slots_.size() != capacity) {
    slots_.assign(capacity, Slot{});
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }
  for (std::size_t i = 0; i < id_count; ++i) {
    const uint32_t id = ids[i];
    if (id == 0) continue;
    for (std::size_t s = Home(id);; s = (s + 1) & (slots_.size() - 1)) {
      if (slots_[s].id == id) break;
      if (slots_[s].id == 0) {
        slots_[s] = Slot{id, static_cast<uint32_t>(i)};
        ++size_;
        break;
      }
    }
  }
}

size_t JobIndex::Home(uint32_t id) const {
  // Only spread-out ids get here. Fibonacci hashing: the product's high
  // bits depend on every bit of the id, so ids a multiple of the table size
  // apart do not share a home (the low bits of a product would).
  return static_cast<std::size_t>((id * 0x9e3779b97f4a7c15ull) >> hash_shift_);
}

uint32_t JobIndex::Find(uint32_t id) const {
  if (id == 0 || size_ == 0) return kNotFound;
  if (dense_) {
    if (id < base_ || id - base_ >= span_) return kNotFound;
    return positions_[id - base_];
  }
  for (std::size_t s = Home(id);; s = (s + 1) & (slots_.size() - 1)) {
    if (slots_[s].id == id) return slots_[s].position;
    if (slots_[s].id == 0) return kNotFound;
  }
}

}  // namespace fairway
