// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs submitted with several QOS (--qos=a,b, Slurm 24.11 and later): one
// priority per (partition, QOS) pair, partition-major, each with its QOS's
// own QOS factor (_priority_each_partition and _priority_each_qos in
// slurm-24-11-5-1:src/plugins/priority/multifactor/priority_multifactor.c),
// in the core and through the C interface and the decay pass's tables.
// Expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "api/fairway_api.h"
#include "api_test_support.h"
#include "job_priority.h"

namespace fairway {
namespace {

constexpr int64_t kNow = 1700000000;

PartitionInputs Part(uint16_t factor, double norm, std::vector<uint64_t> tres) {
  PartitionInputs p;
  p.priority_job_factor = factor;
  p.norm_priority = norm;
  p.tres_cnt = std::move(tres);
  return p;
}

// Partitions "high" (norm 1.0, 100 CPUs) and "low" (norm 0.5, 50 CPUs); the
// job holds 25 CPUs, has age 500 of 1000, sits in "low" with its current
// QOS (priority 10, norm 0.1), and asked for three QOS: priority 100
// (norm 1.0), 10 (norm 0.1) and 0. Weights: age, partition, QOS and CPU
// 1000 each. Weighted terms: age 500; partition 1000 (high) or 500 (low);
// TRES 25/100*1000 = 250 (high) or 25/50*1000 = 500 (low); QOS 1000, 100,
// and for the QOS without a priority the job's own, 100.
struct MultiQos {
  Params params;
  JobInputs job;
  MultiQos() {
    params.max_age_s = 1000;
    params.weight_age = 1000;
    params.weight_partition = 1000;
    params.weight_qos = 1000;
    params.weight_tres = {1000.0};
    job.accrue_time = kNow - 500;
    job.tres_alloc = {25};
    job.has_qos = true;
    job.qos_priority = 10;
    job.qos_norm_priority = 0.1;
    job.partition_list = {Part(100, 1.0, {100}), Part(50, 0.5, {50})};
    job.partition = job.partition_list[1];
    job.qos_list = {QosInputs{100, 1.0}, QosInputs{10, 0.1}, QosInputs{0, 0.0}};
  }
  JobPriority Compute() const {
    return ComputeJobPriority(job, params, ClusterInputs{100, 10}, kNow);
  }
};

TEST(MultiQos, OnePriorityPerPairPartitionMajor) {
  MultiQos m;
  const JobPriority r = m.Compute();
  // high: 1000 + 500 + 250 + QOS; low: 500 + 500 + 500 + QOS.
  EXPECT_EQ(r.partition_priorities, (std::vector<uint32_t>{2750, 1850, 1850, 2500, 1600, 1600}));
  // The job's own priority: its partition ("low") and its current QOS.
  EXPECT_EQ(r.priority, 1600u);
  EXPECT_DOUBLE_EQ(r.weighted.qos, 100.0);
}

TEST(MultiQos, OnePartitionStillGetsOnePriorityPerQos) {
  MultiQos m;
  m.job.partition_list.clear();  // in "low" alone
  EXPECT_EQ(m.Compute().partition_priorities, (std::vector<uint32_t>{2500, 1600, 1600}));
  m.job.partition.reset();  // no partition at all: no partition or TRES term
  EXPECT_EQ(m.Compute().partition_priorities, (std::vector<uint32_t>{1500, 600, 600}));
}

TEST(MultiQos, RawQosPrioritiesWithNoNormalQos) {
  MultiQos m;
  m.params.flags |= kFlagNoNormalQos;
  // QOS terms 100*1000, 10*1000, and the job's own 10*1000.
  EXPECT_EQ(m.Compute().partition_priorities,
            (std::vector<uint32_t>{101750, 11750, 11750, 101500, 11500, 11500}));
}

TEST(MultiQos, WithoutQosWeightEveryPairHasNoQosTerm) {
  MultiQos m;
  m.params.weight_qos = 0;
  EXPECT_EQ(m.Compute().partition_priorities,
            (std::vector<uint32_t>{1750, 1750, 1750, 1500, 1500, 1500}));
}

TEST(MultiQos, IncrOnlyKeepsEachPairFromGoingDown) {
  MultiQos m;
  m.params.flags |= kFlagIncrOnly;
  m.job.previous_partition_priorities = {3000, 1000, 1000, 1000, 1700, 1000};
  EXPECT_EQ(m.Compute().partition_priorities,
            (std::vector<uint32_t>{3000, 1850, 1850, 2500, 1700, 1600}));
}

TEST(MultiQos, NiceFloorAndClampApplyPerPair) {
  MultiQos m;
  m.job.nice = kNiceOffset + 2000;  // 2750 - 2000 = 750; 1850 - 2000 < 1: 1
  EXPECT_EQ(m.Compute().partition_priorities, (std::vector<uint32_t>{750, 1, 1, 500, 1, 1}));
  m.job.nice = kNiceOffset;
  m.params.flags |= kFlagNoNormalQos;
  m.params.weight_qos = 0xffffffffu;  // 100 x (2^32 - 1) for the first QOS
  const JobPriority r = m.Compute();
  EXPECT_EQ(r.partition_priorities[0], 4294967295u);
  EXPECT_EQ(r.partition_priorities[3], 4294967295u);
  EXPECT_TRUE(r.clamped);
}

TEST(MultiQos, PairQosFactorFallsBackToTheJobs) {
  Params p;
  p.weight_qos = 200;
  EXPECT_DOUBLE_EQ(PairQosFactor(QosInputs{50, 0.5}, 7.0, p), 100.0);
  EXPECT_DOUBLE_EQ(PairQosFactor(QosInputs{0, 0.5}, 7.0, p), 7.0);  // no priority
  p.flags |= kFlagNoNormalQos;
  EXPECT_DOUBLE_EQ(PairQosFactor(QosInputs{50, 0.5}, 7.0, p), 10000.0);
  p.weight_qos = 0;
  EXPECT_DOUBLE_EQ(PairQosFactor(QosInputs{50, 0.5}, 7.0, p), 7.0);
}

// ---- through the C interface ---------------------------------------------------

using test::ConfigHolder;

// The same job as C snapshots: weights age 1000 (max age 1000 s),
// partition 1000, QOS 1000, nothing else.
struct CJob {
  fw_config_input_t config{};
  fw_partition_input_t parts[2] = {};  // high, low: the pass's partition array
  const uint32_t both[2] = {0, 1};
  fw_qos_input_t qos[3]{};
  fw_job_input_t in{};
  CJob() {
    config = test::DefaultInput();
    config.weight_fairshare = config.weight_job_size = config.weight_assoc = 0;
    config.weight_qos = 1000;
    config.max_age_s = 1000;
    parts[0] = fw_partition_input_t{100, 1, 1.0, 1440, nullptr};
    parts[1] = fw_partition_input_t{50, 2, 0.5, 1440, nullptr};
    qos[0] = fw_qos_input_t{100, 1.0};
    qos[1] = fw_qos_input_t{10, 0.1};
    qos[2] = fw_qos_input_t{0, 0.0};
    in.job_id = 42;
    in.priority = 1;
    in.scalars.nice = FW_NICE_OFFSET;
    in.scalars.site_factor = FW_NICE_OFFSET;
    in.scalars.time_limit_min = 60;
    in.scalars.min_nodes = 1;
    in.scalars.accrue_time = kNow - 500;
    in.scalars.max_cpus = FW_NO_VAL;
    in.scalars.has_qos = true;
    in.scalars.qos_priority = 10;
    in.scalars.qos_norm_priority = 0.1;
    in.partition = 1;  // low
    in.partition_list = both;
    in.partition_count = 2;
    in.qos_list = qos;
    in.qos_count = 3;
  }
};

TEST(MultiQosApi, JobPriorityReturnsThePairs) {
  CJob j;
  ConfigHolder c(j.config);
  EXPECT_EQ(fw_priority_count(&j.in), 6u);
  // Tier 2 ("low") comes first: low's pairs, then high's.
  // low: 500 + 500 + QOS (1000, 100, 100); high: 1000 + 500 + QOS.
  uint32_t pairs[6] = {};
  fw_factors_t f{};
  fw_job_priority(c.get(), &j.in, j.parts, nullptr, kNow, &f, nullptr, pairs);
  ASSERT_EQ(f.partition_count, 6u);
  EXPECT_EQ(f.partition_priorities, pairs);
  EXPECT_EQ(std::vector<uint32_t>(pairs, pairs + 6),
            (std::vector<uint32_t>{2000, 1100, 1100, 2500, 1600, 1600}));
  EXPECT_EQ(f.priority, 1100u);  // "low" with the current QOS
  // In one partition: one per QOS.
  j.in.partition_list = nullptr;
  j.in.partition_count = 0;
  EXPECT_EQ(fw_priority_count(&j.in), 3u);
  fw_job_priority(c.get(), &j.in, j.parts, nullptr, kNow, &f, nullptr, pairs);
  EXPECT_EQ(std::vector<uint32_t>(pairs, pairs + 3), (std::vector<uint32_t>{2000, 1100, 1100}));
  // With one QOS and one partition the scheduler indexes nothing.
  j.in.qos_list = nullptr;
  j.in.qos_count = 0;
  EXPECT_EQ(fw_priority_count(&j.in), 0u);
  // sprio's QOS rows: the QOS's own factor, or the job's.
  EXPECT_DOUBLE_EQ(fw_sprio_qos_row(c.get(), &j.qos[0], 100.0), 1000.0);
  EXPECT_DOUBLE_EQ(fw_sprio_qos_row(c.get(), &j.qos[2], 100.0), 100.0);
}

// The store sizes a job's priority_array from the counts it reads off the
// record (fw_priority_array_count): the rule fw_priority_count applies to
// the gathered inputs, so the two agree for every shape of job.
TEST(MultiQosApi, ArrayCountFromCountsIsTheJobsCount) {
  EXPECT_EQ(fw_priority_array_count(0, 0), 0u);  // one partition, one QOS
  EXPECT_EQ(fw_priority_array_count(3, 0), 3u);  // one per listed partition
  EXPECT_EQ(fw_priority_array_count(0, 2), 2u);  // one partition: one per QOS
  EXPECT_EQ(fw_priority_array_count(1, 2), 2u);
  EXPECT_EQ(fw_priority_array_count(3, 2), 6u);  // one per (partition, QOS)
  CJob j;
  for (uint32_t partitions : {0u, 1u, 2u}) {
    for (uint32_t qos : {0u, 1u, 3u}) {
      j.in.partition_list = partitions ? j.both : nullptr;
      j.in.partition_count = partitions;
      j.in.qos_list = qos ? j.qos : nullptr;
      j.in.qos_count = qos;
      EXPECT_EQ(fw_priority_count(&j.in), fw_priority_array_count(partitions, qos))
          << partitions << " partitions, " << qos << " QOS";
    }
  }
}

// A pass stores a multi-QOS job only when a pair's entry changes, and
// serves all its pairs to sprio from its table.
TEST(MultiQosApi, PassComparesAndPublishesEveryPair) {
  CJob j;
  ConfigHolder c(j.config);
  fw_factors_t alone{};
  uint32_t pairs[6] = {};
  fw_job_priority(c.get(), &j.in, j.parts, nullptr, kNow, &alone, nullptr, pairs);
  j.in.priority = alone.priority;  // job->priority is current
  uint32_t array[6];
  std::copy(pairs, pairs + 6, array);
  array[4] = 7;  // one pair's entry is stale
  j.in.priority_array = array;
  auto run_pass = [&](size_t* stored) {
    fw_pass_t* pass = fw_pass_create();
    const uint32_t ids[] = {j.in.job_id};
    fw_pass_assign_walked(pass, ids, 1);
    fairway::test::PassOverNoJob(pass, c.get());
    fw_pass_begin(pass, c.get(), nullptr, kNow);
    fw_pass_add(pass, &j.in, j.parts);
    fw_pass_end_gather(pass);
    fw_store_item_t item{};
    *stored = 0;
    bool finished = false;
    while (!finished) {
      while (fw_pass_store_next(pass, true, &item)) {
        ++*stored;
        EXPECT_EQ(std::vector<uint32_t>(item.factors.partition_priorities,
                                        item.factors.partition_priorities +
                                            item.factors.partition_count),
                  std::vector<uint32_t>(pairs, pairs + 6));
      }
      finished = fw_pass_store_end_slice(pass);
    }
    fw_factors_t served{};
    EXPECT_TRUE(fw_pass_factors(pass, j.in.job_id, &served));
    EXPECT_EQ(served.partition_count, 6u);
    fw_pass_destroy(pass);
  };
  size_t stored = 0;
  run_pass(&stored);
  EXPECT_EQ(stored, 1u);  // entry 4 differs
  array[4] = pairs[4];
  run_pass(&stored);
  EXPECT_EQ(stored, 0u);  // every pair as stored
}

}  // namespace
}  // namespace fairway
