// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_index.h"

#include <algorithm>

namespace fairway {

void JobIndex::Reset(size_t expected) {
  size_t capacity = 16;
  while (capacity < 2 * expected) capacity *= 2;
  if (slots_.size() < capacity) {
    slots_.assign(capacity, Slot{});
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }
  size_ = 0;
}

size_t JobIndex::Home(uint32_t id) const {
  // Job ids are consecutive: a multiplicative hash spreads them over the
  // table instead of filling one run.
  return (id * 0x9e3779b1u) & (slots_.size() - 1);
}

void JobIndex::Insert(uint32_t id, uint32_t position) {
  if (id == 0) return;
  if (2 * (size_ + 1) > slots_.size()) {
    // Grow: re-insert what is there into a table twice as large.
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.id) Insert(s.id, s.position);
    }
  }
  for (size_t i = Home(id);; i = (i + 1) & (slots_.size() - 1)) {
    if (slots_[i].id == id) return;
    if (slots_[i].id == 0) {
      slots_[i] = Slot{id, position};
      ++size_;
      return;
    }
  }
}

uint32_t JobIndex::Find(uint32_t id) const {
  if (id == 0 || slots_.empty()) return kNotFound;
  for (size_t i = Home(id);; i = (i + 1) & (slots_.size() - 1)) {
    if (slots_[i].id == id) return slots_[i].position;
    if (slots_[i].id == 0) return kNotFound;
  }
}

}  // namespace fairway
