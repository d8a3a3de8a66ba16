// SPDX-License-Identifier: GPL-2.0-or-later
// Job priority factors, weights, truncation, floor and clamp, as
// _get_priority_internal computes them
// (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "job_priority.h"

namespace fairway {
namespace {

constexpr int64_t kNow = 1700000000;

// No weights: every factor off unless a test turns it on.
Params NoWeights() {
  Params p;
  p.max_age_s = 1000;
  return p;
}

// 10 nodes, 100 CPUs.
ClusterInputs Cluster() { return ClusterInputs{100, 10}; }

PartitionInputs Part(const char* name, uint16_t factor, double norm,
                     std::vector<uint64_t> tres = {}) {
  PartitionInputs p;
  p.name = name;
  p.priority_job_factor = factor;
  p.norm_priority = norm;
  p.tres_cnt = std::move(tres);
  return p;
}

JobPriority Compute(const JobInputs& job, const Params& params,
                    const ClusterInputs& cluster = Cluster(), int64_t now = kNow) {
  return ComputeJobPriority(job, params, cluster, now);
}

// ---- age -------------------------------------------------------------------

TEST(JobPriority, AgeFactor) {
  Params p = NoWeights();
  p.weight_age = 1000;
  JobInputs job;
  job.accrue_time = 0;  // not accruing
  EXPECT_EQ(Compute(job, p).factors.age, 0.0);
  job.accrue_time = kNow - 500;  // half of max_age 1000
  JobPriority r = Compute(job, p);
  EXPECT_DOUBLE_EQ(r.factors.age, 0.5);
  EXPECT_DOUBLE_EQ(r.weighted.age, 500.0);
  EXPECT_EQ(r.priority, 500u);
  job.accrue_time = kNow - 1000;  // exactly max_age: d < max_age fails -> 1
  EXPECT_EQ(Compute(job, p).factors.age, 1.0);
  job.accrue_time = kNow - 5000;
  EXPECT_EQ(Compute(job, p).factors.age, 1.0);
  job.accrue_time = kNow + 100;  // accrues in the future: d = 0
  EXPECT_EQ(Compute(job, p).factors.age, 0.0);
}

TEST(JobPriority, AgeWithZeroMaxAgeIsAlwaysOne) {
  // _get_priority_internal: d < 0 is never true, so every accruing job gets 1.0.
  Params p = NoWeights();
  p.weight_age = 1000;
  p.max_age_s = 0;
  JobInputs job;
  job.accrue_time = kNow;
  EXPECT_EQ(Compute(job, p).factors.age, 1.0);
  job.accrue_time = kNow - 1;
  EXPECT_EQ(Compute(job, p).factors.age, 1.0);
}

TEST(JobPriority, AgeNeedsItsWeight) {
  Params p = NoWeights();
  JobInputs job;
  job.accrue_time = kNow - 500;
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.age, 0.0);
  EXPECT_EQ(r.priority, 1u);  // everything 0 -> floor 1
}

// ---- fairshare -----------------------------------------------------------------

TEST(JobPriority, FairshareNeedsWeightAndAssociation) {
  Params p = NoWeights();
  p.weight_fairshare = 10000;
  JobInputs job;
  job.fairshare_factor = 0.25;
  EXPECT_EQ(Compute(job, p).factors.fairshare, 0.0);  // no association
  job.has_assoc = true;
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.fairshare, 0.25);
  EXPECT_EQ(r.weighted.fairshare, 2500.0);
  EXPECT_EQ(r.priority, 2500u);
  p.weight_fairshare = 0;
  EXPECT_EQ(Compute(job, p).factors.fairshare, 0.0);
}

// ---- job size ----------------------------------------------------------------------

JobInputs SizedJob(uint32_t min_nodes, uint32_t total_cpus) {
  JobInputs job;
  job.min_nodes = min_nodes;
  job.total_cpus = total_cpus;
  return job;
}

Params SizeParams() {
  Params p = NoWeights();
  p.weight_job_size = 1000;
  return p;
}

TEST(JobPriority, JobSizeFavorLarge) {
  Params p = SizeParams();
  // (2/10 + 30/100) / 2 = 0.25
  JobPriority r = Compute(SizedJob(2, 30), p);
  EXPECT_DOUBLE_EQ(r.factors.job_size, 0.25);
  EXPECT_DOUBLE_EQ(r.weighted.job_size, 250.0);
  EXPECT_EQ(r.priority, 250u);
  // No CPU count at all: nodes only, 2/10.
  EXPECT_DOUBLE_EQ(Compute(SizedJob(2, 0), p).factors.job_size, 0.2);
  // Whole cluster: 1.
  EXPECT_DOUBLE_EQ(Compute(SizedJob(10, 100), p).factors.job_size, 1.0);
}

TEST(JobPriority, JobSizeCpuCountFallsBackToMaxThenMinCpus) {
  Params p = SizeParams();
  JobInputs job = SizedJob(2, 0);
  job.max_cpus = 50;  // (0.2 + 0.5) / 2
  job.min_cpus = 10;
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.35);
  job.max_cpus = kNoVal;  // (0.2 + 0.1) / 2
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.15);
  job.total_cpus = 40;  // total_cpus wins: (0.2 + 0.4) / 2
  job.max_cpus = 50;
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.3);
}

TEST(JobPriority, JobSizeFavorSmall) {
  Params p = SizeParams();
  p.favor_small = true;
  // ((10-2)/10 + (100-30)/100) / 2 = (0.8 + 0.7) / 2 = 0.75
  EXPECT_DOUBLE_EQ(Compute(SizedJob(2, 30), p).factors.job_size, 0.75);
  EXPECT_DOUBLE_EQ(Compute(SizedJob(2, 0), p).factors.job_size, 0.8);
  EXPECT_DOUBLE_EQ(Compute(SizedJob(10, 100), p).factors.job_size, 0.0);
}

TEST(JobPriority, JobSizeFavorSmallOversizeWrapsToOne) {
  // As _get_priority_internal (kept for parity): N - nodes in unsigned arithmetic wraps for a
  // request above the cluster size, and the huge result clamps to 1.
  Params p = SizeParams();
  p.favor_small = true;
  EXPECT_EQ(Compute(SizedJob(20, 0), p).factors.job_size, 1.0);
}

TEST(JobPriority, JobSizeFavorSmallOversizeClampsFrom2302) {
  // Slurm 23.02 and later: a request above the cluster size gives the node
  // term 0, so only the CPU term counts: (0 + (100-30)/100) / 2.
  Params p = SizeParams();
  p.favor_small = true;
  p.favor_small_clamps_nodes = true;
  EXPECT_DOUBLE_EQ(Compute(SizedJob(20, 30), p).factors.job_size, 0.35);
  EXPECT_EQ(Compute(SizedJob(20, 0), p).factors.job_size, 0.0);
  // Within the cluster both releases agree.
  EXPECT_DOUBLE_EQ(Compute(SizedJob(2, 30), p).factors.job_size, 0.75);
}

TEST(JobPriority, JobSizeSmallRelativeToTime) {
  Params p = SizeParams();
  p.flags |= kFlagSizeRelative;
  JobInputs job = SizedJob(2, 30);
  job.time_limit_min = 60;
  // max(2 * 100/10 = 20, 30) = 30 CPUs; / 60 min / 100 CPUs = 0.005
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.005);
  job.total_cpus = 10;  // max(20, 10) = 20 -> 20/60/100
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 20.0 / 60.0 / 100.0);
  p.favor_small = true;
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 1.0 - 20.0 / 60.0 / 100.0);
}

TEST(JobPriority, JobSizeSmallRelativeTimeLimitFallbacks) {
  Params p = SizeParams();
  p.flags |= kFlagSizeRelative;
  JobInputs job = SizedJob(2, 30);
  job.time_limit_min = kNoVal;
  // No job limit and no partition: time limit 1 -> 30/1/100 = 0.3
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.3);
  // Partition MaxTime 10 min: 30/10/100 = 0.03
  PartitionInputs part = Part("batch", 1, 1.0);
  part.max_time_min = 10;
  job.partition = part;
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.03);
  // The job's own limit wins over MaxTime: 30/5/100 = 0.06
  job.time_limit_min = 5;
  EXPECT_DOUBLE_EQ(Compute(job, p).factors.job_size, 0.06);
}

TEST(JobPriority, JobSizeSmallRelativeClamps) {
  Params p = SizeParams();
  p.flags |= kFlagSizeRelative;
  JobInputs job = SizedJob(2, 30);
  job.time_limit_min = 0;  // 30/0 = +inf -> clamp 1
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.job_size, 1.0);
  EXPECT_EQ(r.priority, 1000u);
  p.favor_small = true;  // 1 - inf = -inf -> clamp 0
  r = Compute(job, p);
  EXPECT_EQ(r.factors.job_size, 0.0);
  EXPECT_EQ(r.priority, 1u);
}

TEST(JobPriority, JobSizeWithEmptyClusterIsZeroNotNan) {
  for (ClusterInputs cluster : {ClusterInputs{0, 10}, ClusterInputs{100, 0}, ClusterInputs{0, 0}}) {
    for (bool small : {false, true}) {
      for (uint32_t flags : {0u, static_cast<uint32_t>(kFlagSizeRelative)}) {
        Params p = SizeParams();
        p.favor_small = small;
        p.flags = flags;
        JobPriority r = Compute(SizedJob(2, 30), p, cluster);
        EXPECT_EQ(r.factors.job_size, 0.0);
        EXPECT_FALSE(std::isnan(r.weighted.job_size));
        EXPECT_EQ(r.priority, 1u);
      }
    }
  }
}

TEST(JobPriority, JobSizeNeedsItsWeight) {
  EXPECT_EQ(Compute(SizedJob(10, 100), NoWeights()).factors.job_size, 0.0);
}

// ---- partition, QOS, association ----------------------------------------------------

TEST(JobPriority, PartitionFactorNormalisedOrRaw) {
  Params p = NoWeights();
  p.weight_partition = 1000;
  JobInputs job;
  EXPECT_EQ(Compute(job, p).factors.partition, 0.0);  // no partition
  job.partition = Part("batch", 50, 0.5);
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.partition, 0.5);
  EXPECT_EQ(r.weighted.partition, 500.0);
  EXPECT_EQ(r.priority, 500u);
  p.flags |= kFlagNoNormalPart;
  r = Compute(job, p);
  EXPECT_EQ(r.factors.partition, 50.0);
  EXPECT_EQ(r.priority, 50000u);
}

TEST(JobPriority, PartitionWithZeroJobFactorGetsZero) {
  Params p = NoWeights();
  p.weight_partition = 1000;
  JobInputs job;
  job.partition = Part("low", 0, 0.7);  // inconsistent norm: still 0
  EXPECT_EQ(Compute(job, p).factors.partition, 0.0);
  p.weight_partition = 0;
  job.partition = Part("batch", 50, 0.5);
  EXPECT_EQ(Compute(job, p).factors.partition, 0.0);
}

TEST(JobPriority, QosFactorNormalisedOrRaw) {
  Params p = NoWeights();
  p.weight_qos = 1000;
  JobInputs job;
  job.qos_priority = 10;
  job.qos_norm_priority = 0.25;
  EXPECT_EQ(Compute(job, p).factors.qos, 0.0);  // no QOS
  job.has_qos = true;
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.qos, 0.25);
  EXPECT_EQ(r.priority, 250u);
  p.flags |= kFlagNoNormalQos;
  r = Compute(job, p);
  EXPECT_EQ(r.factors.qos, 10.0);
  EXPECT_EQ(r.priority, 10000u);
  job.qos_priority = 0;  // QOS priority 0: factor 0 even with a norm value
  EXPECT_EQ(Compute(job, p).factors.qos, 0.0);
  p.flags &= ~kFlagNoNormalQos;
  EXPECT_EQ(Compute(job, p).factors.qos, 0.0);
}

TEST(JobPriority, AssocFactorNormalisedOrRaw) {
  Params p = NoWeights();
  p.weight_assoc = 1000;
  JobInputs job;
  job.assoc_priority = 7;
  job.assoc_priority_norm = 0.7;
  EXPECT_EQ(Compute(job, p).factors.assoc, 0.0);  // no association
  job.has_assoc = true;
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.assoc, 0.7);
  EXPECT_EQ(r.priority, 700u);
  p.flags |= kFlagNoNormalAssoc;
  r = Compute(job, p);
  EXPECT_EQ(r.factors.assoc, 7.0);
  EXPECT_EQ(r.priority, 7000u);
  p.flags = kFlagNoNormalAll;  // NO_NORMAL_ALL includes the assoc bit
  EXPECT_EQ(Compute(job, p).factors.assoc, 7.0);
}

// ---- site and nice --------------------------------------------------------------------

TEST(JobPriority, SiteAndNiceOffsets) {
  Params p = NoWeights();
  p.weight_age = 1000;
  JobInputs job;
  job.accrue_time = kNow - 500;  // 500
  EXPECT_EQ(Compute(job, p).priority, 500u);
  job.nice = kNiceOffset + 100;  // nice 100 lowers by 100
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.priority, 400u);
  EXPECT_EQ(r.factors.nice, kNiceOffset + 100);
  EXPECT_EQ(r.weighted.nice, kNiceOffset + 100);  // stored biased, unweighted
  job.nice = kNiceOffset - 100;  // nice -100 raises by 100
  EXPECT_EQ(Compute(job, p).priority, 600u);
  job.nice = kNiceOffset;
  job.site_factor = kNiceOffset + 50;
  r = Compute(job, p);
  EXPECT_EQ(r.priority, 550u);
  EXPECT_EQ(r.weighted.site, kNiceOffset + 50);
  job.site_factor = kNiceOffset - 600;  // 500 - 600 < 1 -> 1
  EXPECT_EQ(Compute(job, p).priority, 1u);
}

TEST(JobPriority, SiteAndNiceApplyWithoutAnyWeight) {
  JobInputs job;
  job.site_factor = kNiceOffset + 12345;
  job.nice = kNiceOffset + 45;
  EXPECT_EQ(Compute(job, NoWeights()).priority, 12300u);
  // Extreme biased values: site 2^32-1 -> +2^31-1; nice 0 -> +2^31.
  job.site_factor = 0xffffffffu;
  job.nice = 0;
  JobPriority r = Compute(job, NoWeights());
  EXPECT_EQ(r.sum, 4294967295.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_FALSE(r.clamped);
}

// ---- TRES ------------------------------------------------------------------------------

Params TresParams() {
  Params p = NoWeights();
  p.weight_tres = {2000.0, 0.0, 1000.0};
  return p;
}

TEST(JobPriority, TresFactorsUseAllocationOverPartitionTotal) {
  Params p = TresParams();
  JobInputs job;
  job.partition = Part("batch", 1, 1.0, {100, 1000, 10});
  job.tres_alloc = {25, 500, 5};
  job.tres_req = {50, 50, 1};
  JobPriority r = Compute(job, p);
  // 25/100 = 0.25, 500/1000 = 0.5, 5/10 = 0.5; weighted 500, 0, 500.
  ASSERT_EQ(r.factors.tres.size(), 3u);
  EXPECT_DOUBLE_EQ(r.factors.tres[0], 0.25);
  EXPECT_DOUBLE_EQ(r.factors.tres[1], 0.5);
  EXPECT_DOUBLE_EQ(r.factors.tres[2], 0.5);
  ASSERT_EQ(r.weighted.tres.size(), 3u);
  EXPECT_DOUBLE_EQ(r.weighted.tres[0], 500.0);
  EXPECT_DOUBLE_EQ(r.weighted.tres[1], 0.0);
  EXPECT_DOUBLE_EQ(r.weighted.tres[2], 500.0);
  EXPECT_DOUBLE_EQ(r.tres_sum, 1000.0);
  EXPECT_EQ(r.priority, 1000u);
}

TEST(JobPriority, TresFactorsUseRequestBeforeAllocation) {
  Params p = TresParams();
  JobInputs job;
  job.partition = Part("batch", 1, 1.0, {100, 1000, 10});
  job.tres_req = {50, 50, 1};  // 0.5, 0.05, 0.1 -> 1000 + 0 + 100
  JobPriority r = Compute(job, p);
  EXPECT_DOUBLE_EQ(r.factors.tres[0], 0.5);
  EXPECT_DOUBLE_EQ(r.factors.tres[2], 0.1);
  EXPECT_DOUBLE_EQ(r.tres_sum, 1100.0);
  EXPECT_EQ(r.priority, 1100u);
}

TEST(JobPriority, NoConsumeAllocationFallsBackToRequest) {
  Params p = TresParams();
  JobInputs job;
  job.partition = Part("batch", 1, 1.0, {100, 1000, 10});
  job.tres_alloc = {25, 500, kNoConsumeVal64};
  job.tres_req = {50, 50, 2};
  JobPriority r = Compute(job, p);
  EXPECT_DOUBLE_EQ(r.factors.tres[0], 0.25);  // allocation
  EXPECT_DOUBLE_EQ(r.factors.tres[2], 0.2);   // request 2/10
  EXPECT_DOUBLE_EQ(r.tres_sum, 500.0 + 200.0);
}

TEST(JobPriority, TresWithoutPartitionTotalIsZero) {
  Params p = TresParams();
  JobInputs job;
  job.tres_alloc = {25, 500, 5};
  EXPECT_DOUBLE_EQ(Compute(job, p).tres_sum, 0.0);  // no partition
  job.partition = Part("batch", 1, 1.0, {0, 1000, 0});  // zero totals
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.factors.tres[0], 0.0);
  EXPECT_EQ(r.factors.tres[2], 0.0);
  EXPECT_DOUBLE_EQ(r.factors.tres[1], 0.5);
  EXPECT_FALSE(r.had_nan);
}

TEST(JobPriority, NoNormalTresUsesRawCounts) {
  Params p = TresParams();
  p.flags |= kFlagNoNormalTres;
  JobInputs job;
  job.tres_alloc = {25, 500, 5};
  JobPriority r = Compute(job, p);  // no partition needed
  EXPECT_EQ(r.factors.tres[0], 25.0);
  EXPECT_EQ(r.factors.tres[2], 5.0);
  EXPECT_DOUBLE_EQ(r.tres_sum, 25 * 2000.0 + 5 * 1000.0);
  EXPECT_EQ(r.priority, 55000u);
}

TEST(JobPriority, NoTresWeightsMeansNoTresFactors) {
  JobInputs job;
  job.partition = Part("batch", 1, 1.0, {100});
  job.tres_alloc = {25};
  JobPriority r = Compute(job, NoWeights());
  EXPECT_TRUE(r.factors.tres.empty());
  EXPECT_TRUE(r.weighted.tres.empty());
  EXPECT_EQ(r.tres_sum, 0.0);
}

// ---- sum, truncation, floor, clamp ----------------------------------------------------

TEST(JobPriority, WeightedSumOfAllFactors) {
  Params p = NoWeights();
  p.weight_age = 1000;
  p.weight_fairshare = 2000;
  p.weight_job_size = 300;
  p.weight_partition = 400;
  p.weight_qos = 500;
  p.weight_assoc = 600;
  p.weight_tres = {100.0};
  JobInputs job = SizedJob(2, 30);  // js 0.25 -> 75
  job.accrue_time = kNow - 250;     // age 0.25 -> 250
  job.has_assoc = true;
  job.fairshare_factor = 0.5;       // 1000
  job.assoc_priority = 1;
  job.assoc_priority_norm = 0.5;    // 300
  job.has_qos = true;
  job.qos_priority = 1;
  job.qos_norm_priority = 0.5;      // 250
  job.partition = Part("batch", 1, 0.5, {100});  // 200
  job.tres_alloc = {50};            // 0.5 -> 50
  job.nice = kNiceOffset + 25;      // -25
  JobPriority r = Compute(job, p);
  // 250 + 1000 + 75 + 200 + 250 + 300 + 50 - 25 = 2100
  EXPECT_DOUBLE_EQ(r.sum, 2100.0);
  EXPECT_EQ(r.priority, 2100u);
  EXPECT_FALSE(r.clamped);
  EXPECT_FALSE(r.had_nan);
}

TEST(JobPriority, TruncatesTowardZero) {
  bool clamped = true;
  EXPECT_EQ(PriorityFromSum(1234.99, &clamped), 1234u);
  EXPECT_FALSE(clamped);
  EXPECT_EQ(PriorityFromSum(1234.0, nullptr), 1234u);
  EXPECT_EQ(PriorityFromSum(1.999, nullptr), 1u);
  // Through the whole computation: 0.1234999 * 10000 = 1234.999 -> 1234.
  Params p = NoWeights();
  p.weight_fairshare = 10000;
  JobInputs job;
  job.has_assoc = true;
  job.fairshare_factor = 0.1234999;
  EXPECT_EQ(Compute(job, p).priority, 1234u);
}

TEST(JobPriority, FloorIsOne) {
  EXPECT_EQ(PriorityFromSum(0.0, nullptr), 1u);
  EXPECT_EQ(PriorityFromSum(0.999, nullptr), 1u);
  EXPECT_EQ(PriorityFromSum(-5.0, nullptr), 1u);
  EXPECT_EQ(PriorityFromSum(-std::numeric_limits<double>::infinity(), nullptr), 1u);
  JobInputs job;
  job.nice = kNiceOffset + 1000;  // sum -1000
  JobPriority r = Compute(job, NoWeights());
  EXPECT_EQ(r.sum, -1000.0);
  EXPECT_EQ(r.priority, 1u);
  EXPECT_EQ(Compute(JobInputs{}, NoWeights()).priority, 1u);  // sum 0
}

TEST(JobPriority, ClampsAtTwoToTheThirtyTwoMinusOne) {
  bool clamped = false;
  EXPECT_EQ(PriorityFromSum(4294967295.0, &clamped), 4294967295u);
  EXPECT_FALSE(clamped);
  EXPECT_EQ(PriorityFromSum(4294967295.9, &clamped), 4294967295u);  // truncation, no clamp
  EXPECT_FALSE(clamped);
  EXPECT_EQ(PriorityFromSum(4294967296.0, &clamped), 4294967295u);
  EXPECT_TRUE(clamped);
  EXPECT_EQ(PriorityFromSum(1e300, &clamped), 4294967295u);
  EXPECT_TRUE(clamped);
  EXPECT_EQ(PriorityFromSum(std::numeric_limits<double>::infinity(), &clamped), 4294967295u);
  EXPECT_TRUE(clamped);
}

TEST(JobPriority, WeightsSummingBeyond32BitsClamp) {
  Params p = NoWeights();
  p.weight_age = p.weight_fairshare = p.weight_qos = 0xffffffffu;
  ASSERT_GT(p.WeightSum(), 0xffffffffull);
  JobInputs job;
  job.accrue_time = kNow - 5000;  // age 1
  job.has_assoc = true;
  job.fairshare_factor = 1.0;
  job.has_qos = true;
  job.qos_priority = 1;
  job.qos_norm_priority = 1.0;
  JobPriority r = Compute(job, p);
  EXPECT_DOUBLE_EQ(r.sum, 3.0 * 4294967295.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped);
}

TEST(JobPriority, NanNeverReachesTheResult) {
  bool clamped = true;
  EXPECT_EQ(PriorityFromSum(std::nan(""), &clamped), 1u);
  EXPECT_FALSE(clamped);
  // A NaN factor is replaced by 0 and flagged.
  Params p = NoWeights();
  p.weight_fairshare = 1000;
  p.weight_age = 1000;
  JobInputs job;
  job.has_assoc = true;
  job.fairshare_factor = std::nan("");
  job.accrue_time = kNow - 500;
  JobPriority r = Compute(job, p);
  EXPECT_TRUE(r.had_nan);
  EXPECT_EQ(r.weighted.fairshare, 0.0);
  EXPECT_FALSE(std::isnan(r.sum));
  EXPECT_EQ(r.priority, 500u);
}

TEST(JobPriority, JobWithoutDetailsGetsZero) {
  Params p = NoWeights();
  p.weight_age = 1000;
  p.weight_fairshare = 1000;
  p.weight_tres = {1.0};
  JobInputs job;
  job.has_details = false;
  job.accrue_time = kNow - 500;
  job.has_assoc = true;
  job.fairshare_factor = 1.0;
  job.tres_req = {10};
  job.site_factor = kNiceOffset + 100;
  JobPriority r = Compute(job, p);
  EXPECT_EQ(r.priority, 0u);
  EXPECT_EQ(r.factors.age, 0.0);
  EXPECT_EQ(r.factors.fairshare, 0.0);
  EXPECT_TRUE(r.factors.tres.empty());
  EXPECT_EQ(r.weighted.age, 0.0);
  EXPECT_EQ(r.weighted.fairshare, 0.0);
  EXPECT_TRUE(r.partition_priorities.empty());
}

// ---- multi-partition jobs --------------------------------------------------------------

// Two partitions: "high" (norm 1.0, 100 CPUs) and "low" (norm 0.5, 50 CPUs);
// the job holds 25 CPUs, has age 500 and currently sits in "low".
struct MultiPartition {
  Params params;
  JobInputs job;
  MultiPartition() {
    params = NoWeights();
    params.weight_age = 1000;
    params.weight_partition = 1000;
    params.weight_tres = {1000.0};
    job.accrue_time = kNow - 500;
    job.tres_alloc = {25};
    job.partition_list = {Part("high", 100, 1.0, {100}), Part("low", 50, 0.5, {50})};
    job.partition = job.partition_list[1];
  }
};

TEST(JobPriority, MultiPartitionUsesEachPartitionsOwnTerms) {
  MultiPartition m;
  JobPriority r = Compute(m.job, m.params);
  // high: 1.0*1000 + 500 + 25/100*1000 = 1750; low: 500 + 500 + 25/50*1000 = 1500.
  ASSERT_EQ(r.partition_priorities.size(), 2u);
  EXPECT_EQ(r.partition_priorities[0], 1750u);
  EXPECT_EQ(r.partition_priorities[1], 1500u);
  EXPECT_EQ(r.priority, 1500u);  // the current partition ("low")
  m.params.flags |= kFlagNoNormalPart;  // raw job factors: 100*1000, 50*1000
  r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[0], 100000u + 500u + 250u);
  EXPECT_EQ(r.partition_priorities[1], 50000u + 500u + 500u);
}

TEST(JobPriority, MultiPartitionNiceAndFloorApplyPerEntry) {
  MultiPartition m;
  m.job.nice = kNiceOffset + 1600;  // 1750 - 1600 = 150; 1500 - 1600 < 1 -> 1
  JobPriority r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[0], 150u);
  EXPECT_EQ(r.partition_priorities[1], 1u);
}

TEST(JobPriority, MultiPartitionIncrOnlyNeverLowers) {
  MultiPartition m;
  m.job.previous_partition_priorities = {2000, 1000};
  JobPriority r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[0], 1750u);  // without INCR_ONLY: recomputed
  EXPECT_EQ(r.partition_priorities[1], 1500u);
  m.params.flags |= kFlagIncrOnly;
  r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[0], 2000u);  // keeps the higher previous value
  EXPECT_EQ(r.partition_priorities[1], 1500u);  // still raised from 1000
  m.job.previous_partition_priorities = {2000};  // shorter previous array: 0
  r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[1], 1500u);
}

TEST(JobPriority, IncrOnlyKeepsTheHigherPreviousValue) {
  Params params;
  EXPECT_EQ(PriorityAfterIncrOnly(10, 20, params), 10u);  // without the flag: as computed
  params.flags |= kFlagIncrOnly;
  EXPECT_EQ(PriorityAfterIncrOnly(10, 20, params), 20u);
  EXPECT_EQ(PriorityAfterIncrOnly(30, 20, params), 30u);
  EXPECT_EQ(PriorityAfterIncrOnly(20, 20, params), 20u);
}

TEST(JobPriority, MultiPartitionClampSetsFlag) {
  MultiPartition m;
  m.params.weight_partition = 0xffffffffu;
  m.params.flags |= kFlagNoNormalPart;  // 100 * (2^32-1) for "high"
  m.job.partition.reset();
  JobPriority r = Compute(m.job, m.params);
  EXPECT_EQ(r.partition_priorities[0], 4294967295u);
  EXPECT_EQ(r.partition_priorities[1], 4294967295u);
  EXPECT_TRUE(r.clamped);
  EXPECT_EQ(r.priority, 500u);  // no current partition: age only, TRES total unknown
}

TEST(JobPriority, SinglePartitionJobHasNoPartitionPriorities) {
  Params p = NoWeights();
  p.weight_partition = 1000;
  JobInputs job;
  job.partition = Part("batch", 1, 1.0);
  EXPECT_TRUE(Compute(job, p).partition_priorities.empty());
}

// ---- sprio rows of multi-partition jobs ------------------------------------------------

TEST(JobPriority, SprioPartitionRowReplacesCountedTresAndWeightsAllAgain) {
  Params p = TresParams();  // weights 2000, 0, 1000
  p.weight_partition = 1000;
  JobInputs job;
  job.tres_req = {50, 0, 1};
  // The job's weighted TRES from its current partition, as stored for sprio.
  double row[3] = {1000.0, 0.0, 7.0};
  // This partition counts CPUs (50/200) but has no total for the third TRES.
  const PartitionInputs part = Part("other", 40, 0.4, {200, 1000, 0});
  EXPECT_DOUBLE_EQ(SprioPartitionRow(job, part, p, row, 3), 400.0);
  EXPECT_DOUBLE_EQ(row[0], 0.25 * 2000.0);
  EXPECT_DOUBLE_EQ(row[1], 0.0);
  EXPECT_DOUBLE_EQ(row[2], 7.0 * 1000.0) << "kept and weighted a second time, as multifactor";
}

TEST(JobPriority, SprioPartitionRowRawCountsAndShortRows) {
  Params p = TresParams();
  p.flags |= kFlagNoNormalTres | kFlagNoNormalPart;
  p.weight_partition = 10;
  JobInputs job;
  job.tres_alloc = {4, 0, kNoConsumeVal64};
  job.tres_req = {8, 0, 3};
  double row[2] = {9.0, 9.0};  // fewer entries than weights: only those are touched
  EXPECT_DOUBLE_EQ(SprioPartitionRow(job, Part("raw", 40, 0.4, {}), p, row, 2), 400.0);
  EXPECT_DOUBLE_EQ(row[0], 4.0 * 2000.0);
  EXPECT_DOUBLE_EQ(row[1], 0.0);
  EXPECT_DOUBLE_EQ(SprioPartitionRow(job, Part("raw", 40, 0.4, {}), p, nullptr, 0), 400.0);
  p.weight_tres.clear();
  row[0] = 5.0;
  SprioPartitionRow(job, Part("raw", 40, 0.4, {}), p, row, 2);
  EXPECT_DOUBLE_EQ(row[0], 5.0) << "no TRES weights: the row's TRES are left alone";
}

}  // namespace
}  // namespace fairway
