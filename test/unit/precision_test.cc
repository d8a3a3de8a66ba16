// SPDX-License-Identifier: GPL-2.0-or-later
// Overflow and precision (_get_priority_internal in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c): weighted sums above
// 2^32 clamp, huge and tiny usage and extreme shares never let NaN or
// infinity reach a fairshare factor in any mode, deep trees stay sane, and
// decay over huge times floors at DBL_MIN. Expectations come from the
// documented contracts (factors in [0, 1], priority in [1, 2^32 - 1], ...),
// not from the implementation's formulas.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "decay.h"
#include "fairshare.h"
#include "job_priority.h"
#include "planned_use.h"

namespace fairway {
namespace {

constexpr uint32_t kMaxShares = 0x7ffffffe;  // the largest count below "parent"
constexpr long double kLdMax = std::numeric_limits<long double>::max();
constexpr int64_t kDay = 86400;

const FairshareMode kAllModes[] = {FairshareMode::kClassic, FairshareMode::kDepthOblivious,
                                   FairshareMode::kFairTree, FairshareMode::kRanged,
                                   FairshareMode::kPlannedUse};

std::string Name(FairshareMode mode) { return FairshareModeName(mode); }

Params ModeParams(FairshareMode mode) {
  Params p;
  p.mode_override = mode;
  p.planned_use_interval_s = kDay;
  p.decay_half_life_s = 7 * kDay;
  p.planned_use_capacity = 100000;  // a 100k-core machine at billing 1
  return p;
}

AssocTree Build(const std::vector<AssocNode>& nodes, FairshareMode mode) {
  AssocTree tree;
  std::string error;
  EXPECT_TRUE(tree.Build(nodes, SharesNormalizedLikeFairTree(mode), &error)) << error;
  return tree;
}

AssocNode Acct(uint32_t id, uint32_t parent, const std::string& acct, uint32_t shares,
               long double usage) {
  AssocNode n;
  n.id = id;
  n.parent_id = parent;
  n.acct = acct;
  n.shares_raw = shares;
  n.usage_raw = usage;
  return n;
}

AssocNode User(uint32_t id, uint32_t parent, const std::string& acct, const std::string& user,
               uint32_t shares, long double usage) {
  AssocNode n = Acct(id, parent, acct, shares, usage);
  n.user = user;
  return n;
}

// ComputeFairshare in the mode; for planned use, also with a ledger holding
// each association's usage_raw as closed history (so usage enters the index).
std::vector<FairshareResults> ComputeAll(const AssocTree& tree, FairshareMode mode,
                                         uint16_t damp = 1) {
  Params p = ModeParams(mode);
  p.damp_factor = damp;
  std::vector<FairshareResults> out;
  out.push_back(ComputeFairshare(tree, p, nullptr, 0));
  if (mode == FairshareMode::kPlannedUse) {
    PlannedUseLedger ledger;
    ledger.Roll(0, p.planned_use_interval_s, 0.5);
    for (size_t i = 0; i < tree.size(); ++i) {
      ledger.Charge(tree.node(static_cast<int32_t>(i)).id, tree.node(static_cast<int32_t>(i)).usage_raw);
    }
    ledger.Roll(p.planned_use_interval_s, p.planned_use_interval_s,
                PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
    const FairshareResults r = ComputeFairshare(tree, p, &ledger, 0);
    out.push_back(r);
  }
  return out;
}

// Every job factor and fs_factor is a finite number in [0, 1].
void ExpectSane(const AssocTree& tree, const FairshareResults& r, const std::string& what) {
  ASSERT_EQ(r.assocs.size(), tree.size()) << what;
  for (size_t i = 0; i < r.assocs.size(); ++i) {
    const AssocFairshare& a = r.assocs[i];
    const std::string where = what + ", association " + tree.node(static_cast<int32_t>(i)).name();
    EXPECT_TRUE(std::isfinite(a.job_factor)) << where << ": job_factor " << a.job_factor;
    EXPECT_TRUE(std::isfinite(a.fs_factor)) << where << ": fs_factor " << a.fs_factor;
    EXPECT_GE(a.job_factor, 0.0) << where;
    EXPECT_LE(a.job_factor, 1.0) << where;
    EXPECT_GE(a.fs_factor, 0.0) << where;
    EXPECT_LE(a.fs_factor, 1.0) << where;
    if (r.mode == FairshareMode::kRanged) {
      EXPECT_LE(0.0, a.slice_lo) << where;
      EXPECT_LE(a.slice_lo, a.slice_hi) << where;
      EXPECT_LE(a.slice_hi, 1.0) << where;
    }
  }
}

void ExpectSaneInEveryMode(const std::vector<AssocNode>& nodes, const std::string& what) {
  for (FairshareMode mode : kAllModes) {
    AssocTree tree = Build(nodes, mode);
    for (uint16_t damp : {uint16_t{1}, uint16_t{5}}) {
      for (const FairshareResults& r : ComputeAll(tree, mode, damp)) {
        ExpectSane(tree, r, what + " [" + Name(mode) + ", damp " + std::to_string(damp) + "]");
      }
    }
  }
}

// A job whose every factor is at its maximum, for the clamp tests.
JobInputs FullJob() {
  JobInputs job;
  job.accrue_time = 1;  // accruing for decades: age factor 1
  job.has_assoc = true;
  job.fairshare_factor = 1.0;
  job.assoc_priority = 10;
  job.assoc_priority_norm = 1.0;
  job.has_qos = true;
  job.qos_priority = 10;
  job.qos_norm_priority = 1.0;
  job.total_cpus = 100;  // the whole cluster
  job.min_nodes = 10;
  PartitionInputs part;
  part.name = "p";
  part.priority_job_factor = 1;
  part.norm_priority = 1.0;
  job.partition = part;
  return job;
}

constexpr ClusterInputs kCluster{100, 10};
constexpr int64_t kNow = 1700000000;

// ---- weights, sums and the 2^32 clamp ---------------------------------------

TEST(Precision, WeightSumIsSixtyFourBit) {
  Params p;
  p.weight_age = p.weight_assoc = p.weight_fairshare = p.weight_job_size = p.weight_partition =
      p.weight_qos = 0xffffffffu;
  EXPECT_EQ(p.WeightSum(), 6ull * 4294967295ull);  // > 2^32: no wrap
  EXPECT_GT(p.WeightSum(), uint64_t{1} << 32);
}

TEST(Precision, WeightsAboveTwoToThe32ClampNeverWrap) {
  Params p;
  p.weight_age = p.weight_assoc = p.weight_fairshare = p.weight_job_size = p.weight_partition =
      p.weight_qos = 0xffffffffu;
  p.max_age_s = 1000;
  JobPriority r = ComputeJobPriority(FullJob(), p, kCluster, kNow);
  EXPECT_EQ(r.factors.age, 1.0);
  EXPECT_EQ(r.factors.fairshare, 1.0);
  EXPECT_EQ(r.factors.job_size, 1.0);
  EXPECT_GT(r.sum, 4294967295.0 * 5);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped);
  EXPECT_FALSE(r.had_nan);
}

TEST(Precision, JustAboveAndJustBelowTheClamp) {
  // Two factors of 1 with weights 2^31 + 1: sum 2^32 + 2, above the maximum.
  Params p;
  p.weight_fairshare = 0x80000001u;
  p.weight_assoc = 0x80000001u;
  JobInputs job;
  job.has_assoc = true;
  job.fairshare_factor = 1.0;
  job.assoc_priority_norm = 1.0;
  JobPriority r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_EQ(r.sum, 4294967298.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped);

  // 2^31 + (2^31 - 1) = 2^32 - 1 exactly: the maximum, not a clamp.
  p.weight_assoc = 0x7fffffffu;
  p.weight_fairshare = 0x80000000u;
  r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_EQ(r.sum, 4294967295.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_FALSE(r.clamped);

  // 2^31 + (2^31 - 0.5) = 2^32 - 0.5 truncates to 2^32 - 1 (truncation
  // toward zero, as _get_priority_internal does): no clamp needed.
  p.weight_assoc = 0x80000000u;
  job.fairshare_factor = 1.0;
  job.assoc_priority_norm = 1.0 - 0.5 / 2147483648.0;
  r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_LT(r.sum, 4294967296.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_FALSE(r.clamped);
}

TEST(Precision, SiteAndNiceAtTheirExtremesAddToTheClampedSum) {
  Params p;
  p.weight_fairshare = 0xffffffffu;
  JobInputs job;
  job.has_assoc = true;
  job.fairshare_factor = 1.0;
  job.site_factor = 0xffffffffu;  // site + (2^31 - 1)
  job.nice = 0;                   // nice -2^31: + 2^31
  JobPriority r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_EQ(r.sum, 4294967295.0 + 2147483647.0 + 2147483648.0);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped);

  // The other way round the sum is negative: floor 1, never 0 (held).
  job.fairshare_factor = 0.0;
  job.site_factor = 0;
  job.nice = 0xffffffffu;
  r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_LT(r.sum, 0.0);
  EXPECT_EQ(r.priority, 1u);
  EXPECT_FALSE(r.clamped);
}

TEST(Precision, MultiPartitionPrioritiesClampToo) {
  Params p;
  p.weight_partition = 0xffffffffu;
  p.weight_fairshare = 0xffffffffu;
  JobInputs job = FullJob();
  PartitionInputs a = *job.partition, b = *job.partition;
  b.norm_priority = 0.0;
  job.partition_list = {a, b};
  JobPriority r = ComputeJobPriority(job, p, kCluster, kNow);
  ASSERT_EQ(r.partition_priorities.size(), 2u);
  EXPECT_EQ(r.partition_priorities[0], 4294967295u);  // 2 * (2^32 - 1)
  EXPECT_EQ(r.partition_priorities[1], 4294967295u);  // 2^32 - 1 exactly
  EXPECT_TRUE(r.clamped);
}

TEST(Precision, HugeTresWeightsClampAndNaNTermsAreDropped) {
  Params p;
  p.weight_tres = {1e300, 1e300};
  JobInputs job = FullJob();
  job.tres_req = {100, 5};
  job.partition->tres_cnt = {100, 10};
  JobPriority r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped);

  // An infinite weight times a zero factor is NaN: it must not reach the
  // integer conversion (in _get_priority_internal).
  p.weight_tres = {std::numeric_limits<double>::infinity(), 1.0};
  job.tres_req = {0, 5};
  r = ComputeJobPriority(job, p, kCluster, kNow);
  EXPECT_GE(r.priority, 1u);
  EXPECT_FALSE(std::isnan(r.weighted.fairshare));
  EXPECT_FALSE(std::isnan(r.tres_sum));
  EXPECT_FALSE(std::isnan(r.sum));
}

TEST(Precision, PriorityIsNeverZeroOrNaNBasedForAJobWithDetails) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double factors[] = {nan, inf, -inf, -1.0, 0.0, 4.9e-324, 0.5, 1.0, 2.0, 1e300};
  const uint32_t weights[] = {0, 1, 1000, 0xffffffffu};
  const uint32_t biased[] = {0, 1, kNiceOffset, 0xffffffffu};
  int cases = 0;
  for (double f : factors) {
    for (uint32_t w : weights) {
      for (uint32_t nice : biased) {
        for (uint32_t site : biased) {
          Params p;
          p.weight_fairshare = w;
          p.weight_assoc = w;
          p.weight_qos = w;
          JobInputs job;
          job.has_assoc = true;
          job.fairshare_factor = f;
          job.assoc_priority_norm = f;
          job.has_qos = true;
          job.qos_priority = 1;
          job.qos_norm_priority = f;
          job.nice = nice;
          job.site_factor = site;
          job.partition_list = {PartitionInputs{"x", 1, f, kNoVal, {}}};
          JobPriority r = ComputeJobPriority(job, p, kCluster, kNow);
          SCOPED_TRACE("factor " + std::to_string(f) + " weight " + std::to_string(w) +
                       " nice " + std::to_string(nice) + " site " + std::to_string(site));
          EXPECT_GE(r.priority, 1u);
          EXPECT_FALSE(std::isnan(r.sum));
          EXPECT_FALSE(std::isnan(r.weighted.fairshare));
          EXPECT_FALSE(std::isnan(r.weighted.assoc));
          EXPECT_FALSE(std::isnan(r.weighted.qos));
          ASSERT_EQ(r.partition_priorities.size(), 1u);
          EXPECT_GE(r.partition_priorities[0], 1u);
          // The clamp flag agrees with the sum.
          if (r.sum >= 4294967296.0) {
            EXPECT_TRUE(r.clamped);
            EXPECT_EQ(r.priority, 4294967295u);
          }
          if (r.sum < 1) {
            EXPECT_EQ(r.priority, 1u);
          }
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 10 * 4 * 4 * 4);

  JobInputs held;
  held.has_details = false;
  EXPECT_EQ(ComputeJobPriority(held, Params(), kCluster, kNow).priority, 0u);
}

TEST(Precision, PriorityFromSumAtTheEdges) {
  bool clamped = true;
  EXPECT_EQ(PriorityFromSum(std::numeric_limits<double>::quiet_NaN(), &clamped), 1u);
  EXPECT_FALSE(clamped);
  EXPECT_EQ(PriorityFromSum(-std::numeric_limits<double>::infinity(), &clamped), 1u);
  EXPECT_EQ(PriorityFromSum(0.999999, &clamped), 1u);
  EXPECT_EQ(PriorityFromSum(std::numeric_limits<double>::infinity(), &clamped), 4294967295u);
  EXPECT_TRUE(clamped);
  EXPECT_EQ(PriorityFromSum(1.8e19, &clamped), 4294967295u);  // beyond uint64_t too
  EXPECT_TRUE(clamped);
  EXPECT_EQ(PriorityFromSum(std::nextafter(4294967296.0, 0.0), &clamped), 4294967295u);
  EXPECT_FALSE(clamped);
}

// ---- huge usage ------------------------------------------------------------

// root { A (1) {u1, u2}, B (1) {u3} }: u1 holds `big`, u2 none, u3 `other`.
// Subtree sums are as assoc_mgr keeps them (in long double).
std::vector<AssocNode> TwoAccountTree(long double big, long double other, uint32_t shares_a = 1,
                                      uint32_t shares_b = 1) {
  return {Acct(1, 0, "root", 1, big + other), Acct(2, 1, "a", shares_a, big),
          User(3, 2, "a", "u1", 1, big),     User(4, 2, "a", "u2", 1, 0),
          Acct(5, 1, "b", shares_b, other),  User(6, 5, "b", "u3", 1, other)};
}

TEST(Precision, YearsOfHundredThousandCoreJobsInEveryMode) {
  // 100k cores for 10 years is 3.2e13 core-seconds; with billing weights of
  // hundreds to tens of thousands per core that is 1e16..1e20.
  for (long double big : {1e17L, 1e18L, 1e19L, 1e20L, 3.2e13L * 3e6L}) {
    std::vector<AssocNode> nodes = TwoAccountTree(big, big / 1000);
    ExpectSaneInEveryMode(nodes, "usage " + std::to_string(static_cast<double>(big)));
    // A user with no usage never ranks below its heavy sibling (same shares).
    for (FairshareMode mode : kAllModes) {
      AssocTree tree = Build(nodes, mode);
      for (const FairshareResults& r : ComputeAll(tree, mode)) {
        EXPECT_GE(r.assocs[3].job_factor, r.assocs[2].job_factor) << Name(mode);
      }
    }
  }
}

TEST(Precision, LargestFiniteLongDoubleUsageInEveryMode) {
  // Consistent sums: the root holds LDBL_MAX, split between two subtrees.
  ExpectSaneInEveryMode(TwoAccountTree(kLdMax / 2, kLdMax / 2), "LDBL_MAX/2 each");
  // One association holds everything.
  ExpectSaneInEveryMode(TwoAccountTree(kLdMax, 0), "LDBL_MAX in one user");
  // Every association at LDBL_MAX (sums capped, not consistent).
  std::vector<AssocNode> all = TwoAccountTree(kLdMax, kLdMax);
  for (AssocNode& n : all) n.usage_raw = kLdMax;
  ExpectSaneInEveryMode(all, "LDBL_MAX everywhere");
  // The largest double, as a tree file or sshare can carry it.
  ExpectSaneInEveryMode(TwoAccountTree(DBL_MAX, DBL_MAX), "DBL_MAX in two users");
}

TEST(Precision, HugeUsageInTheLedgerGivesFactorsInRange) {
  AssocTree tree = Build(TwoAccountTree(0, 0), FairshareMode::kPlannedUse);
  Params p = ModeParams(FairshareMode::kPlannedUse);
  for (long double amount : {1e17L, 1e20L, static_cast<long double>(DBL_MAX), kLdMax}) {
    PlannedUseLedger ledger;
    ledger.Roll(0, kDay, 0.5);
    ledger.ChargePath(tree, 2, amount);  // u1, a and root
    ledger.Charge(6, amount);            // u3 only
    for (int k = 1; k <= 3; ++k) {
      ledger.Roll(k * kDay, kDay, 0.5);
      ledger.ChargePath(tree, 2, amount);
    }
    const FairshareResults r = ComputeFairshare(tree, p, &ledger, 0);
    ExpectSane(tree, r, "ledger amount " + std::to_string(static_cast<double>(amount)));
    EXPECT_EQ(r.assocs[3].fs_factor, 1.0);  // u2 has charged nothing
    EXPECT_LT(r.assocs[2].job_factor, 1.0);  // u1 far above plan
    EXPECT_LE(r.assocs[3].job_factor, r.assocs[1].fs_factor);  // capped by account a
  }
}

// ---- shares ----------------------------------------------------------------

TEST(Precision, ZeroAndEnormousSharesInEveryMode) {
  std::vector<AssocNode> nodes = {
      Acct(1, 0, "root", 1, 3e18L),
      Acct(2, 1, "zero", 0, 1e18L),          User(3, 2, "zero", "z1", 0, 1e18L),
      Acct(4, 1, "huge", kMaxShares, 1e18L), User(5, 4, "huge", "h1", kMaxShares, 1e18L),
      User(6, 4, "huge", "h0", 0, 0),
      Acct(7, 1, "one", 1, 1e18L),           User(8, 7, "one", "o1", 1, 1e18L),
      User(9, 7, "one", "o2", kMaxShares, 0)};
  ExpectSaneInEveryMode(nodes, "zero and enormous shares");
  // Also with no usage at all, and with the largest usage.
  for (AssocNode& n : nodes) n.usage_raw = 0;
  ExpectSaneInEveryMode(nodes, "zero and enormous shares, no usage");
  for (AssocNode& n : nodes) n.usage_raw = kLdMax;
  ExpectSaneInEveryMode(nodes, "zero and enormous shares, LDBL_MAX usage");
}

TEST(Precision, OnlyZeroSharesInEveryMode) {
  std::vector<AssocNode> nodes = {Acct(1, 0, "root", 1, 10), Acct(2, 1, "a", 0, 10),
                                  User(3, 2, "a", "u", 0, 10), User(4, 2, "a", "v", 0, 0)};
  ExpectSaneInEveryMode(nodes, "zero shares only");
}

// Two siblings with the largest shares: level shares 2 * 0x7ffffffe still
// fit 32 bits, each sibling's share is exactly one half.
TEST(Precision, TwoSiblingsWithTheLargestSharesSplitEvenly) {
  std::vector<AssocNode> nodes = {Acct(1, 0, "root", 1, 0), Acct(2, 1, "a", kMaxShares, 0),
                                  Acct(3, 1, "b", kMaxShares, 0)};
  for (FairshareMode mode : kAllModes) {
    AssocTree tree = Build(nodes, mode);
    EXPECT_DOUBLE_EQ(tree.links(1).shares_norm, 0.5) << Name(mode);
    EXPECT_DOUBLE_EQ(tree.links(2).shares_norm, 0.5) << Name(mode);
  }
}

// Three siblings with the largest shares: the sum of their shares is
// 3 * 0x7ffffffe > 2^32 - 1. slurmctld's association manager sums level
// shares in 32 bits and wraps (assoc_mgr.c _get_children_level_shares); the
// core reproduces it so that the tool and the simulator see the controller's
// numbers (doc/differences.md lists it among the behaviours kept).
TEST(Precision, LevelSharesWrapAt32BitsAsInSlurm) {
  std::vector<AssocNode> nodes = {Acct(1, 0, "root", 1, 0), Acct(2, 1, "a", kMaxShares, 0),
                                  Acct(3, 1, "b", kMaxShares, 0), Acct(4, 1, "c", kMaxShares, 0)};
  const uint32_t wrapped = static_cast<uint32_t>(3ull * kMaxShares);  // 0x7ffffffa
  for (FairshareMode mode : kAllModes) {
    AssocTree tree = Build(nodes, mode);
    EXPECT_EQ(tree.links(1).level_shares, wrapped) << Name(mode);
    EXPECT_DOUBLE_EQ(tree.links(1).shares_norm, static_cast<double>(kMaxShares) / wrapped)
        << Name(mode);
  }
  // Shares 0x7ffffffe, 0x7ffffffe and 4 wrap to exactly 0: Slurm then gives
  // every sibling a normalised share of 0.
  std::vector<AssocNode> wrap_to_zero = {Acct(1, 0, "root", 1, 0), Acct(2, 1, "a", kMaxShares, 0),
                                         Acct(3, 1, "b", kMaxShares, 0), Acct(4, 1, "c", 4, 0)};
  for (FairshareMode mode : kAllModes) {
    AssocTree tree = Build(wrap_to_zero, mode);
    EXPECT_EQ(tree.links(1).level_shares, 0u) << Name(mode);
    EXPECT_EQ(tree.links(1).shares_norm, 0.0) << Name(mode);
  }
}

// Even when the level sum wraps, the factors stay numbers in [0, 1].
TEST(Precision, WrappingLevelSharesStillGiveSaneFactors) {
  std::vector<AssocNode> nodes = {
      Acct(1, 0, "root", 1, 6e18L),
      Acct(2, 1, "a", kMaxShares, 1e18L), User(3, 2, "a", "ua", 1, 1e18L),
      Acct(4, 1, "b", kMaxShares, 2e18L), User(5, 4, "b", "ub", 1, 2e18L),
      Acct(6, 1, "c", kMaxShares, 3e18L), User(7, 6, "c", "uc", 1, 3e18L)};
  ExpectSaneInEveryMode(nodes, "three siblings of 0x7ffffffe shares");
  nodes[5].shares_raw = 4;  // the level sum wraps to exactly 0
  ExpectSaneInEveryMode(nodes, "level sum wrapping to 0");
}

// ---- deep trees ------------------------------------------------------------

// A chain of `depth` accounts below the root; at each level a user sibling
// of the next account. Shares and usage vary by level.
std::vector<AssocNode> DeepTree(int depth, uint32_t chain_shares, uint32_t user_shares,
                                long double leaf_usage) {
  std::vector<AssocNode> nodes;
  nodes.push_back(Acct(1, 0, "root", 1, 0));
  uint32_t parent = 1, next = 2;
  std::vector<uint32_t> chain;
  for (int level = 1; level <= depth; ++level) {
    const std::string acct = "l" + std::to_string(level);
    const uint32_t id = next++;
    nodes.push_back(Acct(id, parent, acct, chain_shares, 0));
    chain.push_back(id);
    nodes.push_back(User(next++, parent, acct, "u" + std::to_string(level), user_shares,
                         leaf_usage / (level + 1)));
    parent = id;
  }
  nodes.push_back(User(next++, parent, "leaf", "leaf", 1, leaf_usage));
  nodes.push_back(User(next++, parent, "leaf", "idle", 1, 0));
  // Subtree sums, bottom-up (ids increase with depth).
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (it->parent_id == 0) continue;
    for (AssocNode& p : nodes) {
      if (p.id == it->parent_id) p.usage_raw += it->usage_raw;
    }
  }
  return nodes;
}

TEST(Precision, TwentyLevelTreesInEveryMode) {
  struct Case {
    uint32_t chain, user;
    long double usage;
  };
  const Case cases[] = {{1, 1, 1e6L},       {1, kMaxShares, 1e20L}, {kMaxShares, 1, 1e20L},
                        {1, kMaxShares, 0}, {3, 0, 4.9e-324L},      {1, 1, kLdMax / 64}};
  for (const Case& c : cases) {
    std::vector<AssocNode> nodes = DeepTree(20, c.chain, c.user, c.usage);
    const std::string what = "20 levels, chain shares " + std::to_string(c.chain) +
                             ", user shares " + std::to_string(c.user) + ", usage " +
                             std::to_string(static_cast<double>(c.usage));
    ExpectSaneInEveryMode(nodes, what);
    // Ranged: every slice lies inside its parent's slice.
    AssocTree tree = Build(nodes, FairshareMode::kRanged);
    FairshareResults r = ComputeFairshare(tree, ModeParams(FairshareMode::kRanged), nullptr, 0);
    for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
      const int32_t p = tree.links(i).parent;
      if (p < 0) continue;
      EXPECT_GE(r.assocs[i].slice_lo, r.assocs[p].slice_lo) << what << " " << i;
      EXPECT_LE(r.assocs[i].slice_hi, r.assocs[p].slice_hi) << what << " " << i;
    }
    // The leaf's idle sibling never ranks below the busy leaf.
    const int32_t leaf = static_cast<int32_t>(tree.size()) - 2;
    for (FairshareMode mode : kAllModes) {
      AssocTree t = Build(nodes, mode);
      for (const FairshareResults& res : ComputeAll(t, mode)) {
        EXPECT_GE(res.assocs[leaf + 1].job_factor, res.assocs[leaf].job_factor)
            << what << " " << Name(mode);
      }
    }
  }
}

// ---- tiny usage ------------------------------------------------------------

TEST(Precision, DenormalAndTinyUsageInEveryMode) {
  const long double tiny[] = {std::numeric_limits<long double>::denorm_min(),
                              std::numeric_limits<long double>::min(),
                              static_cast<long double>(std::numeric_limits<double>::denorm_min()),
                              static_cast<long double>(DBL_MIN), 1e-300L};
  for (long double t : tiny) {
    const std::string what = "usage " + std::to_string(static_cast<double>(t)) + " (" +
                             std::to_string(std::log2(static_cast<double>(t))) + ")";
    ExpectSaneInEveryMode(TwoAccountTree(t, t), what);
    ExpectSaneInEveryMode(TwoAccountTree(t, 0), what + ", one user");
    // Tiny usage next to huge usage.
    ExpectSaneInEveryMode(TwoAccountTree(t, 1e20L), what + " next to 1e20");
    ExpectSaneInEveryMode(TwoAccountTree(kLdMax / 2, t), what + " next to LDBL_MAX/2");
  }
}

TEST(Precision, TinyUsageInTheLedger) {
  AssocTree tree = Build(TwoAccountTree(0, 0), FairshareMode::kPlannedUse);
  Params p = ModeParams(FairshareMode::kPlannedUse);
  PlannedUseLedger ledger;
  ledger.Roll(0, kDay, 0.5);
  ledger.ChargePath(tree, 2, std::numeric_limits<long double>::denorm_min());
  ledger.Roll(kDay, kDay, 0.5);  // D * denormal underflows towards 0
  ledger.Roll(2 * kDay, kDay, 0.5);
  const FairshareResults r = ComputeFairshare(tree, p, &ledger, 0);
  ExpectSane(tree, r, "denormal ledger");
  EXPECT_EQ(r.assocs[2].job_factor, 1.0);  // a denormal is far below plan
  for (const auto& [id, e] : ledger.entries) {
    EXPECT_TRUE(std::isfinite(e.history) && e.history >= 0) << id;
  }
}

// ---- decay -----------------------------------------------------------------

TEST(Precision, DecayOverHugeTimesFloorsAtDblMin) {
  const int64_t half_lives[] = {1, 60, 3600, 7 * kDay, 365 * kDay};
  const int64_t elapsed[] = {int64_t{1} << 31, int64_t{1} << 40, int64_t{1} << 62,
                             std::numeric_limits<int64_t>::max()};
  for (int64_t h : half_lives) {
    const double f = DecayFactorPerSecond(h);
    double previous = 1.0;
    for (int64_t e : elapsed) {
      const double d = DecayOver(f, e);
      SCOPED_TRACE("half-life " + std::to_string(h) + " s, elapsed " + std::to_string(e) + " s");
      EXPECT_TRUE(std::isfinite(d));
      EXPECT_GE(d, DBL_MIN);  // never exactly 0: usage never vanishes
      EXPECT_LE(d, previous);  // longer never decays less
      previous = d;
      // e / h >= 2^31 / 3.2e7 > 60 half-lives is below 2^-60, and from 2^40
      // seconds on below DBL_MIN (2^-1022): exactly the floor.
      if (e >= (int64_t{1} << 40)) {
        EXPECT_EQ(d, DBL_MIN);
      }
      // Decayed usage stays finite and non-negative for any usage.
      const long double decayed = kLdMax * d;
      EXPECT_TRUE(std::isfinite(decayed));
      EXPECT_GT(decayed, 0);
    }
  }
  // No decay configured, and a clock that went backwards: no change.
  EXPECT_EQ(DecayOver(DecayFactorPerSecond(0), std::numeric_limits<int64_t>::max()), 1.0);
  EXPECT_EQ(DecayOver(DecayFactorPerSecond(60), -1), 1.0);
  EXPECT_EQ(DecayOver(DecayFactorPerSecond(60), std::numeric_limits<int64_t>::min()), 1.0);
  // An enormous half-life: the factor rounds to 1 and nothing decays.
  const double slow = DecayOver(DecayFactorPerSecond(std::numeric_limits<int64_t>::max()),
                                std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::isfinite(slow));
  EXPECT_LE(slow, 1.0);
  EXPECT_GE(slow, DBL_MIN);
}

TEST(Precision, PlannedUseRollOverHugeGapsStaysFinite) {
  for (double D : {0.0, 1e-300, 0.5, 0.999999, 1.0}) {
    PlannedUseLedger ledger;
    ledger.Roll(0, kDay, D);
    ledger.Charge(1, 1e20L);
    ledger.Charge(2, kLdMax);
    // 10^6 years later, then the end of time.
    ledger.Roll(int64_t{365} * kDay * 1000000, kDay, D);
    ledger.Charge(1, 1.0L);
    ledger.Roll(std::numeric_limits<int64_t>::max(), kDay, D);
    for (const auto& [id, e] : ledger.entries) {
      SCOPED_TRACE("D " + std::to_string(D) + " id " + std::to_string(id));
      EXPECT_TRUE(std::isfinite(e.history));
      EXPECT_GE(e.history, 0);
      EXPECT_EQ(e.open, 0);
      if (D < 1) {
        EXPECT_LE(e.history, kLdMax);
      }
    }
  }
  EXPECT_EQ(PlannedUsePerIntervalDecay(std::numeric_limits<int64_t>::max(), 1), 0.0);
  EXPECT_EQ(PlannedUsePerIntervalDecay(1, std::numeric_limits<int64_t>::max()), 1.0);
}

// The ledger's header promises that Charge keeps it serialisable: a charge
// above DBL_MAX (finite as a long double) saturates at DBL_MAX instead of
// being written as +inf and rejected at the next start.
TEST(Precision, LedgerAboveDblMaxStaysSerialisable) {
  for (long double amount : {static_cast<long double>(DBL_MAX) * 2, kLdMax}) {
    PlannedUseLedger ledger;
    ledger.Roll(0, kDay, 0.5);
    ledger.Charge(1, amount);
    PlannedUseLedger back;
    std::string error;
    EXPECT_TRUE(ParseLedger(SerializeLedger(ledger), &back, &error)) << error;
  }
  // Two charges of DBL_MAX: each is a valid double, their sum is not.
  PlannedUseLedger ledger;
  ledger.Charge(1, DBL_MAX);
  ledger.Charge(1, DBL_MAX);
  PlannedUseLedger back;
  std::string error;
  EXPECT_TRUE(ParseLedger(SerializeLedger(ledger), &back, &error)) << error;
}

// Up to DBL_MAX the ledger round-trips exactly, long double digits included.
TEST(Precision, LedgerRoundTripsExtremeValuesUpToDblMax) {
  PlannedUseLedger ledger;
  ledger.interval_index = std::numeric_limits<int64_t>::max();
  ledger.entries[0] = {static_cast<long double>(DBL_MAX), 0};
  ledger.entries[1] = {1e20L + 1.0L, 1e17L / 3};  // needs the low double
  ledger.entries[2] = {static_cast<long double>(DBL_MIN) * 3, DBL_MIN};
  ledger.entries[0xffffffffu] = {static_cast<long double>(DBL_MAX) - 1e290L,
                                static_cast<long double>(std::numeric_limits<double>::denorm_min())};
  PlannedUseLedger back;
  std::string error;
  ASSERT_TRUE(ParseLedger(SerializeLedger(ledger), &back, &error)) << error;
  EXPECT_EQ(back.interval_index, ledger.interval_index);
  ASSERT_EQ(back.entries.size(), ledger.entries.size());
  for (const auto& [id, e] : ledger.entries) {
    EXPECT_EQ(back.entries[id].history, e.history) << id;
    EXPECT_EQ(back.entries[id].open, e.open) << id;
  }
}

// Long doubles below double's range (a history decayed for thousands of
// intervals) cannot be written exactly as two doubles; they come back within
// one double denormal (4.9e-324), still finite and non-negative.
TEST(Precision, LedgerValuesBelowDoubleRangeComeBackWithinADenormal) {
  PlannedUseLedger ledger;
  ledger.interval_index = 3;
  ledger.entries[1] = {std::numeric_limits<long double>::denorm_min(), 1e-4000L};
  ledger.entries[2] = {1e-310L / 3, static_cast<long double>(DBL_MIN) / 3};
  PlannedUseLedger back;
  std::string error;
  ASSERT_TRUE(ParseLedger(SerializeLedger(ledger), &back, &error)) << error;
  const long double tolerance = std::numeric_limits<double>::denorm_min();
  for (const auto& [id, e] : ledger.entries) {
    EXPECT_LE(std::fabs(back.entries[id].history - e.history), tolerance) << id;
    EXPECT_LE(std::fabs(back.entries[id].open - e.open), tolerance) << id;
    EXPECT_GE(back.entries[id].history, 0) << id;
    EXPECT_GE(back.entries[id].open, 0) << id;
  }
}

}  // namespace
}  // namespace fairway
