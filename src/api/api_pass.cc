// SPDX-License-Identifier: GPL-2.0-or-later
// The decay pass's protocol (fw_pass_*): the ids of the job records the
// boundary finds (job_roster.h), every eligible job computed under the
// read locks into the table being built, the jobs whose priority changed
// stored a slice at a time under the job write lock, then the tables
// swapped. The table sprio reads is api_pass_table.h's. The boundary
// walks Slurm's structures, keeps their addresses and takes the locks;
// the numbers kept from pass to pass are here.
#include <algorithm>
#include <vector>

#include "api/api_internal.h"
#include "api/api_pass_table.h"
#include "flat_priority.h"
#include "job_index.h"
#include "job_roster.h"
#include "page_allocator.h"
#include "priority_terms.h"

namespace fairway::api {
namespace {

// A job whose new priority differs from job->priority or priority_array:
// the store writes it, after the boundary checked that the job did not
// change meanwhile (the stamp it wrote where fw_pass_add said). 16 bytes:
// the job id is job_ids[position]; no Slurm address is kept.
struct ChangedJob {
  uint32_t position = 0;      // in building.records
  uint32_t record_index = 0;  // the boundary's, for its prefetches
  uint64_t stamp = 0;         // the boundary's, handed back
};

// The store takes the job write lock once per this many changed jobs (0.1 to
// 0.5 ms on the benchmark machine), not once for all: a query or
// submission then waits for one slice rather than for every job whose
// priority changed (after a restart, a third of the queue).
constexpr size_t kStoredJobsPerHold = 1000;
// The store finds each job by id (a hash lookup) before it reads the job:
// the boundary prefetches the record of the job this many items ahead
// (by its own record_index), and the allocations the record points to
// of the job half as far ahead (found by id, under the write lock).
constexpr size_t kPrefetchStoresAhead = 8;
constexpr uint32_t kNoItem = UINT32_MAX;

}  // namespace
}  // namespace fairway::api

// What a pass keeps between passes: the table sprio reads, the one the
// next pass fills, and the scratch arrays, all reused pass after pass.
struct fw_pass {
  fairway::api::PassTable building;   // the decay thread's own; stale between passes
  fairway::api::PassTable published;  // read under the job read lock, changed under the write lock
  fairway::PageVector<fairway::api::ChangedJob> changed;  // building's jobs the store will write
  // The ids of job_list's records in list order (the boundary keeps the
  // records), for the next pass to find them by id rather than walk the
  // list.
  fairway::JobRoster roster;
  fairway::PageVector<uint32_t> job_ids;  // building.records[i]'s job id (index, store)
  // Jobs priority_p_set stored while a pass was computing: their new
  // factors replace the pass's.
  std::vector<uint32_t> set_during_pass;
  bool pass_in_progress = false;
  // Set under the job write lock once the store has begun: from then until
  // the tables are swapped, sprio reads `building` for the jobs already
  // stored (and those whose priority did not change), `published` for the
  // others, so that factors and job->priority always agree.
  bool storing = false;
  // Until a pass has stored every job's factors once, every job counts as
  // changed: a restarted slurmctld's job records keep their priority but
  // start with prio_factors at 0 (_create_job_record), and job_limits_check
  // reads prio_factors->priority_fs for a QOS's UsageThreshold, 0 meaning
  // "recompute it unweighted" (slurm-22-05-8-1:src/slurmctld/job_mgr.c);
  // multifactor stores every job's factors every pass.
  bool factors_stored_once = false;
  bool slice_open = false;
  size_t next_to_store = 0;  // in changed
  size_t slice_end = 0;      // in changed: the open slice's end
  // building.records position of the item fw_pass_store_next last
  // returned, until the next call retires it (kNoItem: none).
  uint32_t current_item = fairway::api::kNoItem;
  // The pass under way.
  fw_config_t* config = nullptr;  // a reference, dropped at the next begin
  fairway::ClusterInputs cluster;
  int64_t now = 0;
  fairway::FlatWeights flat_weights;  // this pass's (points into config)
  fw_pass_stats_t stats{};
  fairway::JobInputs inputs;        // scratch for one job (general path)
  fairway::JobPriority result;      // scratch for one job (general path)
  fairway::FlatResult flat_result;  // scratch for one job (single partition)
};

namespace fairway::api {
namespace {

// Fills a computed job's record, from either path; priority: the one to
// store (INCR_ONLY applied).
template <typename Factors>
void FillRecord(const Factors& weighted, uint32_t priority, bool clamped, PassRecord* r) {
  terms::CopyScalarFactors(weighted, r);
  r->site = weighted.site;
  r->nice = weighted.nice;
  r->priority = priority;
  r->clamped = clamped;
}

// Whether storing the result would change what the scheduler reads: the
// job's priority (stored: INCR_ONLY applied) or a partition's entry in
// priority_array. (The factors sprio shows are served from the pass's
// table, see fw_pass_factors.)
bool PriorityChanged(const fw_job_input_t& job, uint32_t stored, const JobPriority& result) {
  if (stored != job.priority) return true;
  if (PriorityCount(job) && !result.partition_priorities.empty()) {
    if (!job.priority_array) return true;
    for (size_t i = 0; i < result.partition_priorities.size(); ++i) {
      if (job.priority_array[i] != result.partition_priorities[i]) return true;
    }
  }
  return false;
}

// Appends a record for the job to the table being built and returns it,
// for the caller to fill in place. Only a job the store will touch (its
// priority changed) is noted, for the boundary's stamp. In place, not
// built on the stack and copied: the copy's 16-byte loads cannot take
// their data from the smaller stores that built it, so each waited until
// every older store had reached the cache, and the table's stores go to
// lines a pass ago long evicted (perf: the hottest instruction of the
// pass).
PassRecord& AppendRecord(const fw_job_input_t& job, bool priority_changed, fw_pass* b) {
  PassRecord& r = b->building.records.emplace_back();
  if (priority_changed || !b->factors_stored_once) {
    b->changed.push_back(ChangedJob{static_cast<uint32_t>(b->building.records.size() - 1),
                                    job.record_index, 0});
    r.awaiting_store = true;
  }
  b->job_ids.push_back(job.job_id);
  return r;
}

// Computes the job into the table; returns its stamp's place when the
// store will visit it (fw_pass_add).
uint64_t* Add(fw_pass* b, const fw_job_input_t& job, const fw_partition_input_t* partitions) {
  const fw_config& config = *b->config;
  const Params& params = config.params;
  PassTable& t = b->building;
  const size_t tres_stride = t.tres_columns.size();
  // Single-partition jobs (nearly all) are computed on the boundary's
  // record itself: no vectors to fill, only the weighted TRES, written
  // straight into the table. It gives the general path's results bit for
  // bit (flat_priority.h). A job with several QOS has one priority per
  // (partition, QOS) pair: the general path.
  if (!job.partition_list && !job.qos_list) {
    const fw_partition_input_t* part =
        partitions && job.partition != FW_NO_PARTITION ? &partitions[job.partition] : nullptr;
    const size_t tres_at = t.tres.size();
    t.tres.resize(tres_at + tres_stride);
    ComputeFlatPriority(job, part, b->flat_weights, b->cluster, b->now, &b->flat_result,
                        t.tres.data() + tres_at);
    const FlatResult& f = b->flat_result;
    const uint32_t stored = PriorityAfterIncrOnly(f.priority, job.priority, params);
    PassRecord& r = AppendRecord(job, stored != job.priority, b);
    FillRecord(f, stored, f.clamped, &r);
    return r.awaiting_store ? &b->changed.back().stamp : nullptr;
  }
  JobInputsFrom(config, job, partitions, &b->inputs);
  ComputeJobPriorityInto(b->inputs, params, b->cluster, b->now, &b->result);
  const std::vector<double>& weighted_tres = b->result.weighted.tres;
  for (uint32_t column : t.tres_columns) {
    t.tres.push_back(column < weighted_tres.size() ? weighted_tres[column] : 0.0);
  }
  const size_t position = t.records.size();
  const uint32_t stored = PriorityAfterIncrOnly(b->result.priority, job.priority, params);
  PassRecord& r = AppendRecord(job, PriorityChanged(job, stored, b->result), b);
  FillRecord(b->result.weighted, stored, b->result.clamped, &r);
  if (!b->result.partition_priorities.empty()) {
    r.multi_partition = true;
    t.partition_slices.push_back(
        PartitionSlice{static_cast<uint32_t>(position),
                       static_cast<uint32_t>(t.partition_priorities.size()),
                       static_cast<uint32_t>(b->result.partition_priorities.size())});
    t.partition_priorities.insert(t.partition_priorities.end(),
                                  b->result.partition_priorities.begin(),
                                  b->result.partition_priorities.end());
  }
  return r.awaiting_store ? &b->changed.back().stamp : nullptr;
}

// The item fw_pass_store_next returned last is done with: stored, or not
// (gone, ineligible, recomputed: the job's own factors are newer).
void Retire(fw_pass* b, bool stored) {
  if (b->current_item == kNoItem) return;
  if (!stored) {
    b->building.records[b->current_item].published = false;
    ++b->stats.recomputed;
  }
  b->current_item = kNoItem;
}

}  // namespace
}  // namespace fairway::api

using namespace fairway;
using fairway::api::ReportException;

extern "C" {

fw_pass_t* fw_pass_create(void) {
  try {
    return new fw_pass();
  } catch (...) {
    ReportException(nullptr, "fw_pass_create");
  }
  return nullptr;
}

void fw_pass_destroy(fw_pass_t* pass) {
  if (!pass) return;
  fw_config_unref(pass->config);
  delete pass;
}

bool fw_pass_roster(const fw_pass_t* pass, const uint32_t** ids, size_t* count,
                    uint32_t* next_id) {
  const uint32_t* none = nullptr;
  size_t zero = 0;
  uint32_t first = 0;
  if (!ids) ids = &none;
  if (!count) count = &zero;
  if (!next_id) next_id = &first;
  if (!pass) {
    *ids = nullptr;
    *count = 0;
    *next_id = 0;
    return false;
  }
  return pass->roster.Known(ids, count, next_id);
}

bool fw_pass_refound(fw_pass_t* pass, const uint32_t* ids, size_t count, size_t first_new,
                     size_t expected, uint32_t id_limit) {
  if (!pass || (count && !ids)) return false;
  try {
    return pass->roster.Accept(ids, count, first_new, expected, id_limit);
  } catch (...) {
    pass->roster.Invalidate();
    ReportException(pass->config, "fw_pass_refound");
  }
  return false;
}

void fw_pass_assign_walked(fw_pass_t* pass, const uint32_t* ids, size_t count) {
  if (!pass) return;
  try {
    pass->roster.AssignWalked(ids, ids ? count : 0);
  } catch (...) {
    pass->roster.Invalidate();
    ReportException(pass->config, "fw_pass_assign_walked");
  }
}

size_t fw_pass_jobs(const fw_pass_t* pass, const uint32_t** ids) {
  if (!pass) {
    if (ids) *ids = nullptr;
    return 0;
  }
  if (ids) *ids = pass->roster.ids().data();
  return pass->roster.ids().size();
}

void fw_pass_begin(fw_pass_t* pass, const fw_config_t* config, const fw_cluster_t* cluster,
                   int64_t now) {
  if (!pass || !config) return;
  fw_pass& b = *pass;
  try {
    fw_config_t* previous = b.config;
    b.config = fw_config_ref(const_cast<fw_config_t*>(config));
    fw_config_unref(previous);
    b.cluster = ClusterInputs{cluster ? cluster->cluster_cpus : 0,
                              cluster ? cluster->node_count : 0};
    b.now = now;
    api::PassTable& t = b.building;
    t.records.clear();
    t.tres.clear();
    b.changed.clear();
    b.job_ids.clear();
    t.partition_priorities.clear();
    t.partition_slices.clear();
    t.tres_cnt = static_cast<uint32_t>(config->params.weight_tres.size());
    t.tres_columns = config->weighted_tres;
    b.set_during_pass.clear();
    b.pass_in_progress = true;
    b.storing = false;
    b.slice_open = false;
    b.next_to_store = 0;
    b.current_item = api::kNoItem;
    b.stats = fw_pass_stats_t{};
    // Sized once for the whole queue: growing by doubling would map and
    // copy every size on the way.
    const size_t job_count = b.roster.ids().size();
    ReserveReusing(&t.records, job_count);
    ReserveReusing(&b.job_ids, job_count);
    ReserveReusing(&t.tres, job_count * t.tres_columns.size());
    ReleaseIfOversized(&b.changed, job_count);  // grows as needed
    BuildFlatWeights(config->params, config->weighted_tres, api::CountedTres(*config),
                     &b.flat_weights);
  } catch (...) {
    ReportException(config, "fw_pass_begin");
  }
}

uint64_t* fw_pass_add(fw_pass_t* pass, const fw_job_input_t* job,
                      const fw_partition_input_t* partitions) {
  if (!pass || !job || !pass->config || !pass->pass_in_progress || pass->storing) return nullptr;
  try {
    return api::Add(pass, *job, partitions);
  } catch (...) {
    ReportException(pass->config, "fw_pass_add");
  }
  return nullptr;
}

void fw_pass_end_gather(fw_pass_t* pass) {
  if (!pass) return;
  try {
    pass->building.index.Assign(pass->job_ids.data(), pass->job_ids.size());
    pass->stats.computed = pass->building.records.size();
    pass->stats.stored = pass->changed.size();
  } catch (...) {
    // Without an index no job is found in the table: sprio falls back to
    // the jobs' own factors.
    pass->building.index.Assign(nullptr, 0);
    ReportException(pass->config, "fw_pass_end_gather");
  }
}

bool fw_pass_store_next(fw_pass_t* pass, bool previous_stored, fw_store_item_t* item) {
  if (!pass || !item || !pass->pass_in_progress) return false;
  fw_pass& b = *pass;
  api::PassTable& t = b.building;
  if (!b.storing) {
    b.storing = true;
    for (uint32_t job_id : b.set_during_pass) {
      const uint32_t position = t.index.Find(job_id);
      if (position != JobIndex::kNotFound) t.records[position].published = false;
    }
    b.set_during_pass.clear();
  }
  if (!b.slice_open) {
    b.slice_open = true;
    b.current_item = api::kNoItem;  // a slice's first call retires nothing
    b.slice_end = std::min(b.next_to_store + api::kStoredJobsPerHold, b.changed.size());
  }
  api::Retire(&b, previous_stored);
  if (b.next_to_store >= b.slice_end) return false;
  const api::ChangedJob& changed = b.changed[b.next_to_store];
  api::PassRecord& r = t.records[changed.position];
  r.awaiting_store = false;
  b.current_item = changed.position;
  *item = fw_store_item_t{};
  item->job_id = b.job_ids[changed.position];
  item->stamp = changed.stamp;
  api::StoredOf(r, t, &item->factors);
  // The store writes no TRES into the job (sprio reads the table's).
  item->factors.tres = nullptr;
  item->factors.tres_cnt = 0;
  item->factors.tres_columns = nullptr;
  item->factors.tres_values = 0;
  item->ahead_record_index = UINT32_MAX;
  const size_t ahead = b.next_to_store + api::kPrefetchStoresAhead;
  if (ahead < b.slice_end) item->ahead_record_index = b.changed[ahead].record_index;
  const size_t near = b.next_to_store + api::kPrefetchStoresAhead / 2;
  if (near < b.slice_end) item->ahead_job_id = b.job_ids[b.changed[near].position];
  ++b.next_to_store;
  return true;
}

void fw_pass_store_recompute(fw_pass_t* pass, const fw_job_input_t* job,
                             const fw_partition_input_t* partitions, const fw_cluster_t* cluster,
                             fw_factors_t* out, uint32_t* partition_out) {
  if (!out) return;
  *out = fw_factors_t{};
  if (!pass || !job || !pass->config) return;
  fw_pass& b = *pass;
  // Whatever happens below, the table no longer holds the job's factors.
  if (b.current_item != api::kNoItem) b.building.records[b.current_item].published = false;
  try {
    api::JobInputsFrom(*b.config, *job, partitions, &b.inputs);
    const ClusterInputs c{cluster ? cluster->cluster_cpus : 0, cluster ? cluster->node_count : 0};
    ComputeJobPriorityInto(b.inputs, b.config->params, c, b.now, &b.result);
    api::FactorsOf(b.result, out);
    out->tres = nullptr;
    out->tres_cnt = 0;
    if (partition_out && out->partition_count) {
      std::copy(b.result.partition_priorities.begin(), b.result.partition_priorities.end(),
                partition_out);
      out->partition_priorities = partition_out;
    } else {
      out->partition_priorities = nullptr;
      out->partition_count = 0;
    }
    out->priority = PriorityAfterIncrOnly(out->priority, job->priority, b.config->params);
  } catch (...) {
    *out = fw_factors_t{};
    out->priority = job->priority;
    ReportException(b.config, "fw_pass_store_recompute");
  }
}

bool fw_pass_store_end_slice(fw_pass_t* pass) {
  if (!pass) return true;
  fw_pass& b = *pass;
  b.slice_open = false;
  b.current_item = api::kNoItem;
  if (!b.pass_in_progress) return true;
  if (b.next_to_store < b.changed.size()) return false;
  // Needed only from the gather to the end of the store. After a restart
  // every pending job changes once; a list that large is given back rather
  // than kept for passes that change a few slices' worth. Kept up to a
  // quarter of the queue: a steady pass changes about a tenth, and a list
  // given back after every pass was mapped, grown by doubling and
  // unmapped again every pass.
  b.changed.clear();
  ReleaseIfOversized(&b.changed,
                     std::max(api::kStoredJobsPerHold, b.building.records.size() / 4));
  b.next_to_store = 0;
  b.storing = false;
  b.pass_in_progress = false;
  b.factors_stored_once = true;
  std::swap(b.building, b.published);
  return true;
}

void fw_pass_stats(const fw_pass_t* pass, fw_pass_stats_t* stats) {
  if (!stats) return;
  *stats = pass ? pass->stats : fw_pass_stats_t{};
}

bool fw_pass_factors(const fw_pass_t* pass, uint32_t job_id, fw_factors_t* out) {
  if (!pass || !out) return false;
  return api::TableFactors(pass->published, pass->storing ? &pass->building : nullptr, job_id,
                           out);
}

void fw_pass_forget(fw_pass_t* pass, uint32_t job_id) {
  if (!pass) return;
  fw_pass& b = *pass;
  try {
    if (b.storing) {
      const uint32_t position = b.building.index.Find(job_id);
      if (position != JobIndex::kNotFound) b.building.records[position].published = false;
    } else if (b.pass_in_progress) {
      b.set_during_pass.push_back(job_id);
    }
  } catch (...) {
    ReportException(b.config, "fw_pass_forget");
  }
  const uint32_t position = b.published.index.Find(job_id);
  if (position != JobIndex::kNotFound) b.published.records[position].published = false;
}

}  // extern "C"
