// SPDX-License-Identifier: GPL-2.0-or-later
// Billable TRES, as assoc_mgr_tres_weighted computes it (
// slurm-22-05-8-1:src/common/assoc_mgr.c).
#include <gtest/gtest.h>

#include <vector>

#include "billing.h"
#include "slurm_values.h"

namespace fairway {
namespace {

// Slurm's fixed TRES order (cpu, mem, energy, node, billing) and two more.
std::vector<TresType> ClusterTres() {
  return {{"cpu", ""},     {"mem", ""},       {"energy", ""}, {"node", ""},
          {"billing", ""}, {"gres", "gpu"},   {"license", "matlab"}};
}

// 4 CPUs, 8192 MB, 0 energy, 1 node, billing 999 (must be ignored), 2 GPUs,
// 3 licences.
std::vector<uint64_t> Counts() { return {4, 8192, 0, 1, 999, 2, 3}; }

// Weighted values: cpu 4*1 = 4, mem 8192*(0.25/1024) = 2, energy 0,
// node 1*0.5 = 0.5, billing skipped, gpu 2*3 = 6, licence 3*1 = 3.
std::vector<double> Weights() { return {1.0, 0.25 / 1024, 5.0, 0.5, 100.0, 3.0, 1.0}; }

TEST(Billing, WeightedSum) {
  // 4 + 2 + 0 + 0.5 + 6 + 3 = 15.5
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), Counts(), Weights(), false), 15.5);
}

TEST(Billing, MaxTresTakesLargestNodeLevelTresPlusTheRest) {
  // Node-level: max(cpu 4, mem 2, node 0.5, gres/gpu 6) = 6; others: energy 0
  // + licence 3 = 3. Total 9.
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), Counts(), Weights(), true), 9.0);
  // Make memory the largest node-level value: 8192*(2/1024) = 16 -> 16 + 3.
  std::vector<double> w = Weights();
  w[1] = 2.0 / 1024;
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), Counts(), w, true), 19.0);
}

TEST(Billing, MaxTresRecognisesGresCaseInsensitively) {
  // assoc_mgr compares the type with xstrcasecmp(type, "gres").
  std::vector<TresType> tres = {{"cpu", ""}, {"GRES", "gpu"}};
  EXPECT_DOUBLE_EQ(BillableTres(tres, {4, 2}, {1.0, 3.0}, true), 6.0);   // max(4, 6)
  EXPECT_DOUBLE_EQ(BillableTres(tres, {4, 2}, {1.0, 3.0}, false), 10.0);  // 4 + 6
}

TEST(Billing, BillingTresIsNeverCounted) {
  std::vector<uint64_t> counts = Counts();
  counts[4] = 123456789;
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), counts, Weights(), false), 15.5);
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), counts, Weights(), true), 9.0);
}

TEST(Billing, NoConsumeCountsAreSkipped) {
  std::vector<uint64_t> counts = Counts();
  counts[5] = kNoConsumeVal64;  // gres/gpu:no_consume: 15.5 - 6
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), counts, Weights(), false), 9.5);
  // MAX_TRES: max(cpu 4, mem 2, node 0.5) + 3 = 7.
  EXPECT_DOUBLE_EQ(BillableTres(ClusterTres(), counts, Weights(), true), 7.0);
}

TEST(Billing, ZeroWeightsBillNothing) {
  std::vector<double> zero(ClusterTres().size(), 0.0);
  EXPECT_EQ(BillableTres(ClusterTres(), Counts(), zero, false), 0.0);
  EXPECT_EQ(BillableTres(ClusterTres(), Counts(), zero, true), 0.0);
}

TEST(Billing, NoWeightsBillsTheCpuCount) {
  EXPECT_EQ(BillableTres(ClusterTres(), Counts(), {}, false), 4.0);
  EXPECT_EQ(BillableTres(ClusterTres(), Counts(), {}, true), 4.0);
  std::vector<uint64_t> counts = Counts();
  counts[0] = 128;
  EXPECT_EQ(BillableTres(ClusterTres(), counts, {}, false), 128.0);
}

TEST(Billing, EmptyCountsBillNothing) {
  EXPECT_EQ(BillableTres(ClusterTres(), {}, Weights(), false), 0.0);
  EXPECT_EQ(BillableTres(ClusterTres(), {}, Weights(), true), 0.0);
  EXPECT_EQ(BillableTres(ClusterTres(), {}, {}, false), 0.0);
}

TEST(Billing, FractionalWeightsAreNotRounded) {
  std::vector<TresType> tres = {{"cpu", ""}, {"mem", ""}};
  // 3 * 0.3 + 1000 * 0.0001 = 0.9 + 0.1 = 1.0 (within rounding)
  EXPECT_NEAR(BillableTres(tres, {3, 1000}, {0.3, 0.0001}, false), 1.0, 1e-12);
  EXPECT_NEAR(BillableTres(tres, {3, 1000}, {0.3, 0.0001}, true), 0.9, 1e-12);
}

}  // namespace
}  // namespace fairway
