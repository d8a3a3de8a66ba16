// SPDX-License-Identifier: GPL-2.0-or-later
// The table sprio reads (api_pass_table.h): a record's factors as
// fairway_api.h returns them, its partition priorities, and compaction.
#include "api/api_pass_table.h"

#include <algorithm>

#include "priority_terms.h"

namespace fairway::api {
namespace {

// The first slice at or after position in slices (sorted by position).
template <typename Slices>
auto SliceAt(Slices& slices, size_t position) {
  return std::lower_bound(slices.begin(), slices.end(), position,
                          [](const PartitionSlice& a, size_t p) { return a.position < p; });
}

}  // namespace

void ScalarFactorsOf(const PassRecord& r, fw_factors_t* s) {
  terms::CopyScalarFactors(r, s);
  s->site = r.site;
  s->nice = r.nice;
  s->priority = r.priority;
  s->clamped = r.clamped;
}

void StoredOf(const PassRecord& r, const PassTable& t, fw_factors_t* s) {
  *s = fw_factors_t{};
  ScalarFactorsOf(r, s);
  const size_t position = static_cast<size_t>(&r - t.records.data());
  const size_t stride = t.tres_columns.size();
  s->tres_cnt = t.tres_cnt;
  s->tres = stride ? &t.tres[position * stride] : nullptr;
  s->tres_columns = t.tres_columns.data();
  s->tres_values = static_cast<uint32_t>(stride);
  if (r.multi_partition) {
    const auto slice = SliceAt(t.partition_slices, position);
    if (slice != t.partition_slices.end() && slice->position == position) {
      s->partition_priorities = &t.partition_priorities[slice->offset];
      s->partition_count = slice->count;
    }
  }
}

void SetPartitionPriorities(PassTable* t, uint32_t position, const uint32_t* values,
                            uint32_t count) {
  auto slice = SliceAt(t->partition_slices, position);
  if (slice == t->partition_slices.end() || slice->position != position) {
    slice = t->partition_slices.insert(slice, PartitionSlice{position, 0, 0});
  }
  if (slice->count != count) {
    slice->offset = static_cast<uint32_t>(t->partition_priorities.size());
    slice->count = count;
    t->partition_priorities.resize(t->partition_priorities.size() + count);
  }
  std::copy(values, values + count, t->partition_priorities.begin() + slice->offset);
}

void ClearTable(PassTable* t) {
  t->records.clear();
  t->tres.clear();
  t->job_ids.clear();
  t->partition_slices.clear();
  t->partition_priorities.clear();
  t->index.Assign(nullptr, 0);
}

void CompactTable(PassTable* t, std::vector<uint32_t>* remap) {
  const size_t stride = t->tres_columns.size();
  const size_t old_count = t->records.size();
  remap->assign(old_count, JobIndex::kNotFound);
  size_t kept = 0;
  for (size_t i = 0; i < old_count; ++i) {
    if (t->records[i].seen != t->parity) continue;
    if (kept != i) {
      t->records[kept] = t->records[i];
      t->job_ids[kept] = t->job_ids[i];
      std::copy_n(t->tres.begin() + i * stride, stride, t->tres.begin() + kept * stride);
    }
    (*remap)[i] = static_cast<uint32_t>(kept++);
  }
  t->records.resize(kept);
  t->job_ids.resize(kept);
  t->tres.resize(kept * stride);
  std::vector<PartitionSlice> slices;
  std::vector<uint32_t> priorities;
  for (const PartitionSlice& s : t->partition_slices) {
    const uint32_t to = (*remap)[s.position];
    if (to == JobIndex::kNotFound || !t->records[to].multi_partition) continue;
    slices.push_back(PartitionSlice{to, static_cast<uint32_t>(priorities.size()), s.count});
    priorities.insert(priorities.end(), t->partition_priorities.begin() + s.offset,
                      t->partition_priorities.begin() + s.offset + s.count);
  }
  t->partition_slices.swap(slices);
  t->partition_priorities.swap(priorities);
  // Given back when the queue shrank to under half (ReleaseIfOversized's
  // rule): shrink_to_fit copies into storage of the new size.
  if (t->records.capacity() > 2 * kept + 1024) {
    t->records.shrink_to_fit();
    t->job_ids.shrink_to_fit();
    t->tres.shrink_to_fit();
  }
  t->index.Assign(t->job_ids.data(), t->job_ids.size());
}

bool TableFactors(const PassTable& t, uint32_t job_id, fw_factors_t* out) {
  const uint32_t position = t.index.Find(job_id);
  if (position == JobIndex::kNotFound || position >= t.records.size()) return false;
  const PassRecord& r = t.records[position];
  if (!r.published) return false;
  StoredOf(r, t, out);
  return true;
}

}  // namespace fairway::api
