// SPDX-License-Identifier: GPL-2.0-or-later
// The decay pass's computation on the boundary's record must give exactly
// what ComputeJobPriorityInto gives on the JobInputs made from the same
// record (the path priority_p_set and multi-partition jobs take): the same
// weighted factors bit for bit and the same integer priority, over random
// records that reach every branch of the factor formulas.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "api/api_internal.h"
#include "flat_priority.h"
#include "job_priority.h"

namespace fairway {
namespace {

constexpr int64_t kNow = 1700000000;
constexpr size_t kTresCnt = 6;  // the cluster's TRES count in these tests

// Bitwise: the pass stores what it computes, and sprio compares with the
// stored priority, so "close" is not enough.
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

template <typename T>
T Pick(std::mt19937_64& gen, std::initializer_list<T> values) {
  return values.begin()[gen() % values.size()];
}

uint32_t RandomWeight(std::mt19937_64& gen) {
  return Pick<uint32_t>(gen, {0, 1, 1000, 10000, 100000, 4000000000u});
}

Params RandomParams(std::mt19937_64& gen) {
  Params p;
  p.weight_age = RandomWeight(gen);
  p.weight_assoc = RandomWeight(gen);
  p.weight_fairshare = RandomWeight(gen);
  p.weight_job_size = RandomWeight(gen);
  p.weight_partition = RandomWeight(gen);
  p.weight_qos = RandomWeight(gen);
  if (gen() % 4) {
    p.weight_tres.assign(kTresCnt, 0.0);
    for (double& w : p.weight_tres) w = Pick<double>(gen, {0.0, 0.0, 1.0, 2000.0, 0.25, 1e9});
  }
  p.flags = 0;
  for (uint32_t flag : {kFlagSizeRelative, kFlagNoNormalAssoc, kFlagNoNormalPart,
                        kFlagNoNormalQos, kFlagNoNormalTres}) {
    if (gen() % 3 == 0) p.flags |= flag;
  }
  p.favor_small = gen() % 2;
  p.favor_small_clamps_nodes = gen() % 2;
  p.max_age_s = Pick<int64_t>(gen, {0, 1, 3600, 604800});
  return p;
}

// A job's or partition's TRES array as the boundary hands it: the
// cluster's kTresCnt counts, or none.
std::vector<uint64_t> RandomCounts(std::mt19937_64& gen, bool allocated) {
  if (gen() % 3 == 0) return {};  // none (not allocated, or no array)
  std::vector<uint64_t> counts(kTresCnt);
  for (uint64_t& c : counts) {
    c = Pick<uint64_t>(gen, {0, 1, 7, 4096, 1ull << 40});
    if (allocated && gen() % 4 == 0) c = kNoConsumeVal64;
  }
  return counts;
}

const uint64_t* OrNull(const std::vector<uint64_t>& v) { return v.empty() ? nullptr : v.data(); }

// A random record as the boundary fills it, with its TRES arrays, and its
// partition (index 0 of partitions) when it has one.
struct RandomRecord {
  fw_job_input_t job{};
  fw_partition_input_t partitions[1] = {};
  std::vector<uint64_t> alloc, req, part_tres;
};

void Fill(std::mt19937_64& gen, RandomRecord* r) {
  fw_job_input_t& j = r->job;
  j = fw_job_input_t{};
  j.scalars.accrue_time = Pick<int64_t>(gen, {0, kNow - 1, kNow - 5000, kNow - 2000000, kNow + 60});
  j.scalars.has_assoc = gen() % 5 != 0;
  j.scalars.fairshare_factor = std::uniform_real_distribution<double>(0, 1)(gen);
  j.scalars.assoc_priority = Pick<uint32_t>(gen, {0, 3, 100000});
  j.scalars.assoc_priority_norm = std::uniform_real_distribution<double>(0, 1)(gen);
  j.scalars.has_qos = gen() % 5 != 0;
  j.scalars.qos_priority = Pick<uint32_t>(gen, {0, 10, 65535});
  j.scalars.qos_norm_priority = std::uniform_real_distribution<double>(0, 1)(gen);
  j.scalars.total_cpus = Pick<uint32_t>(gen, {0, 0, 4, 250});
  j.scalars.max_cpus = Pick<uint32_t>(gen, {kNoVal, 8, 1000});
  j.scalars.min_cpus = Pick<uint32_t>(gen, {0, 1, 64});
  j.scalars.min_nodes = Pick<uint32_t>(gen, {0, 1, 3, 50});  // 50 > the cluster's nodes
  j.scalars.time_limit_min = Pick<uint32_t>(gen, {kNoVal, 0, 30, 1440});
  j.partition = FW_NO_PARTITION;
  if (gen() % 4) {
    fw_partition_input_t& part = r->partitions[0];
    part = fw_partition_input_t{};
    part.priority_job_factor = Pick<uint16_t>(gen, {0, 1, 10});
    part.norm_priority = part.priority_job_factor / 10.0;
    part.max_time_min = Pick<uint32_t>(gen, {kNoVal, 0, 60, 0xffffffff});
    r->part_tres = RandomCounts(gen, false);
    part.tres_cnt = OrNull(r->part_tres);
    j.partition = 0;
  }
  j.scalars.site_factor = kNiceOffset + Pick<int32_t>(gen, {0, 0, 5, -5, 1000000});
  j.scalars.nice = kNiceOffset + Pick<int32_t>(gen, {0, 0, 100, -10000, 2000000000});
  r->alloc = RandomCounts(gen, true);
  r->req = RandomCounts(gen, false);
  j.tres_alloc = OrNull(r->alloc);
  j.tres_req = OrNull(r->req);
}

std::vector<uint32_t> WeightedColumns(const Params& p) {
  std::vector<uint32_t> columns;
  for (size_t i = 0; i < p.weight_tres.size(); ++i) {
    if (p.weight_tres[i] != 0) columns.push_back(static_cast<uint32_t>(i));
  }
  return columns;
}

// The record computed on directly (the pass's single-partition path) and
// made JobInputs by the production translation (api::JobInputsFrom, the
// general path's) give the same bits.
TEST(FlatPriority, MatchesTheGeneralComputationBitForBit) {
  std::mt19937_64 gen(20261123);
  const ClusterInputs clusters[] = {{100, 10}, {2, 1}, {0, 10}, {64, 0}};
  size_t clamped = 0, with_tres = 0, size_relative = 0, no_partition = 0;
  RandomRecord record;
  JobInputs inputs;
  for (int i = 0; i < 200000; ++i) {
    fw_config config;
    config.params = RandomParams(gen);
    config.weighted_tres = WeightedColumns(config.params);
    config.tres_cnt = kTresCnt;
    const Params& params = config.params;
    const std::vector<uint32_t>& columns = config.weighted_tres;
    FlatWeights weights;
    BuildFlatWeights(params, columns, api::CountedTres(config), &weights);
    Fill(gen, &record);
    const fw_job_input_t& job = record.job;
    const ClusterInputs cluster = clusters[gen() % 4];

    api::JobInputsFrom(config, job, record.partitions, &inputs);
    JobPriority general;
    ComputeJobPriorityInto(inputs, params, cluster, kNow, &general);
    const fw_partition_input_t* part =
        job.partition == FW_NO_PARTITION ? nullptr : &record.partitions[job.partition];
    FlatResult flat;
    std::vector<double> tres(columns.size() + 1, -1.0);
    ComputeFlatPriority(job, part, weights, cluster, kNow, &flat, tres.data());

    const PriorityFactors& w = general.weighted;
    SCOPED_TRACE("case " + std::to_string(i));
    ASSERT_TRUE(SameBits(flat.sum, general.sum));
    ASSERT_EQ(flat.priority, general.priority);
    ASSERT_EQ(flat.clamped, general.clamped);
    ASSERT_EQ(flat.had_nan, general.had_nan);
    ASSERT_TRUE(SameBits(flat.age, w.age));
    ASSERT_TRUE(SameBits(flat.assoc, w.assoc));
    ASSERT_TRUE(SameBits(flat.fairshare, w.fairshare));
    ASSERT_TRUE(SameBits(flat.job_size, w.job_size));
    ASSERT_TRUE(SameBits(flat.partition, w.partition));
    ASSERT_TRUE(SameBits(flat.qos, w.qos));
    ASSERT_EQ(flat.site, w.site);
    ASSERT_EQ(flat.nice, w.nice);
    ASSERT_EQ(weights.tres_count, params.weight_tres.empty() ? 0 : columns.size());
    for (size_t k = 0; k < weights.tres_count; ++k) {
      ASSERT_TRUE(SameBits(tres[k], w.tres[columns[k]])) << "TRES column " << columns[k];
    }
    ASSERT_EQ(tres[weights.tres_count], -1.0);  // nothing written past them
    clamped += general.clamped;
    with_tres += general.tres_sum > 0;
    size_relative += (params.flags & kFlagSizeRelative) && w.job_size > 0;
    no_partition += !part;
  }
  // The random inputs did reach the branches this test is for.
  EXPECT_GT(clamped, 1000u);
  EXPECT_GT(with_tres, 1000u);
  EXPECT_GT(size_relative, 1000u);
  EXPECT_GT(no_partition, 1000u);
}

TEST(FlatPriority, WorkedExample) {
  // 1,000 of age at half of max age, fairshare 0.5 x 100,000, 4 of 100 CPUs
  // at cpu=2000: 500 + 50,000 + 80 = 50,580; nice 10 takes 10 off.
  Params params;
  params.max_age_s = 1000;
  params.weight_age = 1000;
  params.weight_fairshare = 100000;
  params.weight_tres = {2000.0, 0.0, 0.0};
  params.flags = 0;
  const std::vector<uint32_t> columns = {0};
  FlatWeights weights;
  BuildFlatWeights(params, columns, 3, &weights);
  const uint64_t totals[3] = {100, 0, 0};
  fw_partition_input_t partition{};
  partition.max_time_min = kNoVal;
  partition.tres_cnt = totals;
  const uint64_t requested[3] = {4, 0, 0};
  fw_job_input_t job{};
  job.scalars.accrue_time = kNow - 500;
  job.scalars.has_assoc = true;
  job.scalars.fairshare_factor = 0.5;
  job.scalars.max_cpus = kNoVal;
  job.scalars.min_nodes = 1;
  job.scalars.time_limit_min = kNoVal;
  job.scalars.site_factor = kNiceOffset;
  job.scalars.nice = kNiceOffset + 10;
  job.partition = 0;
  job.tres_req = requested;
  FlatResult r;
  double tres[1];
  ComputeFlatPriority(job, &partition, weights, ClusterInputs{100, 10}, kNow, &r, tres);
  EXPECT_EQ(r.age, 500.0);
  EXPECT_EQ(r.fairshare, 50000.0);
  EXPECT_EQ(tres[0], 80.0);
  EXPECT_EQ(r.priority, 50570u);
}

// Any number of weighted TRES: the pass writes them into its table.
TEST(FlatPriority, EveryWeightedTresIsComputed) {
  Params params;
  params.weight_tres.assign(12, 1.0);
  std::vector<uint32_t> columns;
  for (uint32_t i = 0; i < 12; ++i) columns.push_back(i);
  FlatWeights weights;
  BuildFlatWeights(params, columns, 12, &weights);
  EXPECT_EQ(weights.tres_count, 12u);
  BuildFlatWeights(Params{}, {}, 0, &weights);
  EXPECT_EQ(weights.tres_count, 0u);
}

}  // namespace
}  // namespace fairway
