// SPDX-License-Identifier: GPL-2.0-or-later
// The table sprio reads (api_pass_table.h): a record's factors as
// fairway_api.h returns them, and which of a pass's two tables holds a
// job's current factors.
#include "api/api_pass_table.h"

#include <algorithm>

#include "priority_terms.h"

namespace fairway::api {

void StoredOf(const PassRecord& r, const PassTable& t, fw_factors_t* s) {
  *s = fw_factors_t{};
  terms::CopyScalarFactors(r, s);
  s->site = r.site;
  s->nice = r.nice;
  const size_t position = static_cast<size_t>(&r - t.records.data());
  const size_t stride = t.tres_columns.size();
  s->tres_cnt = t.tres_cnt;
  s->tres = stride ? &t.tres[position * stride] : nullptr;
  s->tres_columns = t.tres_columns.data();
  s->tres_values = static_cast<uint32_t>(stride);
  if (r.multi_partition) {
    const auto slice = std::lower_bound(
        t.partition_slices.begin(), t.partition_slices.end(), position,
        [](const PartitionSlice& a, size_t p) { return a.position < p; });
    if (slice != t.partition_slices.end() && slice->position == position) {
      s->partition_priorities = &t.partition_priorities[slice->offset];
      s->partition_count = slice->count;
    }
  }
  s->priority = r.priority;
  s->clamped = r.clamped;
}

bool TableFactors(const PassTable& published, const PassTable* building, uint32_t job_id,
                  fw_factors_t* out) {
  const PassTable* table = &published;
  uint32_t position = JobIndex::kNotFound;
  if (building) {
    // Between two slices of the store the pass's own table is the job's
    // (a job it does not hold is no longer in a pass), unless its new
    // priority is still to be stored.
    position = building->index.Find(job_id);
    if (position == JobIndex::kNotFound) return false;
    if (building->records[position].awaiting_store) {
      position = published.index.Find(job_id);
    } else {
      table = building;
    }
  } else {
    position = published.index.Find(job_id);
  }
  if (position == JobIndex::kNotFound) return false;
  const PassRecord& r = table->records[position];
  if (!r.published) return false;
  StoredOf(r, *table, out);
  return true;
}

}  // namespace fairway::api
