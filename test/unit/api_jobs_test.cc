// SPDX-License-Identifier: GPL-2.0-or-later
// Job priorities through the C interface against ComputeJobPriority, and a
// whole decay pass's tables: finding the jobs, gathering, storing in
// slices, sprio's lookups before and after the swap, and forgetting.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
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

fw_partition_input_t Partition(const void* key, uint16_t factor, uint16_t tier) {
  fw_partition_input_t p{};
  p.key = key;
  p.priority_job_factor = factor;
  p.priority_tier = tier;
  p.norm_priority = factor / 100.0;
  p.max_time_min = 1440;
  p.tres_cnt = kPartTres;
  return p;
}

struct Job {
  fw_job_input_t in{};
  uint64_t alloc[kTresCnt] = {0, 0, 0, 0, 0};
  uint64_t req[kTresCnt] = {4, 8000, 0, 0, 12};
};

void MakeJob(Job* j, uint32_t id, const fw_partition_input_t* part) {
  fw_job_input_t& in = j->in;
  in = fw_job_input_t{};
  in.job_id = id;
  in.key.job_state = 0;  // pending
  in.key.priority = 1;
  in.key.nice = FW_NICE_OFFSET;
  in.key.site_factor = FW_NICE_OFFSET;
  in.key.time_limit = 60 + id % 7;
  in.key.min_nodes = 1 + id % 2;
  in.key.accrue_time = kNow - 1000 * (id % 50);
  in.key.part = part;
  in.max_cpus = FW_NO_VAL;
  in.min_cpus = 1 + id % 4;
  in.tres_alloc = nullptr;
  in.tres_req = j->req;
  in.has_assoc = true;
  in.assoc_priority = 5;
  in.assoc_priority_norm = 0.25;
  in.fs_factor = 0.001 * (id % 1000);
  in.fs_usage_efctv = 0.01L * (id % 10);
  in.fs_shares_norm = 0.2;
  in.has_qos = true;
  in.qos_priority = 10;
  in.qos_norm_priority = 0.5;
  in.partition = part;
}

// What the C++ plugin's GatherJobInputs made of the same job.
JobInputs CoreInputs(const fw_job_input_t& j, const Params& p) {
  JobInputs in;
  in.job_id = j.job_id;
  in.accrue_time = j.key.accrue_time;
  in.has_assoc = j.has_assoc;
  in.has_qos = j.has_qos;
  in.total_cpus = j.key.total_cpus;
  in.max_cpus = j.max_cpus;
  in.min_cpus = j.min_cpus;
  in.min_nodes = j.key.min_nodes;
  in.time_limit_min = j.key.time_limit;
  auto part = [](const fw_partition_input_t& from) {
    PartitionInputs out;
    out.priority_job_factor = from.priority_job_factor;
    out.norm_priority = from.norm_priority;
    out.max_time_min = from.max_time_min;
    out.tres_cnt.assign(from.tres_cnt, from.tres_cnt + kTresCnt);
    return out;
  };
  if (j.partition) in.partition = part(*j.partition);
  in.site_factor = j.key.site_factor;
  in.nice = j.key.nice;
  if (j.tres_alloc) in.tres_alloc.assign(j.tres_alloc, j.tres_alloc + kTresCnt);
  if (j.tres_req) in.tres_req.assign(j.tres_req, j.tres_req + kTresCnt);
  in.fairshare_factor = SharesNormalizedLikeFairTree(p.Mode())
                            ? j.fs_factor
                            : CalcFsFactor(j.fs_usage_efctv, j.fs_shares_norm, p.damp_factor);
  in.assoc_priority = j.assoc_priority;
  in.assoc_priority_norm = j.assoc_priority_norm;
  in.qos_priority = j.qos_priority;
  in.qos_norm_priority = j.qos_norm_priority;
  if (j.partitions) {
    std::vector<uint32_t> order(j.partition_count);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&j](uint32_t a, uint32_t b) {
      return j.partitions[a]->priority_tier > j.partitions[b]->priority_tier;
    });
    for (size_t i = 0; i < order.size(); ++i) {
      in.partition_list.push_back(part(*j.partitions[order[i]]));
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
  // TRES: the whole array, or the weighted columns only (pass tables).
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
  int keys[3];
  const fw_partition_input_t low = Partition(&keys[0], 10, 1), high = Partition(&keys[1], 90, 5),
                             mid = Partition(&keys[2], 40, 3);
  for (uint32_t flags : {1u << 5, 0u, (1u << 5) | (1u << 8) | (1u << 10)}) {
    const fw_config_input_t in = JobsInput(flags);
    ConfigHolder c(in);
    const Params p = ParamsOf(in);
    const fw_cluster_t cluster{256, 16};
    Job single;
    MakeJob(&single, 17, &low);
    single.alloc[0] = 8;
    single.alloc[4] = 20;
    single.in.tres_alloc = single.alloc;
    single.in.key.total_cpus = 8;
    double tres[kTresCnt];
    fw_factors_t out{};
    fw_job_priority(c.get(), &single.in, &cluster, kNow, &out, tres, nullptr);
    const JobPriority e = ComputeJobPriority(CoreInputs(single.in, p), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(e, out);
    EXPECT_GT(out.tres_cnt, 0u);
    EXPECT_EQ(out.tres, tres);
    EXPECT_GT(out.priority, 1u);

    // A multi-partition job: priorities in tier order.
    Job multi;
    MakeJob(&multi, 18, &low);
    const fw_partition_input_t* list[] = {&low, &high, &mid};
    multi.in.partitions = list;
    multi.in.partition_count = 3;
    const uint32_t previous[] = {7, 8, 9};
    multi.in.priority_array = previous;
    uint32_t parts[3];
    fw_job_priority(c.get(), &multi.in, &cluster, kNow, &out, tres, parts);
    const JobPriority em = ComputeJobPriority(CoreInputs(multi.in, p), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(em, out);
    EXPECT_EQ(out.partition_priorities, parts);
    EXPECT_GT(parts[0], parts[2]);  // tier 5 (factor 90) first, tier 1 (10) last
    uint32_t order[3];
    fw_partition_order(list, 3, order);
    EXPECT_EQ(std::vector<uint32_t>(order, order + 3), (std::vector<uint32_t>{1, 2, 0}));

    // sprio's row for one partition.
    double row[kTresCnt], core_row[kTresCnt];
    for (size_t i = 0; i < kTresCnt; ++i) row[i] = core_row[i] = 3.0 * i;
    const double part_factor = fw_sprio_partition_row(c.get(), &multi.in, &high, row, kTresCnt);
    JobInputs counts = CoreInputs(multi.in, p);
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

    EXPECT_EQ(fw_job_fairshare_factor(c.get(), &single.in), CoreInputs(single.in, p).fairshare_factor);
  }
}

TEST(ApiJobs, FairshareFactorNeedsAnAssociationAndAWeight) {
  Job j;
  int key;
  const fw_partition_input_t part = Partition(&key, 10, 1);
  MakeJob(&j, 33, &part);
  fw_config_input_t in = JobsInput();
  ConfigHolder fair_tree(in);
  EXPECT_EQ(fw_job_fairshare_factor(fair_tree.get(), &j.in), j.in.fs_factor);
  in.flags = 0;
  ConfigHolder classic(in);
  EXPECT_EQ(fw_job_fairshare_factor(classic.get(), &j.in),
            CalcFsFactor(j.in.fs_usage_efctv, j.in.fs_shares_norm, 1));
  in.weight_fairshare = 0;
  ConfigHolder unweighted(in);
  EXPECT_EQ(fw_job_fairshare_factor(unweighted.get(), &j.in), 0.0);
  j.in.has_assoc = false;
  EXPECT_EQ(fw_job_fairshare_factor(classic.get(), &j.in), 0.0);
}

TEST(ApiJobs, IncrOnlyNeverLowersAPriority) {
  ConfigHolder plain(JobsInput());
  EXPECT_EQ(fw_priority_after_incr_only(plain.get(), 5, 9), 5u);
  ConfigHolder incr(JobsInput((1u << 5) | (1u << 6)));
  EXPECT_EQ(fw_priority_after_incr_only(incr.get(), 5, 9), 9u);
  EXPECT_EQ(fw_priority_after_incr_only(incr.get(), 12, 9), 12u);
}

// ---- a whole pass -----------------------------------------------------------

// The job list: records found by id.
std::map<uint32_t, void*>& JobsById() {
  static std::map<uint32_t, void*> jobs;
  return jobs;
}
void* FindJob(uint32_t id) {
  auto it = JobsById().find(id);
  return it == JobsById().end() ? nullptr : it->second;
}
bool InIdOrder(const void*) { return true; }

TEST(ApiPass, FindsGathersStoresAndPublishes) {
  const fw_config_input_t in = JobsInput();
  ConfigHolder c(in);
  const Params p = ParamsOf(in);
  const fw_cluster_t cluster{256, 16};
  int part_keys[2];
  const fw_partition_input_t part_a = Partition(&part_keys[0], 10, 1),
                             part_b = Partition(&part_keys[1], 60, 2);
  const fw_partition_input_t* both[] = {&part_a, &part_b};
  constexpr uint32_t kJobs = 1500;  // two slices of the store
  std::vector<Job> jobs(kJobs);
  std::vector<void*> records(kJobs);
  std::vector<uint32_t> ids(kJobs);
  JobsById().clear();
  for (uint32_t i = 0; i < kJobs; ++i) {
    MakeJob(&jobs[i], 100 + i, i % 3 ? &part_a : &part_b);
    if (i % 100 == 7) {  // a few multi-partition jobs (general path)
      jobs[i].in.partitions = both;
      jobs[i].in.partition_count = 2;
    }
    records[i] = &jobs[i];
    ids[i] = jobs[i].in.job_id;
    JobsById()[ids[i]] = records[i];
  }
  // The current priority of job 0 is what the pass computes: unchanged.
  fw_factors_t first{};
  fw_job_priority(c.get(), &jobs[0].in, &cluster, kNow, &first, nullptr, nullptr);
  jobs[0].in.key.priority = first.priority;

  fw_pass_t* pass = fw_pass_create();
  // No roster yet: the caller walks the list.
  EXPECT_FALSE(fw_pass_refind(pass, kJobs, 1u << 26, FindJob, nullptr, InIdOrder));
  fw_pass_assign_walked(pass, records.data(), ids.data(), kJobs);
  void* const* found = nullptr;
  const uint32_t* found_ids = nullptr;
  ASSERT_EQ(fw_pass_jobs(pass, &found, &found_ids), kJobs);
  EXPECT_EQ(found[5], records[5]);
  EXPECT_EQ(found_ids[5], ids[5]);
  // The next pass finds them by id, and a new job above them.
  Job late;
  MakeJob(&late, 100 + kJobs + 3, &part_a);
  JobsById()[late.in.job_id] = &late;
  EXPECT_TRUE(fw_pass_refind(pass, kJobs + 1, 1u << 26, FindJob, nullptr, InIdOrder));
  ASSERT_EQ(fw_pass_jobs(pass, &found, &found_ids), kJobs + 1u);
  EXPECT_EQ(found[kJobs], &late);
  EXPECT_EQ(found_ids[kJobs], late.in.job_id);
  JobsById().erase(late.in.job_id);
  // A record that moved: refused, the caller walks again.
  JobsById()[ids[3]] = &late;
  EXPECT_FALSE(fw_pass_refind(pass, kJobs, 1u << 26, FindJob, nullptr, InIdOrder));
  JobsById()[ids[3]] = records[3];
  fw_pass_assign_walked(pass, records.data(), ids.data(), kJobs);

  // Gather (after a first pass, which stores every job once).
  PassOverNoJob(pass, c.get());
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  int details[kJobs], factors[kJobs];
  for (uint32_t i = 0; i < kJobs; ++i) {
    fw_pass_add(pass, &jobs[i].in, records[i], &details[i], &factors[i]);
  }
  fw_pass_end_gather(pass);
  fw_pass_stats_t stats{};
  fw_pass_stats(pass, &stats);
  EXPECT_EQ(stats.computed, kJobs);
  EXPECT_EQ(stats.stored, kJobs - 1);  // all but job 0 changed
  fw_factors_t looked{};
  EXPECT_FALSE(fw_pass_factors(pass, ids[1], &looked));  // nothing published yet

  // Store, slice by slice.
  std::vector<fw_store_item_t> slice;
  fw_store_item_t item{};
  size_t slices = 0, items = 0;
  std::map<uint32_t, uint32_t> position_of;
  bool finished = false;
  while (!finished) {
    slice.clear();
    while (fw_pass_store_next(pass, &item)) slice.push_back(item);
    ++slices;
    for (size_t k = 0; k < slice.size(); ++k) {
      const fw_store_item_t& it = slice[k];
      const Job& job = *static_cast<const Job*>(JobsById()[it.job_id]);
      EXPECT_EQ(it.key_fingerprint, fw_job_key_fingerprint(&job.in.key));
      // The factors are the job's priority computed alone.
      const JobPriority e = ComputeJobPriority(CoreInputs(job.in, p), p, ClusterInputs{256, 16}, kNow);
      ExpectSameFactors(e, it.factors);
      // Hints of the job 8 items ahead in the slice.
      if (k + 8 < slice.size()) {
        EXPECT_EQ(it.ahead_record, JobsById()[slice[k + 8].job_id]);
      } else {
        EXPECT_EQ(it.ahead_record, nullptr);
      }
      position_of[it.job_id] = it.position;
      // Job 150 changed since the gather: the boundary recomputes it and
      // its own factors win.
      fw_job_key_t now = job.in.key;
      if (it.job_id == 150) now.nice += 10;
      const bool changed = fw_job_key_fingerprint(&now) != it.key_fingerprint;
      EXPECT_EQ(changed, it.job_id == 150);
      fw_pass_store_done(pass, it.position, !changed);
    }
    items += slice.size();
    if (slices == 1) {
      EXPECT_EQ(slice.size(), 1000u);
      // Between slices: a stored job is served from the pass's table, one
      // still awaiting its store from the last published table (none yet).
      const uint32_t stored_id = slice[10].job_id;
      ASSERT_TRUE(fw_pass_factors(pass, stored_id, &looked));
      EXPECT_EQ(looked.priority, slice[10].factors.priority);
      EXPECT_FALSE(fw_pass_factors(pass, ids[kJobs - 1], &looked));
      // Job 0 did not change: served from the pass's table already.
      ASSERT_TRUE(fw_pass_factors(pass, ids[0], &looked));
      EXPECT_EQ(looked.priority, first.priority);
    }
    finished = fw_pass_store_end_slice(pass);
  }
  EXPECT_EQ(slices, 2u);
  EXPECT_EQ(items, kJobs - 1u);
  fw_pass_stats(pass, &stats);
  EXPECT_EQ(stats.recomputed, 1u);
  EXPECT_EQ(fw_pass_store_next(pass, &item), false);  // the pass is over

  // After the swap: sprio reads the table for every job but the
  // recomputed one.
  for (uint32_t i = 0; i < kJobs; ++i) {
    const bool found_factors = fw_pass_factors(pass, ids[i], &looked);
    if (ids[i] == 150) {
      EXPECT_FALSE(found_factors);
      continue;
    }
    ASSERT_TRUE(found_factors) << ids[i];
    const JobPriority e = ComputeJobPriority(CoreInputs(jobs[i].in, p), p, ClusterInputs{256, 16}, kNow);
    ExpectSameFactors(e, looked);
  }
  // priority_p_set stored newer factors for a job: forgotten.
  fw_pass_forget(pass, ids[20]);
  EXPECT_FALSE(fw_pass_factors(pass, ids[20], &looked));
  EXPECT_TRUE(fw_pass_factors(pass, ids[21], &looked));

  // A second pass: job 21 is set during the gather; when the store begins
  // its factors are no longer the pass's.
  for (Job& j : jobs) j.in.key.priority = 1;
  fw_pass_begin(pass, c.get(), &cluster, kNow + 60);
  for (uint32_t i = 0; i < kJobs; ++i) {
    fw_pass_add(pass, &jobs[i].in, records[i], &details[i], &factors[i]);
  }
  fw_pass_forget(pass, ids[21]);
  fw_pass_end_gather(pass);
  // Before the store sprio still reads the previous table.
  EXPECT_FALSE(fw_pass_factors(pass, ids[21], &looked));  // forgotten there too
  ASSERT_TRUE(fw_pass_factors(pass, ids[22], &looked));
  finished = false;
  while (!finished) {
    while (fw_pass_store_next(pass, &item)) fw_pass_store_done(pass, item.position, true);
    finished = fw_pass_store_end_slice(pass);
  }
  EXPECT_FALSE(fw_pass_factors(pass, ids[21], &looked));
  EXPECT_TRUE(fw_pass_factors(pass, ids[150 - 100], &looked));  // stored this time
  fw_pass_destroy(pass);
}

TEST(ApiPass, NoChangedJobFinishesAtOnce) {
  const fw_config_input_t in = JobsInput();
  ConfigHolder c(in);
  const fw_cluster_t cluster{256, 16};
  int key;
  const fw_partition_input_t part = Partition(&key, 10, 1);
  Job j;
  MakeJob(&j, 5, &part);
  fw_factors_t f{};
  fw_job_priority(c.get(), &j.in, &cluster, kNow, &f, nullptr, nullptr);
  j.in.key.priority = f.priority;
  fw_pass_t* pass = fw_pass_create();
  // The first pass stores the job's factors although its priority is the
  // current one: a restarted slurmctld's record holds none, and
  // job_limits_check reads priority_fs for UsageThreshold (issue 45).
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &j.in, &j, nullptr, nullptr);
  fw_pass_end_gather(pass);
  fw_store_item_t item{};
  ASSERT_TRUE(fw_pass_store_next(pass, &item));
  EXPECT_EQ(item.job_id, 5u);
  EXPECT_EQ(item.factors.priority, f.priority);
  fw_pass_store_done(pass, item.position, true);
  EXPECT_FALSE(fw_pass_store_next(pass, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  // The next pass: nothing changed, nothing to store.
  fw_pass_begin(pass, c.get(), &cluster, kNow);
  fw_pass_add(pass, &j.in, &j, nullptr, nullptr);
  fw_pass_end_gather(pass);
  EXPECT_FALSE(fw_pass_store_next(pass, &item));
  EXPECT_TRUE(fw_pass_store_end_slice(pass));
  fw_factors_t looked{};
  ASSERT_TRUE(fw_pass_factors(pass, 5, &looked));
  EXPECT_EQ(looked.priority, f.priority);
  fw_pass_destroy(pass);
}

}  // namespace
}  // namespace fairway::test

// The store's check that a job did not change since the gather: every field
// of the key, changed alone, gives another fingerprint; equal keys the same.
TEST(ApiPass, KeyFingerprintSeesEveryField) {
  fw_job_key_t base{};
  base.job_state = 0;
  base.priority = 1000;
  base.nice = 0x80000000u;
  base.site_factor = 0x80000000u;
  base.time_limit = 60;
  base.total_cpus = 4;
  base.min_nodes = 1;
  base.accrue_time = 1700000000;
  int anchor[4];
  base.part = &anchor[0];
  base.part_list = &anchor[1];
  base.qos = &anchor[2];
  base.assoc = &anchor[3];
  const uint64_t f = fw_job_key_fingerprint(&base);
  fw_job_key_t same = base;
  EXPECT_EQ(fw_job_key_fingerprint(&same), f);
  const std::vector<void (*)(fw_job_key_t*)> changes = {
      [](fw_job_key_t* k) { k->job_state = 1; },
      [](fw_job_key_t* k) { k->priority += 1; },
      [](fw_job_key_t* k) { k->direct_set_prio = 1; },
      [](fw_job_key_t* k) { k->nice += 1; },
      [](fw_job_key_t* k) { k->site_factor -= 1; },
      [](fw_job_key_t* k) { k->time_limit += 1; },
      [](fw_job_key_t* k) { k->total_cpus += 1; },
      [](fw_job_key_t* k) { k->min_nodes += 1; },
      [](fw_job_key_t* k) { k->accrue_time += 1; },
      [](fw_job_key_t* k) { k->part = nullptr; },
      [](fw_job_key_t* k) { k->part_list = nullptr; },
      [](fw_job_key_t* k) { k->qos = nullptr; },
      [](fw_job_key_t* k) { k->assoc = nullptr; },
      [](fw_job_key_t* k) { k->qos_list = k->qos; },
      [](fw_job_key_t* k) { k->part_order += 1; },
      // Two fields swapped: the order of the fields counts.
      [](fw_job_key_t* k) { std::swap(k->nice, k->priority); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    fw_job_key_t changed = base;
    changes[i](&changed);
    EXPECT_NE(fw_job_key_fingerprint(&changed), f) << "change " << i;
  }
}

// The digest of a multi-partition job's list (job_gather.c fw_jobs_key): slurmctld
// re-sorts part_ptr_list in place when a PriorityTier changes, so the
// list's address stays; the store must still see that priority_array's
// order changed (284c3b95f0:src/slurmctld/job_mgr.c _sort_part_lists).
TEST(ApiPass, PartitionOrderSeesTiersAndPlaces) {
  int a = 0, b = 0, c = 0;
  const auto digest = [](std::vector<std::pair<const void*, uint16_t>> list) {
    uint64_t d = 0;
    for (const auto& [part, tier] : list) d = fw_partition_order_step(d, part, tier);
    return d;
  };
  const uint64_t sorted = digest({{&a, 30}, {&b, 20}, {&c, 10}});
  EXPECT_EQ(digest({{&a, 30}, {&b, 20}, {&c, 10}}), sorted);
  EXPECT_NE(sorted, 0u);
  // c raised above b: the list re-sorted, the head (part_ptr) the same.
  EXPECT_NE(digest({{&a, 30}, {&c, 25}, {&b, 20}}), sorted);
  // A tier changed without a change of order.
  EXPECT_NE(digest({{&a, 30}, {&b, 15}, {&c, 10}}), sorted);
  // Two places swapped with their tiers kept, and two tiers swapped.
  EXPECT_NE(digest({{&b, 20}, {&a, 30}, {&c, 10}}), sorted);
  EXPECT_NE(digest({{&a, 20}, {&b, 30}, {&c, 10}}), sorted);
  EXPECT_NE(digest({{&a, 30}, {&b, 20}}), sorted);

  // In the key: the same list at the same address, re-sorted between
  // the gather and the store, gives another fingerprint.
  fw_job_key_t gathered{};
  gathered.part = &a;
  gathered.part_list = &gathered;
  gathered.part_order = sorted;
  fw_job_key_t stored = gathered;
  stored.part_order = digest({{&a, 30}, {&c, 25}, {&b, 20}});
  EXPECT_NE(fw_job_key_fingerprint(&stored), fw_job_key_fingerprint(&gathered));
}
