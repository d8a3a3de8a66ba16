// SPDX-License-Identifier: GPL-2.0-or-later
// The decay pass's protocol (fw_pass_*): the job records found by id
// (job_roster.h), every eligible job computed under the read locks into the
// table being built, the jobs whose priority changed stored a slice at a
// time under the job write lock, then the tables swapped. The table sprio
// reads is api_pass_table.h's. The boundary walks Slurm's structures and
// takes the locks; everything kept from pass to pass is here.
#include <algorithm>
#include <deque>
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
// change meanwhile (fw_job_key_fingerprint of its key now).
struct ChangedJob {
  uint32_t position = 0;  // in building.records
  uint32_t job_id = 0;
  uint64_t key_fingerprint = 0;
  // Where the job's record, details and factors were during the gather:
  // addresses for the store to prefetch, never read through (the job may
  // be gone by then; the store finds it by id).
  const void* record_hint = nullptr;
  const void* details_hint = nullptr;
  const void* factors_hint = nullptr;
};

// The flat records of the partitions a pass has met, by partition: a pass
// fills one per partition, not one per job. Valid for one gather (the
// partition read lock held); cleared at its start.
class FlatPartitions {
 public:
  void Clear() {
    entries_.clear();
    last_ = nullptr;
  }
  // The record of part (filled on first use). The pointer stays valid
  // until Clear.
  const FlatPartition* Of(const fw_partition_input_t& part, const fw_config& config) {
    if (last_ && last_->key == part.key) return &last_->record;
    for (const Entry& entry : entries_) {
      if (entry.key == part.key) {
        last_ = &entry;
        return &entry.record;
      }
    }
    Entry& entry = entries_.emplace_back(Entry{part.key, FlatPartition{}});
    FlatPartition& record = entry.record;
    record.priority_job_factor = part.priority_job_factor;
    record.norm_priority = part.norm_priority;
    record.max_time_min = part.max_time_min;
    // As AssignTres: only the TRES both weighted and counted by slurmctld.
    const size_t counted = CountedTres(config);
    if (part.tres_cnt) {
      for (size_t k = 0; k < config.weighted_tres.size() && k < kFlatTresMax; ++k) {
        const uint32_t column = config.weighted_tres[k];
        if (column < counted) record.tres_total[k] = part.tres_cnt[column];
      }
    }
    last_ = &entry;
    return &record;
  }

 private:
  struct Entry {
    const void* key;
    FlatPartition record;
  };
  std::deque<Entry> entries_;    // a deque: records keep their address
  const Entry* last_ = nullptr;  // consecutive jobs mostly share a partition
};

// The store takes the job write lock once per this many changed jobs (0.1 to
// 0.5 ms on the benchmark machine), not once for all: a query or
// submission then waits for one slice rather than for every job whose
// priority changed (after a restart, a third of the queue).
constexpr size_t kStoredJobsPerHold = 1000;
// The store finds each job by id (a hash lookup) before it reads the job:
// the boundary prefetches the job this many items ahead.
constexpr size_t kPrefetchStoresAhead = 8;

}  // namespace
}  // namespace fairway::api

// What a pass keeps between passes: the table sprio reads, the one the
// next pass fills, and the scratch arrays, all reused pass after pass.
struct fw_pass {
  fairway::api::PassTable building;   // the decay thread's own; stale between passes
  fairway::api::PassTable published;  // read under the job read lock, changed under the write lock
  fairway::PageVector<fairway::api::ChangedJob> changed;  // building's jobs the store will write
  // job_list's records in order with their ids, kept for the next pass
  // to find them by id rather than walk the list.
  fairway::JobRoster<void> roster;
  fairway::PageVector<uint32_t> job_ids;  // building.records[i]'s job id, for the index
  const void* partition_filled_from = nullptr;  // which partition `inputs` holds
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
  // The pass under way.
  fw_config_t* config = nullptr;  // a reference, dropped at the next begin
  fairway::ClusterInputs cluster;
  int64_t now = 0;
  bool flat_path = false;
  fairway::FlatWeights flat_weights;  // this pass's (points into config)
  fw_pass_stats_t stats{};
  fairway::JobInputs inputs;                     // scratch for one job (general path)
  fairway::JobPriority result;                   // scratch for one job (general path)
  fairway::api::FlatPartitions flat_partitions;  // this pass's partitions (flat path)
  fairway::FlatJob flat_job;                     // scratch for one job (flat path)
  fairway::FlatResult flat_result;               // scratch for one job (flat path)
};

namespace fairway::api {
namespace {

// Fills a computed job's record, from either path.
template <typename Factors>
void FillRecord(const Factors& weighted, uint32_t priority, bool clamped, PassRecord* r) {
  terms::CopyScalarFactors(weighted, r);
  r->site = weighted.site;
  r->nice = weighted.nice;
  r->priority = priority;
  r->clamped = clamped;
}

// Whether storing priority would change job->priority (INCR_ONLY applied).
bool JobPriorityChanged(const fw_job_input_t& job, uint32_t priority, const Params& params) {
  return PriorityAfterIncrOnly(priority, job.key.priority, params) != job.key.priority;
}

// Whether storing the result would change what the scheduler reads: the
// job's priority or a partition's entry in priority_array. (The factors
// sprio shows are served from the pass's table, see fw_pass_factors.)
bool PriorityChanged(const fw_job_input_t& job, const JobPriority& result, const Params& params) {
  if (JobPriorityChanged(job, result.priority, params)) return true;
  if (PriorityCount(job) && !result.partition_priorities.empty()) {
    if (!job.priority_array) return true;
    for (size_t i = 0; i < result.partition_priorities.size(); ++i) {
      if (job.priority_array[i] != result.partition_priorities[i]) return true;
    }
  }
  return false;
}

// The flat record of a single-partition job (GatherFlatJob).
void FlatJobFrom(const fw_config& config, const fw_job_input_t& job, FlatPartitions* partitions,
                 FlatJob* in) {
  in->accrue_time = job.key.accrue_time;
  in->has_assoc = job.has_assoc;
  in->fairshare_factor = FairshareFactorOf(config, job);
  in->assoc_priority = job.has_assoc ? job.assoc_priority : 0;
  in->assoc_priority_norm = job.has_assoc ? job.assoc_priority_norm : 0;
  in->has_qos = job.has_qos;
  in->qos_priority = job.has_qos ? job.qos_priority : 0;
  in->qos_norm_priority = job.has_qos ? job.qos_norm_priority : 0;
  in->total_cpus = job.key.total_cpus;
  in->max_cpus = job.max_cpus;
  in->min_cpus = job.min_cpus;
  in->min_nodes = job.key.min_nodes;
  in->time_limit_min = job.key.time_limit;
  in->site_factor = job.key.site_factor;
  in->nice = job.key.nice;
  in->partition = job.partition ? partitions->Of(*job.partition, config) : nullptr;
  // The counts JobTresCount reads from AssignTres's copies, read in place:
  // only the first CountedTres columns are slurmctld's.
  const size_t counted = CountedTres(config);
  for (size_t k = 0; k < config.weighted_tres.size() && k < kFlatTresMax; ++k) {
    in->tres_count[k] = AllocatedElseRequested(job.tres_alloc, counted, job.tres_req, counted,
                                                config.weighted_tres[k]);
  }
}

// Appends a record for the job to the table being built and returns it,
// for the caller to fill in place. Only a job the store will touch (its
// priority changed) is noted with the key that lets the boundary check it
// is unchanged. In place, not built on the stack and copied: the copy's
// 16-byte loads cannot take their data from the smaller stores that built
// it, so each waited until every older store had reached the cache, and
// the table's stores go to lines a pass ago long evicted (perf: the
// hottest instruction of the pass).
PassRecord& AppendRecord(const fw_job_input_t& job, bool priority_changed, const void* record,
                         const void* details, const void* factors, fw_pass* b) {
  PassRecord& r = b->building.records.emplace_back();
  if (priority_changed || !b->factors_stored_once) {
    b->changed.push_back(ChangedJob{static_cast<uint32_t>(b->building.records.size() - 1),
                                    job.job_id, fw_job_key_fingerprint(&job.key), record, details,
                                    factors});
    r.awaiting_store = true;
  }
  b->job_ids.push_back(job.job_id);
  return r;
}

void Add(fw_pass* b, const fw_job_input_t& job, const void* record, const void* details,
         const void* factors) {
  const fw_config& config = *b->config;
  const Params& params = config.params;
  PassTable& t = b->building;
  const size_t tres_stride = t.tres_columns.size();
  // Single-partition jobs (nearly all) take the flat path: their inputs in
  // one fixed-size record, no vectors to fill, only the weighted TRES.
  // It gives the general path's results bit for bit (flat_priority.h).
  // A job with several QOS has one priority per (partition, QOS) pair: the
  // general path.
  if (b->flat_path && !job.partitions && !job.qos_list) {
    FlatJobFrom(config, job, &b->flat_partitions, &b->flat_job);
    ComputeFlatPriority(b->flat_job, b->flat_weights, b->cluster, b->now, &b->flat_result);
    const FlatResult& f = b->flat_result;
    for (size_t k = 0; k < tres_stride; ++k) {
      t.tres.push_back(k < b->flat_weights.tres_columns ? f.tres[k] : 0.0);
    }
    FillRecord(f, f.priority, f.clamped,
               &AppendRecord(job, JobPriorityChanged(job, f.priority, params), record, details,
                             factors, b));
    return;
  }
  JobInputsFrom(config, job, &b->inputs, &b->partition_filled_from);
  ComputeJobPriorityInto(b->inputs, params, b->cluster, b->now, &b->result);
  const std::vector<double>& weighted_tres = b->result.weighted.tres;
  for (uint32_t column : t.tres_columns) {
    t.tres.push_back(column < weighted_tres.size() ? weighted_tres[column] : 0.0);
  }
  const size_t position = t.records.size();
  PassRecord& r = AppendRecord(job, PriorityChanged(job, b->result, params), record, details,
                               factors, b);
  FillRecord(b->result.weighted, b->result.priority, b->result.clamped, &r);
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

bool fw_pass_refind(fw_pass_t* pass, size_t expected, uint32_t id_limit, fw_find_job_fn find,
                    fw_prefetch_fn prefetch, fw_in_id_order_fn in_id_order) {
  if (!pass || !find) return false;
  try {
    return pass->roster.Refind(
        expected, id_limit, [find](uint32_t id) { return find(id); },
        [prefetch](const void* hint) {
          if (prefetch) prefetch(hint);
        },
        [in_id_order](const void* record) { return !in_id_order || in_id_order(record); });
  } catch (...) {
    pass->roster.Invalidate();
    ReportException(pass->config, "fw_pass_refind");
  }
  return false;
}

void fw_pass_assign_walked(fw_pass_t* pass, void* const* records, const uint32_t* ids,
                           size_t count) {
  if (!pass) return;
  try {
    pass->roster.AssignWalked([&](PageVector<void*>* out_records, PageVector<uint32_t>* out_ids) {
      ReserveReusing(out_records, count);
      ReserveReusing(out_ids, count);
      if (count) {
        out_records->insert(out_records->end(), records, records + count);
        out_ids->insert(out_ids->end(), ids, ids + count);
      }
    });
  } catch (...) {
    pass->roster.Invalidate();
    ReportException(pass->config, "fw_pass_assign_walked");
  }
}

size_t fw_pass_jobs(const fw_pass_t* pass, void* const** records, const uint32_t** ids) {
  if (!pass) {
    if (records) *records = nullptr;
    if (ids) *ids = nullptr;
    return 0;
  }
  if (records) *records = pass->roster.records().data();
  if (ids) *ids = pass->roster.ids().data();
  return pass->roster.records().size();
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
    b.partition_filled_from = nullptr;
    t.partition_priorities.clear();
    t.partition_slices.clear();
    t.tres_cnt = static_cast<uint32_t>(config->params.weight_tres.size());
    t.tres_columns = config->weighted_tres;
    b.set_during_pass.clear();
    b.pass_in_progress = true;
    b.storing = false;
    b.slice_open = false;
    b.next_to_store = 0;
    b.stats = fw_pass_stats_t{};
    // Sized once for the whole queue: growing by doubling would map and
    // copy every size on the way.
    const size_t job_count = b.roster.records().size();
    ReserveReusing(&t.records, job_count);
    ReserveReusing(&b.job_ids, job_count);
    ReserveReusing(&t.tres, job_count * t.tres_columns.size());
    ReleaseIfOversized(&b.changed, job_count);  // grows as needed
    b.flat_path = BuildFlatWeights(config->params, config->weighted_tres, &b.flat_weights);
    b.flat_partitions.Clear();
  } catch (...) {
    ReportException(config, "fw_pass_begin");
  }
}

void fw_pass_add(fw_pass_t* pass, const fw_job_input_t* job, const void* record,
                 const void* details, const void* factors) {
  if (!pass || !job || !pass->config || !pass->pass_in_progress || pass->storing) return;
  try {
    api::Add(pass, *job, record, details, factors);
  } catch (...) {
    ReportException(pass->config, "fw_pass_add");
  }
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

bool fw_pass_store_next(fw_pass_t* pass, fw_store_item_t* item) {
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
    b.slice_end = std::min(b.next_to_store + api::kStoredJobsPerHold, b.changed.size());
  }
  if (b.next_to_store >= b.slice_end) return false;
  const api::ChangedJob& changed = b.changed[b.next_to_store];
  api::PassRecord& r = t.records[changed.position];
  r.awaiting_store = false;
  *item = fw_store_item_t{};
  item->job_id = changed.job_id;
  item->position = changed.position;
  item->key_fingerprint = changed.key_fingerprint;
  api::StoredOf(r, t, &item->factors);
  const size_t ahead = b.next_to_store + api::kPrefetchStoresAhead;
  if (ahead < b.slice_end) {
    const api::ChangedJob& later = b.changed[ahead];
    item->ahead_record = later.record_hint;
    item->ahead_details = later.details_hint;
    item->ahead_factors = later.factors_hint;
  }
  ++b.next_to_store;
  return true;
}

void fw_pass_store_done(fw_pass_t* pass, uint32_t position, bool stored_from_pass) {
  if (!pass || position >= pass->building.records.size()) return;
  if (!stored_from_pass) {
    // Gone, ineligible, or recomputed: the job's own factors are newer.
    pass->building.records[position].published = false;
    ++pass->stats.recomputed;
  }
}

namespace {
// v mixed into h with splitmix64's finaliser: the fingerprints' one step.
inline uint64_t MixIn(uint64_t h, uint64_t v) {
  uint64_t z = h + v + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t fw_job_key_fingerprint(const fw_job_key_t* key) {
  if (!key) return 0;
  // Field by field: what must not have changed between computing and
  // storing for a computed priority to still be right. Anything else a job
  // update changes goes through priority_p_set, which recomputes under the
  // caller's lock. Each field is mixed in with splitmix64's finaliser, so
  // that a changed field leaves the result equal with a chance of 2^-64
  // (fairway_api.h).
  uint64_t h = 0;
  const auto mix = [&h](uint64_t v) { h = MixIn(h, v); };
  mix(key->job_state);
  mix(key->priority);
  mix(key->direct_set_prio);
  mix(key->nice);
  mix(key->site_factor);
  mix(key->time_limit);
  mix(key->total_cpus);
  mix(key->min_nodes);
  mix(static_cast<uint64_t>(key->accrue_time));
  mix(reinterpret_cast<uintptr_t>(key->part));
  mix(reinterpret_cast<uintptr_t>(key->part_list));
  mix(reinterpret_cast<uintptr_t>(key->qos));
  mix(reinterpret_cast<uintptr_t>(key->assoc));
  mix(reinterpret_cast<uintptr_t>(key->qos_list));
  mix(key->part_order);
  return h;
}

uint64_t fw_partition_order_step(uint64_t digest, const void* part, uint16_t priority_tier) {
  // (digest, record, tier), one after the other: a swap of two partitions,
  // or of two tiers, changes the result.
  return MixIn(MixIn(digest, reinterpret_cast<uintptr_t>(part)), priority_tier);
}

bool fw_pass_store_end_slice(fw_pass_t* pass) {
  if (!pass) return true;
  fw_pass& b = *pass;
  b.slice_open = false;
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
