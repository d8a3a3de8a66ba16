// SPDX-License-Identifier: GPL-2.0-or-later
// Job priorities through the C interface against ComputeJobPriority, and a
// whole decay pass's table: finding the jobs, gathering, storing in
// slices, sprio's lookups during and after the pass, and forgetting; then
// generated sequences of passes against a model of what sprio must show.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "api/fairway_api.h"
#include "api_test_support.h"
#include "fairshare.h"
#include "job_priority.h"

namespace fairway::test {
namespace {

constexpr int64_t kNow = 1700000000;
constexpr uint32_t kTresCnt = 5;
const double kTresWeights[kTresCnt] = {100, 0, 0, 0, 50};  // cpu and billing
const uint64_t kPartTres[kTresCnt] = {1000, 4096000, 0, 10, 2000};

fw_config_input_t JobsInput(uint32_t flags = 1u << 5) {
  fw_config_input_t in = DefaultInput();
  in.flags = flags;
  in.weight_tres = kTresWeights;
  in.tres_cnt = kTresCnt;
  in.weight_tres_text = "cpu=100,billing=50";
  in.max_age_s = 86400;
  return in;
}

fw_partition_input_t Partition(uint16_t factor, uint16_t tier) {
  fw_partition_input_t p{};
  p.priority_job_factor = factor;
  p.priority_tier = tier;
  p.norm_priority = factor / 100.0;
  p.max_time_min = 1440;
  p.tres_cnt = kPartTres;
  return p;
}

struct Job {
  fw_job_input_t in{};
  uint64_t stamp = 0;  // what the boundary would stamp it with
  uint64_t alloc[kTresCnt] = {0, 0, 0, 0, 0};
  uint64_t req[kTresCnt] = {4, 8000, 0, 0, 12};
};

// A job in partitions[part] of the test's partition array.
void MakeJob(Job* j, uint32_t id, uint32_t part) {
  fw_job_input_t& in = j->in;
  in = fw_job_input_t{};
  in.job_id = id;
  in.priority = 1;
  j->stamp = 0x5eed0000ull + id;
  in.record_index = id;
  in.scalars.nice = FW_NICE_OFFSET;
  in.scalars.site_factor = FW_NICE_OFFSET;
  in.scalars.time_limit_min = 60 + id % 7;
  in.scalars.min_nodes = 1 + id % 2;
  in.scalars.accrue_time = kNow - 1000 * (id % 50);
  in.scalars.max_cpus = FW_NO_VAL;
  in.scalars.min_cpus = 1 + id % 4;
  in.tres_alloc = nullptr;
  in.tres_req = j->req;
  in.scalars.has_assoc = true;
  in.scalars.assoc_priority = 5;
  in.scalars.assoc_priority_norm = 0.25;
  in.scalars.fairshare_factor = 0.001 * (id % 1000);
  in.scalars.has_qos = true;
  in.scalars.qos_priority = 10;
  in.scalars.qos_norm_priority = 0.5;
  in.partition = part;
}

// The JobInputs the record stands for, written out field by field: the
// oracle the production translation (api::JobInputsFrom, behind
// fw_job_priority and the pass) is checked against.
JobInputs CoreInputs(const fw_job_input_t& j, const fw_partition_input_t* partitions) {
  JobInputs in;
  in.job_id = j.job_id;
  in.accrue_time = j.scalars.accrue_time;
  in.has_assoc = j.scalars.has_assoc;
  in.has_qos = j.scalars.has_qos;
  in.total_cpus = j.scalars.total_cpus;
  in.max_cpus = j.scalars.max_cpus;
  in.min_cpus = j.scalars.min_cpus;
  in.min_nodes = j.scalars.min_nodes;
  in.time_limit_min = j.scalars.time_limit_min;
  auto part = [](const fw_partition_input_t& from) {
    PartitionInputs out;
    out.priority_job_factor = from.priority_job_factor;
    out.norm_priority = from.norm_priority;
    out.max_time_min = from.max_time_min;
    out.tres_cnt.assign(from.tres_cnt, from.tres_cnt + kTresCnt);
    return out;
  };
  if (j.partition != FW_NO_PARTITION) in.partition = part(partitions[j.partition]);
  in.site_factor = j.scalars.site_factor;
  in.nice = j.scalars.nice;
  if (j.tres_alloc) in.tres_alloc.assign(j.tres_alloc, j.tres_alloc + kTresCnt);
  if (j.tres_req) in.tres_req.assign(j.tres_req, j.tres_req + kTresCnt);
  in.fairshare_factor = j.scalars.fairshare_factor;
  in.assoc_priority = j.scalars.assoc_priority;
  in.assoc_priority_norm = j.scalars.assoc_priority_norm;
  in.qos_priority = j.scalars.qos_priority;
  in.qos_norm_priority = j.scalars.qos_norm_priority;
  if (j.partition_list) {
    std::vector<uint32_t> order(j.partition_count);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return partitions[j.partition_list[a]].priority_tier >
             partitions[j.partition_list[b]].priority_tier;
    });
    for (size_t i = 0; i < order.size(); ++i) {
      in.partition_list.push_back(part(partitions[j.partition_list[order[i]]]));
      in.previous_partition_priorities.push_back(j.priority_array ? j.priority_array[i] : 0);
    }
  }
  return in;
}

Params ParamsOf(const fw_config_input_t& in) {
  Params p;
  p.weight_age = in.weight_age;
  p.weight_assoc = in.weight_assoc;
  p.weight_fairshare = in.weight_fairshare;
  p.weight_job_size = in.weight_job_size;
  p.weight_partition = in.weight_partition;
  p.weight_qos = in.weight_qos;
  p.weight_tres.assign(in.weight_tres, in.weight_tres + in.tres_cnt);
  p.flags = in.flags;
  p.max_age_s = in.max_age_s;
  p.decay_half_life_s = in.decay_half_life_s;
  return p;
}

void ExpectSameFactors(const JobPriority& e, const fw_factors_t& f) {
  EXPECT_EQ(f.priority, e.priority);
  EXPECT_EQ(f.age, e.weighted.age);
  EXPECT_EQ(f.assoc, e.weighted.assoc);
  EXPECT_EQ(f.fairshare, e.weighted.fairshare);
  EXPECT_EQ(f.job_size, e.weighted.job_size);
  EXPECT_EQ(f.partition, e.weighted.partition);
  EXPECT_EQ(f.qos, e.weighted.qos);
  EXPECT_EQ(f.site, e.weighted.site);
  EXPECT_EQ(f.nice, e.weighted.nice);
  EXPECT_EQ(f.clamped, e.clamped);
  // TRES: the whole array, or the weighted columns only (the pass table).
  for (size_t i = 0; i < e.weighted.tres.size(); ++i) {
    double got = 0;
    if (f.tres_columns) {
      for (uint32_t k = 0; k < f.tres_values; ++k) {
        if (f.tres_columns[k] == i) got = f.tres[k];
      }
    } else if (i < f.tres_cnt) {
      got = f.tres[i];
    }
    EXPECT_EQ(got, e.weighted.tres[i]) << "TRES " << i;
  }
  ASSERT_EQ(f.partition_count, e.partition_priorities.size());
  for (size_t i = 0; i < e.partition_priorities.size(); ++i) {
    EXPECT_EQ(f.partition_priorities[i], e.partition_priorities[i]) << "partition " << i;
  }
}

TEST(ApiJobs, JobPriorityIsComputeJobPriority) {
  // low, high, mid
  const fw_partition_input_t parts[] = {Partition(10, 1), Partition(90, 5), Partition(40, 3)};
  const fw_partition_input_t& high = parts[1];
  for (uint32_t flags : {1u << 5, 0u, (1u << 5) | (1u << 8) | (1u << 10)}) {
    const fw_config_input_t in = JobsInput(flags);
    ConfigHolder c(in);
    const Params p = ParamsOf(in);
    const fw_cluster_t cluster{256, 16};
    Job single;
    MakeJob(&single, 17, 0);
    single.alloc[0] = 8;
    single.alloc[4] = 20;
    single.in.tres_alloc = single.alloc;
    single.in.scalars.total_cpus = 8;
    double tres[kTresCnt];
    fw_factors_t out{};
    fw_job_priority(c.get(), &single.in, parts, &cluster, kNow, &out, tres, nullptr);
    const JobPriority e =
        ComputeJobPriority(CoreInputs(single.in, parts), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(e, out);
    EXPECT_GT(out.tres_cnt, 0u);
    EXPECT_EQ(out.tres, tres);
    EXPECT_GT(out.priority, 1u);

    // A multi-partition job: priorities in tier order.
    Job multi;
    MakeJob(&multi, 18, 0);
    const uint32_t list[] = {0, 1, 2};
    multi.in.partition_list = list;
    multi.in.partition_count = 3;
    const uint32_t previous[] = {7, 8, 9};
    multi.in.priority_array = previous;
    uint32_t priorities[3];
    fw_job_priority(c.get(), &multi.in, parts, &cluster, kNow, &out, tres, priorities);
    const JobPriority em =
        ComputeJobPriority(CoreInputs(multi.in, parts), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(em, out);
    EXPECT_EQ(out.partition_priorities, priorities);
    EXPECT_GT(priorities[0], priorities[2]);  // tier 5 (factor 90) first, tier 1 (10) last
    uint32_t order[3];
    fw_partition_order(&multi.in, parts, order);
    EXPECT_EQ(std::vector<uint32_t>(order, order + 3), (std::vector<uint32_t>{1, 2, 0}));

    // sprio's row for one partition.
    double row[kTresCnt], core_row[kTresCnt];
    for (size_t i = 0; i < kTresCnt; ++i) row[i] = core_row[i] = 3.0 * i;
    const double part_factor = fw_sprio_partition_row(c.get(), &multi.in, &high, row, kTresCnt);
    JobInputs counts = CoreInputs(multi.in, parts);
    PartitionInputs hp;
    hp.priority_job_factor = high.priority_job_factor;
    hp.norm_priority = high.norm_priority;
    hp.max_time_min = high.max_time_min;
    hp.tres_cnt.assign(kPartTres, kPartTres + kTresCnt);
    // Only the weighted TRES are copied (the others are 0 to the priority).
    for (size_t i = 0; i < kTresCnt; ++i) {
      if (kTresWeights[i] == 0 && i < counts.tres_req.size()) counts.tres_req[i] = 0;
    }
    EXPECT_EQ(part_factor, SprioPartitionRow(counts, hp, p, core_row, kTresCnt));
    for (size_t i = 0; i < kTresCnt; ++i) EXPECT_EQ(row[i], core_row[i]) << i;
  }
}

// The record's fairshare factor counts only with an association and a
// fairshare weight.
TEST(ApiJobs, FairshareFactorNeedsAnAssociationAndAWeight) {
  const fw_partition_input_t parts[] = {Partition(10, 1)};
  const fw_cluster_t cluster{256, 16};
  Job j;
  MakeJob(&j, 33, 0);
  j.in.scalars.fairshare_factor = 0.5;
  fw_config_input_t in = JobsInput();
  fw_factors_t out{};
  ConfigHolder weighted(in);
  fw_job_priority(weighted.get(), &j.in, parts, &cluster, kNow, &out, nullptr, nullptr);
  EXPECT_EQ(out.fairshare, 0.5 * in.weight_fairshare);
  in.weight_fairshare = 0;
  ConfigHolder unweighted(in);
  fw_job_priority(unweighted.get(), &j.in, parts, &cluster, kNow, &out, nullptr, nullptr);
  EXPECT_EQ(out.fairshare, 0.0);
  j.in.scalars.has_assoc = false;
  fw_job_priority(weighted.get(), &j.in, parts, &cluster, kNow, &out, nullptr, nullptr);
  EXPECT_EQ(out.fairshare, 0.0);
}

// ---- a whole pass -----------------------------------------------------------

// The test's jobs by id.
std::map<uint32_t, void*>& JobsById() {
  static std::map<uint32_t, void*> jobs;
  return jobs;
}

TEST(ApiPass, FindsGathersStoresAndPublishes) {
  const fw_config_input_t in = JobsInput();
  ConfigHolder c(in);
  const Params p = ParamsOf(in);
  const fw_cluster_t cluster{256, 16};
  // The pass's one partition array: a and b.
  const fw_partition_input_t parts[] = {Partition(10, 1), Partition(60, 2)};
  const uint32_t both[] = {0, 1};
  constexpr uint32_t kJobs = 1500;  // two slices of the store
  std::vector<Job> jobs(kJobs);
  std::vector<uint32_t> ids(kJobs);
  JobsById().clear();
  for (uint32_t i = 0; i < kJobs; ++i) {
    MakeJob(&jobs[i], 100 + i, i % 3 ? 0 : 1);
    jobs[i].in.record_index = i;
    if (i % 100 == 7) {  // a few multi-partition jobs (general path)
      jobs[i].in.partition_list = both;
      jobs[i].in.partition_count = 2;
    }
    ids[i] = jobs[i].in.job_id;
    JobsById()[ids[i]] = &jobs[i];
  }
  // The current priority of job 0 is what the pass computes: unchanged.
  fw_factors_t first{};
  fw_job_priority(c.get(), &jobs[0].in, parts, &cluster, kNow, &first, nullptr, nullptr);
  jobs[0].in.priority = first.priority;

  fw_pass_t* pass = fw_pass_create();
  // No roster yet: the caller walks the list.
  const uint32_t* known = nullptr;
  size_t known_count = 0;
  uint32_t next_id = 0;
  EXPECT_FALSE(fw_pass_roster(pass, &known, &known_count, &next_id));
  fw_pass_assign_walked(pass, ids.data(), kJobs);
  const uint32_t* found_ids = nullptr;
  ASSERT_EQ(fw_pass_jobs(pass, &found_ids), kJobs);
  EXPECT_EQ(found_ids[5], ids[5]);
  // The next pass looks the same ids up, then new ones above them: all
  // found, and a new job 3 ids above the largest.
  ASSERT_TRUE(fw_pass_roster(pass, &known, &known_count, &next_id));
  ASSERT_EQ(known_count, kJobs);
  EXPECT_EQ(next_id, 100 + kJobs);
  std::vector<uint32_t> refound(known, known + known_count);
  refound.push_back(100 + kJobs + 3);
  EXPECT_FALSE(fw_pass_refound(pass, refound.data(), kJobs + 1, kJobs, kJobs + 2, 1u << 26));
  EXPECT_TRUE(fw_pass_refound(pass, refound.data(), kJobs + 1, kJobs, kJobs + 1, 1u << 26));
  ASSERT_EQ(fw_pass_jobs(pass, &found_ids), kJobs + 1u);
  EXPECT_EQ(found_ids[kJobs], 100 + kJobs + 3);
  // An id the roster did not hold among the known ones: refused, the
  // caller walks again.
  std::vector<uint32_t> wrong(ids);
  wrong[3] = 99;
  EXPECT_FALSE(fw_pass_refound(pass, wrong.data(), kJobs, kJobs, kJobs, 1u << 26));
  ASSERT_EQ(fw_pass_jobs(pass, &found_ids), kJobs + 1u);  // unchanged
  fw_pass_assign_walked(pass, ids.data(), kJobs);

  // Gather (after a first pass, which stores every job once).
  PassOverNoJob(pass, c.get());
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  for (uint32_t i = 0; i < kJobs; ++i) {
    // Only a job the store will visit is stamped: not job 0.
    uint64_t* stamp = fw_pass_add(pass, &jobs[i].in, parts);
    EXPECT_EQ(stamp == nullptr, i == 0) << i;
    if (stamp) *stamp = jobs[i].stamp;
  }
  fw_pass_end_gather(pass);
  fw_pass_stats_t stats{};
  fw_pass_stats(pass, &stats);
  EXPECT_EQ(stats.computed, kJobs);
  EXPECT_EQ(stats.stored, kJobs - 1);  // all but job 0 changed
  fw_factors_t looked{};
  EXPECT_FALSE(fw_pass_factors(pass, ids[1], &looked));  // nothing published yet

  // Store, slice by slice, as job_store.c does: one fw_pass_store_next per
  // job (retiring the one before), and fw_pass_store_recompute for the job
  // that changed since the gather.
  fw_store_item_t item{};
  size_t slices = 0, items = 0, recomputes = 0;
  bool finished = false;
  while (!finished) {
    std::vector<fw_store_item_t> slice;
    bool stored = false;
    while (fw_pass_store_next(pass, stored, &item)) {
      slice.push_back(item);
      const Job& job = *static_cast<const Job*>(JobsById()[item.job_id]);
      EXPECT_EQ(item.stamp, job.stamp);
      // The factors are the job's priority computed alone, without TRES.
      const JobPriority e =
          ComputeJobPriority(CoreInputs(job.in, parts), p, ClusterInputs{256, 16}, kNow);
      JobPriority no_tres = e;
      no_tres.weighted.tres.clear();
      ExpectSameFactors(no_tres, item.factors);
      EXPECT_EQ(item.factors.tres, nullptr);
      // Job 150 changed since the gather (its stamp): recomputed, and its
      // own factors win.
      stored = item.job_id != 150;
      if (!stored) {
        Job changed = job;
        changed.in.scalars.nice += 10;
        fw_factors_t own{};
        fw_pass_store_recompute(pass, &changed.in, parts, &cluster, &own, nullptr);
        JobPriority ec =
            ComputeJobPriority(CoreInputs(changed.in, parts), p, ClusterInputs{256, 16}, kNow);
        ec.weighted.tres.clear();
        ExpectSameFactors(ec, own);
        EXPECT_EQ(own.priority + 10, e.priority);
        ++recomputes;
      }
    }
    ++slices;
    // The prefetch names: the record index 8 items on, the id 4 items on.
    for (size_t k = 0; k < slice.size(); ++k) {
      const Job& ahead = *static_cast<const Job*>(
          JobsById()[slice[std::min(k + 8, slice.size() - 1)].job_id]);
      const Job& near = *static_cast<const Job*>(
          JobsById()[slice[std::min(k + 4, slice.size() - 1)].job_id]);
      EXPECT_EQ(slice[k].ahead_record_index,
                k + 8 < slice.size() ? ahead.in.record_index : UINT32_MAX);
      EXPECT_EQ(slice[k].ahead_job_id, k + 4 < slice.size() ? near.in.job_id : 0u);
    }
    items += slice.size();
    if (slices == 1) {
      EXPECT_EQ(slice.size(), 1000u);
      // Between slices: a stored job's new factors are in the table; one
      // still awaiting its store keeps its previous ones (none yet).
      const uint32_t stored_id = slice[10].job_id;
      ASSERT_TRUE(fw_pass_factors(pass, stored_id, &looked));
      EXPECT_EQ(looked.priority, slice[10].factors.priority);
      EXPECT_FALSE(fw_pass_factors(pass, ids[kJobs - 1], &looked));
      // Job 0 did not change: served from the pass's table already.
      ASSERT_TRUE(fw_pass_factors(pass, ids[0], &looked));
      EXPECT_EQ(looked.priority, first.priority);
      // The recomputed job's factors are its own, not the table's.
      EXPECT_FALSE(fw_pass_factors(pass, 150, &looked));
    }
    finished = fw_pass_store_end_slice(pass);
  }
  EXPECT_EQ(slices, 2u);
  EXPECT_EQ(items, kJobs - 1u);
  EXPECT_EQ(recomputes, 1u);
  fw_pass_stats(pass, &stats);
  EXPECT_EQ(stats.recomputed, 1u);
  EXPECT_EQ(fw_pass_store_next(pass, true, &item), false);  // the pass is over

  // After the store: sprio reads the table for every job but the
  // recomputed one.
  for (uint32_t i = 0; i < kJobs; ++i) {
    const bool found_factors = fw_pass_factors(pass, ids[i], &looked);
    if (ids[i] == 150) {
      EXPECT_FALSE(found_factors);
      continue;
    }
    ASSERT_TRUE(found_factors) << ids[i];
    const JobPriority e =
        ComputeJobPriority(CoreInputs(jobs[i].in, parts), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(e, looked);
  }
  // priority_p_set stored newer factors for a job: forgotten.
  fw_pass_forget(pass, ids[20]);
  EXPECT_FALSE(fw_pass_factors(pass, ids[20], &looked));
  EXPECT_TRUE(fw_pass_factors(pass, ids[21], &looked));

  // A second pass: job 21 is set during the gather; when the store begins
  // its factors are no longer the pass's.
  for (Job& j : jobs) j.in.priority = 1;
  fw_pass_begin(pass, c.get(), &cluster, kNow + 60);
  for (uint32_t i = 0; i < kJobs; ++i) fw_pass_add(pass, &jobs[i].in, parts);
  fw_pass_forget(pass, ids[21]);
  fw_pass_end_gather(pass);
  // Before the store sprio still reads the changed jobs' previous factors.
  EXPECT_FALSE(fw_pass_factors(pass, ids[21], &looked));  // forgotten there too
  ASSERT_TRUE(fw_pass_factors(pass, ids[22], &looked));
  // The store names it so: the boundary leaves priority_p_set's newer
  // priority as it is, even one equal to the gathered priority.
  finished = false;
  size_t set_items = 0;
  while (!finished) {
    while (fw_pass_store_next(pass, true, &item)) {
      EXPECT_EQ(item.set_since_gather, item.job_id == ids[21]) << item.job_id;
      set_items += item.set_since_gather;
    }
    finished = fw_pass_store_end_slice(pass);
  }
  EXPECT_EQ(set_items, 1u);
  EXPECT_FALSE(fw_pass_factors(pass, ids[21], &looked));
  EXPECT_TRUE(fw_pass_factors(pass, ids[150 - 100], &looked));  // stored this time
  fw_pass_destroy(pass);
}

// A job retired as not stored (gone or ineligible when the store found
// it): its factors in the table are no longer its own.
TEST(ApiPass, AJobNotStoredIsNotPublished) {
  ConfigHolder c(JobsInput());
  const fw_cluster_t cluster{256, 16};
  const fw_partition_input_t parts[] = {Partition(10, 1)};
  Job a, b;
  MakeJob(&a, 5, 0);
  MakeJob(&b, 6, 0);
  fw_pass_t* pass = fw_pass_create();
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &a.in, parts);
  fw_pass_add(pass, &b.in, parts);
  fw_pass_end_gather(pass);
  fw_store_item_t item{};
  ASSERT_TRUE(fw_pass_store_next(pass, true, &item));
  EXPECT_EQ(item.job_id, 5u);
  ASSERT_TRUE(fw_pass_store_next(pass, false, &item));  // job 5 was gone
  EXPECT_EQ(item.job_id, 6u);
  EXPECT_FALSE(fw_pass_store_next(pass, true, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  fw_factors_t looked{};
  EXPECT_FALSE(fw_pass_factors(pass, 5, &looked));
  EXPECT_TRUE(fw_pass_factors(pass, 6, &looked));
  fw_pass_stats_t stats{};
  fw_pass_stats(pass, &stats);
  EXPECT_EQ(stats.recomputed, 1u);
  fw_pass_destroy(pass);
}

// PriorityFlags=INCR_ONLY is applied before the boundary sees a result: a
// job whose computed priority is below its current one is not stored, and
// a recomputed one comes back no lower than its current priority.
TEST(ApiPass, IncrOnlyIsAppliedInTheCore) {
  ConfigHolder c(JobsInput((1u << 5) | (1u << 6)));
  const fw_cluster_t cluster{256, 16};
  const fw_partition_input_t parts[] = {Partition(10, 1)};
  Job j;
  MakeJob(&j, 5, 0);
  fw_factors_t computed{};
  fw_job_priority(c.get(), &j.in, parts, &cluster, kNow, &computed, nullptr, nullptr);
  ASSERT_GT(computed.priority, 1u);
  fw_pass_t* pass = fw_pass_create();
  PassOverNoJob(pass, c.get());
  j.in.priority = computed.priority + 1000;
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &j.in, parts);
  fw_pass_end_gather(pass);
  fw_store_item_t item{};
  EXPECT_FALSE(fw_pass_store_next(pass, true, &item));  // no change to store
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  // The first pass of a process stores every job: the item's priority is
  // the current one, and a recompute gives no lower.
  fw_pass_t* first = fw_pass_create();
  fw_pass_begin(first, c.get(), &cluster, kNow);
  fw_pass_add(first, &j.in, parts);
  fw_pass_end_gather(first);
  ASSERT_TRUE(fw_pass_store_next(first, true, &item));
  EXPECT_EQ(item.factors.priority, computed.priority + 1000);
  fw_factors_t own{};
  fw_pass_store_recompute(first, &j.in, parts, &cluster, &own, nullptr);
  EXPECT_EQ(own.priority, computed.priority + 1000);
  j.in.priority = 1;
  fw_pass_store_recompute(first, &j.in, parts, &cluster, &own, nullptr);
  EXPECT_EQ(own.priority, computed.priority);
  EXPECT_FALSE(fw_pass_store_next(first, false, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(first));
  fw_pass_destroy(first);
  fw_pass_destroy(pass);
}

// fw_pass_trim gives back the changed-jobs lists between passes only:
// called between two slices of a store too large to keep (after a
// restart every job changes), it must leave the rest of the store to do;
// called after, the next pass stores as before.
TEST(ApiPass, TrimWaitsForTheStoreToFinish) {
  ConfigHolder c(JobsInput());
  const fw_cluster_t cluster{256, 16};
  const fw_partition_input_t parts[] = {Partition(10, 1)};
  constexpr uint32_t kJobs = 5000;  // over what trim keeps (3,024 items)
  std::vector<Job> jobs(kJobs);
  for (uint32_t i = 0; i < kJobs; ++i) MakeJob(&jobs[i], i + 1, 0);
  fw_pass_t* pass = fw_pass_create();
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("pass " + std::to_string(round));
    fw_pass_begin(pass, c.get(), &cluster, kNow + 300 * round);
    for (Job& j : jobs) fw_pass_add(pass, &j.in, parts);
    fw_pass_end_gather(pass);
    size_t items = 0;
    bool finished = false;
    fw_store_item_t item{};
    while (!finished) {
      while (fw_pass_store_next(pass, true, &item)) {
        Job& j = jobs[item.job_id - 1];
        fw_factors_t expected{};
        fw_job_priority(c.get(), &j.in, parts, &cluster, kNow + 300 * round, &expected, nullptr,
                        nullptr);
        EXPECT_EQ(item.factors.priority, expected.priority) << item.job_id;
        ++items;  // j.in.priority stays 1: every pass changes every job
      }
      fw_pass_trim(pass);
      finished = fw_pass_store_end_slice(pass);
    }
    EXPECT_EQ(items, kJobs);
    fw_pass_trim(pass);
  }
  fw_pass_destroy(pass);
}

TEST(ApiPass, NoChangedJobFinishesAtOnce) {
  const fw_config_input_t in = JobsInput();
  ConfigHolder c(in);
  const fw_cluster_t cluster{256, 16};
  const fw_partition_input_t parts[] = {Partition(10, 1)};
  Job j;
  MakeJob(&j, 5, 0);
  fw_factors_t f{};
  fw_job_priority(c.get(), &j.in, parts, &cluster, kNow, &f, nullptr, nullptr);
  j.in.priority = f.priority;
  fw_pass_t* pass = fw_pass_create();
  // The first pass stores the job's factors although its priority is the
  // current one: a restarted slurmctld's record holds none, and
  // job_limits_check reads priority_fs for UsageThreshold (issue 45).
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &j.in, parts);
  fw_pass_end_gather(pass);
  fw_store_item_t item{};
  ASSERT_TRUE(fw_pass_store_next(pass, true, &item));
  EXPECT_EQ(item.job_id, 5u);
  EXPECT_EQ(item.factors.priority, f.priority);
  EXPECT_FALSE(fw_pass_store_next(pass, true, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  // The next pass: nothing changed, nothing to store.
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &j.in, parts);
  fw_pass_end_gather(pass);
  EXPECT_FALSE(fw_pass_store_next(pass, true, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  fw_factors_t looked{};
  ASSERT_TRUE(fw_pass_factors(pass, 5, &looked));
  EXPECT_EQ(looked.priority, f.priority);
  fw_pass_destroy(pass);
}


// ---- the one table over generated passes --------------------------------------

// One generated job: its record as the boundary fills it, its priority
// array as the store left it, and what sprio must show for it (the model).
struct ModelJob {
  Job job;
  uint32_t priority_array[3] = {0, 0, 0};
  std::optional<JobPriority> shown;
};

void ExpectShown(fw_pass_t* pass, const std::map<uint32_t, ModelJob>& jobs,
                 const std::vector<uint32_t>& gone, const char* when) {
  SCOPED_TRACE(when);
  fw_factors_t looked{};
  for (const auto& [id, m] : jobs) {
    SCOPED_TRACE("job " + std::to_string(id));
    const bool found = fw_pass_factors(pass, id, &looked);
    ASSERT_EQ(found, m.shown.has_value());
    if (found) ExpectSameFactors(*m.shown, looked);
  }
  for (uint32_t id : gone) ASSERT_FALSE(fw_pass_factors(pass, id, &looked)) << "gone job " << id;
}

// Passes over a queue that grows, shrinks (in bursts that compact the
// table), changes its jobs' nice and partitions (multi-partition jobs
// whose partition count changes), is visited in list order or shuffled,
// changes TRES weights, and has jobs forgotten, gone or changed before
// the store: after the gather and after the store, sprio's factors for
// every job are exactly the model's. The model: a job the gather did not
// reach shows nothing; one whose priority did not change shows the new
// factors at once; a changed one keeps its previous factors until the
// store writes its priority (none after other TRES weights emptied the
// table); forgotten, gone or recomputed jobs show nothing.
TEST(ApiPass, OneTableMatchesTheModelOverGeneratedPasses) {
  fw_config_input_t in_a = JobsInput();
  fw_config_input_t in_b = JobsInput();
  const double other_weights[kTresCnt] = {0, 0, 0, 0, 80};  // billing only
  in_b.weight_tres = other_weights;
  in_b.weight_tres_text = "billing=80";
  ConfigHolder config_a(in_a), config_b(in_b);
  const Params params_a = ParamsOf(in_a), params_b = ParamsOf(in_b);
  const fw_cluster_t cluster{256, 16};
  const fw_partition_input_t parts[] = {Partition(10, 1), Partition(60, 2), Partition(30, 1)};
  const uint32_t two[] = {0, 1}, three[] = {0, 1, 2};
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto chance = [&](double p) { return std::uniform_real_distribution<>(0, 1)(rng) < p; };
    std::map<uint32_t, ModelJob> jobs;
    std::vector<uint32_t> gone;
    uint32_t next_id = 1000;
    int64_t now = kNow;
    bool use_b = false;
    fw_pass_t* pass = fw_pass_create();
    for (int round = 0; round < 40; ++round) {
      SCOPED_TRACE("pass " + std::to_string(round));
      // The queue changes: jobs end (a burst now and then), new ones come.
      const double ends = round % 9 == 8 ? 0.5 : 0.05;
      for (auto it = jobs.begin(); it != jobs.end();) {
        if (chance(ends)) {
          gone.push_back(it->first);
          it = jobs.erase(it);
        } else {
          ++it;
        }
      }
      const int arrivals = round == 0 ? 2500 : std::uniform_int_distribution<>(0, 700)(rng);
      for (int k = 0; k < arrivals; ++k) {
        ModelJob& m = jobs[next_id];
        MakeJob(&m.job, next_id, next_id % 3 ? 0 : 1);
        ++next_id;
      }
      for (auto& [id, m] : jobs) {
        fw_job_input_t& j = m.job.in;
        if (chance(0.05)) {
          j.scalars.nice = FW_NICE_OFFSET + std::uniform_int_distribution<>(0, 50)(rng);
        }
        if (chance(0.03)) {
          const int shape = std::uniform_int_distribution<>(0, 2)(rng);
          j.partition_list = shape == 0 ? nullptr : shape == 1 ? two : three;
          j.partition_count = shape == 0 ? 0 : shape == 1 ? 2 : 3;
        }
        j.priority_array = j.partition_list ? m.priority_array : nullptr;
        j.record_index = id;
      }
      if (round % 13 == 12) {  // other TRES weights: the table starts again
        use_b = !use_b;
        for (auto& [id, m] : jobs) m.shown.reset();
      }
      const fw_config_t* config = use_b ? config_b.get() : config_a.get();
      const Params& params = use_b ? params_b : params_a;
      now += std::uniform_int_distribution<>(1, 900)(rng);
      // Between passes priority_p_set stores new factors for a few jobs.
      for (auto& [id, m] : jobs) {
        if (chance(0.01)) {
          fw_pass_forget(pass, id);
          m.shown.reset();
        }
      }

      // The gather, in list order or (now and then) another order.
      std::vector<uint32_t> order;
      for (const auto& [id, m] : jobs) order.push_back(id);
      if (round % 5 == 4) std::shuffle(order.begin(), order.end(), rng);
      std::map<uint32_t, JobPriority> computed;
      fw_pass_begin(pass, config, &cluster, now);
      for (uint32_t id : order) {
        ModelJob& m = jobs[id];
        const JobPriority e =
            ComputeJobPriority(CoreInputs(m.job.in, parts), params, ClusterInputs{256, 16}, now);
        uint64_t* stamp = fw_pass_add(pass, &m.job.in, parts);
        bool array_changed = false;
        for (size_t k = 0; k < e.partition_priorities.size(); ++k) {
          array_changed |= m.priority_array[k] != e.partition_priorities[k];
        }
        const bool changed = round == 0 || e.priority != m.job.in.priority || array_changed;
        ASSERT_EQ(stamp != nullptr, changed) << "job " << id;
        if (stamp) *stamp = m.job.stamp;
        if (!changed) m.shown = e;
        computed.emplace(id, e);
      }
      fw_pass_end_gather(pass);
      for (uint32_t id : gone) jobs.erase(id);
      ExpectShown(pass, jobs, gone, "after the gather");
      if (HasFatalFailure()) break;

      // Before the store: a few more are set by priority_p_set.
      std::vector<uint32_t> forgotten;
      for (auto& [id, m] : jobs) {
        if (chance(0.01)) {
          fw_pass_forget(pass, id);
          m.shown.reset();
          forgotten.push_back(id);
        }
      }
      // The store: a few jobs are gone by then or changed since the
      // gather (recomputed: their own factors win).
      bool finished = false;
      while (!finished) {
        fw_store_item_t item{};
        bool stored = false;
        while (fw_pass_store_next(pass, stored, &item)) {
          ModelJob& m = jobs.at(item.job_id);
          const JobPriority& e = computed.at(item.job_id);
          const double fate = std::uniform_real_distribution<>(0, 1)(rng);
          stored = fate >= 0.06;
          if (fate < 0.03) {  // changed since the gather
            fw_factors_t own{};
            uint32_t own_partitions[3] = {0, 0, 0};
            fw_pass_store_recompute(pass, &m.job.in, parts, &cluster, &own, own_partitions);
          }
          if (stored) {
            m.job.in.priority = item.factors.priority;
            ASSERT_EQ(item.factors.partition_count, e.partition_priorities.size());
            std::copy_n(item.factors.partition_priorities, item.factors.partition_count,
                        m.priority_array);
            if (std::find(forgotten.begin(), forgotten.end(), item.job_id) == forgotten.end()) {
              m.shown = e;
            }
          } else {
            m.shown.reset();
          }
        }
        // Between slices the pass is still under way: fw_pass_trim must
        // leave its changed-jobs lists alone.
        if (chance(0.2)) fw_pass_trim(pass);
        finished = fw_pass_store_end_slice(pass);
      }
      // Between passes it gives back what it need not keep; the table
      // (what sprio reads) stays.
      if (chance(0.5)) fw_pass_trim(pass);
      ExpectShown(pass, jobs, gone, "after the store");
      if (HasFatalFailure()) break;
      if (gone.size() > 5000) gone.erase(gone.begin(), gone.begin() + 2500);
    }
    fw_pass_destroy(pass);
  }
}

}  // namespace
}  // namespace fairway::test
