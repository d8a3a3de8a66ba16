// SPDX-License-Identifier: GPL-2.0-or-later
// The decay pass's protocol (fw_pass_*): the ids of the job records the
// boundary finds (job_roster.h), every eligible job computed under the
// read locks, the jobs whose priority changed stored a slice at a time
// under the job write lock. The table sprio reads is api_pass_table.h's,
// and there is one: the gather writes the jobs whose priority did not
// change into it in place, and keeps the others aside until the store
// writes their priority. The boundary walks Slurm's structures, keeps
// their addresses and takes the locks; the numbers kept from pass to pass
// are here.
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
// its new record waits here until the store writes it, after the boundary
// checked that the job did not change meanwhile (the stamp it wrote where
// fw_pass_add said). Until then the table keeps the job's previous record,
// which agrees with the priority the job still has.
struct PendingJob {
  uint32_t position = 0;      // of the job's record in the table
  uint32_t record_index = 0;  // the boundary's, for its prefetches
  uint64_t stamp = 0;         // the boundary's, handed back
  uint32_t partition_offset = 0, partition_count = 0;  // in pending_partitions
  PassRecord record;
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
// A gather that did not reach this many records (jobs that started, ended
// or became ineligible), and at least a sixteenth of the table, compacts
// it; fewer stay as unpublished holes.
constexpr size_t kMinHolesToCompact = 1024;

}  // namespace
}  // namespace fairway::api

// What a pass keeps between passes: the table sprio reads, and the
// scratch arrays, reused pass after pass.
struct fw_pass {
  // Read by sprio under the job read lock and the boundary's table lock;
  // the gather writes it under the same table lock, the store and
  // fw_pass_forget under the job write lock.
  fairway::api::PassTable table;
  // The changed jobs of the pass under way, their TRES factors
  // (tres_columns.size() each) and partition priorities.
  fairway::PageVector<fairway::api::PendingJob> pending;
  fairway::PageVector<double> pending_tres;
  std::vector<uint32_t> pending_partitions;
  // The ids of job_list's records in list order (the boundary keeps the
  // records), for the next pass to find them by id rather than walk the
  // list.
  fairway::JobRoster roster;
  bool pass_in_progress = false;
  bool storing = false;  // the store has begun (under the job write lock)
  // Until a pass has stored every job's factors once, every job counts as
  // changed: a restarted slurmctld's job records keep their priority but
  // start with prio_factors at 0 (_create_job_record), and job_limits_check
  // reads prio_factors->priority_fs for a QOS's UsageThreshold, 0 meaning
  // "recompute it unweighted" (slurm-22-05-8-1:src/slurmctld/job_mgr.c);
  // multifactor stores every job's factors every pass.
  bool factors_stored_once = false;
  bool slice_open = false;
  size_t next_to_store = 0;  // in pending
  size_t slice_end = 0;      // in pending: the open slice's end
  // pending's item fw_pass_store_next last returned, until the next call
  // retires it (kNoItem: none).
  uint32_t current_item = fairway::api::kNoItem;
  // The gather under way: the table position after the last job's (jobs
  // come in the order of the last pass, so this is usually the next
  // one's), how many records it reached, how many it appended.
  size_t cursor = 0;
  size_t reached = 0;
  size_t appended = 0;
  std::vector<uint32_t> remap;  // compaction's scratch
  size_t last_pending = 0;      // the last pass's changed jobs
  // The pass under way.
  fw_config_t* config = nullptr;  // a reference, dropped at the next begin
  fairway::ClusterInputs cluster;
  int64_t now = 0;
  fairway::FlatWeights flat_weights;  // this pass's (points into config)
  fw_pass_stats_t stats{};
  fairway::JobInputs inputs;        // scratch for one job (general path)
  fairway::JobPriority result;      // scratch for one job (general path)
  fairway::FlatResult flat_result;  // scratch for one job (single partition)
  std::vector<double> job_tres;     // scratch: one job's weighted TRES
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
// priority_array. (The factors sprio shows are served from the table, see
// fw_pass_factors.)
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

// The table position of job_id's record, appending one (unpublished) for
// a job the table does not hold.
uint32_t PositionOf(fw_pass* b, uint32_t job_id) {
  PassTable& t = b->table;
  uint32_t position = JobIndex::kNotFound;
  if (b->cursor < t.job_ids.size() && t.job_ids[b->cursor] == job_id) {
    position = static_cast<uint32_t>(b->cursor);
  } else {
    position = t.index.Find(job_id);
  }
  if (position == JobIndex::kNotFound || position >= t.records.size()) {
    position = static_cast<uint32_t>(t.records.size());
    t.records.emplace_back();
    t.job_ids.push_back(job_id);
    t.tres.resize(t.tres.size() + t.tres_columns.size());
    ++b->appended;
  }
  b->cursor = position + 1;
  return position;
}

// Where a computed job's results go: its table record (its priority did
// not change: sprio may show the new factors at once), or a pending entry
// the store will write.
struct Destination {
  PassRecord* record;
  double* tres;
  PendingJob* pending;  // null: the table
};

Destination Place(fw_pass* b, const fw_job_input_t& job, bool priority_changed) {
  PassTable& t = b->table;
  const size_t stride = t.tres_columns.size();
  const uint32_t position = PositionOf(b, job.job_id);
  PassRecord& r = t.records[position];
  r.seen = t.parity;
  r.forgotten = false;
  ++b->reached;
  if (priority_changed || !b->factors_stored_once) {
    PendingJob& p = b->pending.emplace_back();
    p.position = position;
    p.record_index = job.record_index;
    const size_t tres_at = b->pending_tres.size();
    b->pending_tres.resize(tres_at + stride);
    return Destination{&p.record, b->pending_tres.data() + tres_at, &p};
  }
  r.published = true;
  return Destination{&r, t.tres.data() + position * stride, nullptr};
}

// Computes the job into the table or pending; returns its stamp's place
// when the store will visit it (fw_pass_add).
uint64_t* Add(fw_pass* b, const fw_job_input_t& job, const fw_partition_input_t* partitions) {
  const fw_config& config = *b->config;
  const Params& params = config.params;
  PassTable& t = b->table;
  const size_t stride = t.tres_columns.size();
  ++b->stats.computed;
  // Single-partition jobs (nearly all) are computed on the boundary's
  // record itself: no vectors to fill. It gives the general path's results
  // bit for bit (flat_priority.h). A job with several QOS has one priority
  // per (partition, QOS) pair: the general path.
  if (!job.partition_list && !job.qos_list) {
    const fw_partition_input_t* part =
        partitions && job.partition != FW_NO_PARTITION ? &partitions[job.partition] : nullptr;
    ComputeFlatPriority(job, part, b->flat_weights, b->cluster, b->now, &b->flat_result,
                        b->job_tres.data());
    const FlatResult& f = b->flat_result;
    const uint32_t stored = PriorityAfterIncrOnly(f.priority, job.priority, params);
    const Destination d = Place(b, job, stored != job.priority);
    FillRecord(f, stored, f.clamped, d.record);
    d.record->multi_partition = false;
    std::copy_n(b->job_tres.data(), stride, d.tres);
    return d.pending ? &d.pending->stamp : nullptr;
  }
  JobInputsFrom(config, job, partitions, &b->inputs);
  ComputeJobPriorityInto(b->inputs, params, b->cluster, b->now, &b->result);
  const std::vector<double>& weighted_tres = b->result.weighted.tres;
  const uint32_t stored = PriorityAfterIncrOnly(b->result.priority, job.priority, params);
  const Destination d = Place(b, job, PriorityChanged(job, stored, b->result));
  FillRecord(b->result.weighted, stored, b->result.clamped, d.record);
  for (size_t k = 0; k < stride; ++k) {
    const uint32_t column = t.tres_columns[k];
    d.tres[k] = column < weighted_tres.size() ? weighted_tres[column] : 0.0;
  }
  const std::vector<uint32_t>& priorities = b->result.partition_priorities;
  d.record->multi_partition = !priorities.empty();
  if (!priorities.empty()) {
    const uint32_t count = static_cast<uint32_t>(priorities.size());
    if (d.pending) {
      d.pending->partition_offset = static_cast<uint32_t>(b->pending_partitions.size());
      d.pending->partition_count = count;
      b->pending_partitions.insert(b->pending_partitions.end(), priorities.begin(),
                                   priorities.end());
    } else {
      SetPartitionPriorities(&t, static_cast<uint32_t>(d.record - t.records.data()),
                             priorities.data(), count);
    }
  }
  return d.pending ? &d.pending->stamp : nullptr;
}

// Writes a stored pending job into the table, for sprio.
void Publish(fw_pass* b, const PendingJob& p) {
  PassTable& t = b->table;
  const size_t stride = t.tres_columns.size();
  PassRecord& r = t.records[p.position];
  const bool seen = r.seen;
  r = p.record;
  r.seen = seen;
  r.published = true;
  r.forgotten = false;
  const size_t pending_index = static_cast<size_t>(&p - b->pending.data());
  std::copy_n(b->pending_tres.data() + pending_index * stride, stride,
              t.tres.data() + p.position * stride);
  if (p.record.multi_partition) {
    SetPartitionPriorities(&t, p.position, b->pending_partitions.data() + p.partition_offset,
                           p.partition_count);
  }
}

// The item fw_pass_store_next returned last is done with: stored, or not
// (gone, ineligible, recomputed: the job's own factors are newer).
void Retire(fw_pass* b, bool stored) {
  if (b->current_item == kNoItem) return;
  const PendingJob& p = b->pending[b->current_item];
  PassRecord& r = b->table.records[p.position];
  if (stored && !r.forgotten) {
    Publish(b, p);
  } else {
    r.published = false;
    if (!stored) ++b->stats.recomputed;
  }
  b->current_item = kNoItem;
}

// After the gather: the records it did not reach are no longer any job's
// current factors; many of them are dropped. The index then covers the
// appended records too.
void EndGather(fw_pass* b) {
  PassTable& t = b->table;
  size_t holes = 0;
  if (b->reached < t.records.size()) {
    for (PassRecord& r : t.records) {
      if (r.seen != t.parity) {
        r.published = false;
        ++holes;
      }
    }
  }
  if (holes >= std::max(kMinHolesToCompact, t.records.size() / 16)) {
    CompactTable(&t, &b->remap);
    for (PendingJob& p : b->pending) p.position = b->remap[p.position];
  } else if (b->appended) {
    t.index.Assign(t.job_ids.data(), t.job_ids.size());
  }
  b->stats.stored = b->pending.size();
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
    api::PassTable& t = b.table;
    const uint32_t tres_cnt = static_cast<uint32_t>(config->params.weight_tres.size());
    if (t.tres_columns != config->weighted_tres || t.tres_cnt != tres_cnt) {
      // Other TRES weights: the records' TRES factors no longer line up.
      // Every job is appended anew; until then sprio reads the jobs' own.
      api::ClearTable(&t);
      t.tres_columns = config->weighted_tres;
      t.tres_cnt = tres_cnt;
    }
    t.parity = !t.parity;
    b.pending.clear();
    b.pending_tres.clear();
    b.pending_partitions.clear();
    b.pass_in_progress = true;
    b.storing = false;
    b.slice_open = false;
    b.next_to_store = 0;
    b.current_item = api::kNoItem;
    b.cursor = 0;
    b.reached = 0;
    b.appended = 0;
    b.stats = fw_pass_stats_t{};
    b.job_tres.assign(t.tres_columns.size(), 0.0);
    // Room for the whole queue at once: growing by doubling would map and
    // copy every size on the way.
    const size_t job_count = b.roster.ids().size();
    t.records.reserve(job_count);
    t.job_ids.reserve(job_count);
    t.tres.reserve(job_count * t.tres_columns.size());
    // The changed jobs' list, sized from the last pass (every job after a
    // restart): grown by doubling, a pass that changes every job mapped,
    // populated and copied each size on the way (bench-core ApiPass: 2.2
    // against 1.4 ms at 20,000 jobs).
    const size_t expected = b.factors_stored_once ? b.last_pending : job_count;
    b.pending.reserve(expected);
    b.pending_tres.reserve(expected * t.tres_columns.size());
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
    api::EndGather(pass);
  } catch (...) {
    // Without a table no job is found in it: sprio falls back to the
    // jobs' own factors, and the store to nothing.
    api::ClearTable(&pass->table);
    pass->pending.clear();
    ReportException(pass->config, "fw_pass_end_gather");
  }
}

bool fw_pass_store_next(fw_pass_t* pass, bool previous_stored, fw_store_item_t* item) {
  if (!pass || !item || !pass->pass_in_progress) return false;
  fw_pass& b = *pass;
  b.storing = true;
  if (!b.slice_open) {
    b.slice_open = true;
    b.current_item = api::kNoItem;  // a slice's first call retires nothing
    b.slice_end = std::min(b.next_to_store + api::kStoredJobsPerHold, b.pending.size());
  }
  api::Retire(&b, previous_stored);
  if (b.next_to_store >= b.slice_end) return false;
  const api::PendingJob& p = b.pending[b.next_to_store];
  b.current_item = static_cast<uint32_t>(b.next_to_store);
  *item = fw_store_item_t{};
  item->job_id = b.table.job_ids[p.position];
  item->stamp = p.stamp;
  item->set_since_gather = b.table.records[p.position].forgotten;
  // The store writes no TRES into the job (sprio reads the table's).
  fw_factors_t& f = item->factors;
  api::ScalarFactorsOf(p.record, &f);
  if (p.record.multi_partition) {
    f.partition_priorities = b.pending_partitions.data() + p.partition_offset;
    f.partition_count = p.partition_count;
  }
  item->ahead_record_index = UINT32_MAX;
  const size_t ahead = b.next_to_store + api::kPrefetchStoresAhead;
  if (ahead < b.slice_end) item->ahead_record_index = b.pending[ahead].record_index;
  const size_t near = b.next_to_store + api::kPrefetchStoresAhead / 2;
  if (near < b.slice_end) item->ahead_job_id = b.table.job_ids[b.pending[near].position];
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
  if (b.current_item != api::kNoItem) {
    b.table.records[b.pending[b.current_item].position].published = false;
  }
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
  if (b.next_to_store < b.pending.size()) return false;
  // Needed only from the gather to the end of the store; given back by
  // fw_pass_trim, which the boundary calls with no lock held: unmapping
  // the lists of a pass that changed every one of 20,000 jobs took 0.17
  // to 0.25 ms of job write lock on the benchmark machine, the hold of
  // four slices.
  b.last_pending = b.pending.size();
  b.pending.clear();
  b.pending_tres.clear();
  b.pending_partitions.clear();
  b.next_to_store = 0;
  b.storing = false;
  b.pass_in_progress = false;
  b.factors_stored_once = true;
  return true;
}

void fw_pass_trim(fw_pass_t* pass) {
  if (!pass || pass->pass_in_progress) return;
  fw_pass& b = *pass;
  // After a restart every pending job changes once; a list that large is
  // given back rather than kept for passes that change a few slices'
  // worth. Kept up to a thirty-second of the queue (about 3 bytes per
  // job), so that steady passes, which change a few percent, reuse it.
  const size_t kept = std::max(api::kStoredJobsPerHold, b.table.records.size() / 32);
  ReleaseIfOversized(&b.pending, kept);
  ReleaseIfOversized(&b.pending_tres, kept * b.table.tres_columns.size());
  ReleaseIfOversized(&b.pending_partitions, kept);
}

void fw_pass_stats(const fw_pass_t* pass, fw_pass_stats_t* stats) {
  if (!stats) return;
  *stats = pass ? pass->stats : fw_pass_stats_t{};
}

bool fw_pass_factors(const fw_pass_t* pass, uint32_t job_id, fw_factors_t* out) {
  if (!pass || !out) return false;
  return api::TableFactors(pass->table, job_id, out);
}

void fw_pass_forget(fw_pass_t* pass, uint32_t job_id) {
  if (!pass) return;
  api::PassTable& t = pass->table;
  const uint32_t position = t.index.Find(job_id);
  if (position == JobIndex::kNotFound || position >= t.records.size()) return;
  t.records[position].published = false;
  t.records[position].forgotten = true;
}

}  // extern "C"
