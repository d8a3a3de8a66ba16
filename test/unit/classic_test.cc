// SPDX-License-Identifier: GPL-2.0-or-later
// Classic and depth-oblivious fairshare against the documented worked example.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "classic.h"
#include "test_support.h"

namespace fairway {
namespace {

using test::FindAssoc;
using test::LoadTree;

Params ClassicParams() {
  Params p;
  p.flags &= ~kFlagFairTree;
  return p;
}

// fairshare-modes.md "Worked example": the five user factors to 6 decimals.
TEST(Classic, DocumentedWorkedExampleFactors) {
  AssocTree tree = LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  FairshareResults r = ComputeFairshare(tree, ClassicParams(), nullptr, 0);
  ASSERT_EQ(r.mode, FairshareMode::kClassic);
  struct Expected { const char* acct; const char* user; double factor; };
  for (const Expected& e : {Expected{"b", "user1", 0.408479}, Expected{"c", "user2", 0.022097},
                            Expected{"c", "user3", 0.125000}, Expected{"e", "user4", 0.500000},
                            Expected{"f", "user5", 0.749154}}) {
    int32_t i = FindAssoc(tree, e.acct, e.user);
    ASSERT_GE(i, 0) << e.user;
    EXPECT_NEAR(r.assocs[i].job_factor, e.factor, 5e-7) << e.user;
  }
}

TEST(Classic, WorkedExampleIntermediateValues) {
  AssocTree tree = LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  FairshareResults r = ComputeFairshare(tree, ClassicParams(), nullptr, 0);
  int32_t a = FindAssoc(tree, "a", "");
  int32_t c = FindAssoc(tree, "c", "");
  int32_t user2 = FindAssoc(tree, "c", "user2");
  // First-tier accounts: UE = UA.
  EXPECT_NEAR(static_cast<double>(r.assocs[a].usage_efctv), 0.45, 1e-12);
  // UE(C) = 0.25 + (0.45 - 0.25) * 10/40.
  EXPECT_NEAR(static_cast<double>(r.assocs[c].usage_efctv), 0.30, 1e-12);
  // UE(user2) = 0.25 + (0.30 - 0.25) * 1/2; S = 0.4 * 10/40 * 1/2.
  EXPECT_NEAR(static_cast<double>(r.assocs[user2].usage_efctv), 0.275, 1e-12);
  EXPECT_NEAR(tree.links(user2).shares_norm, 0.05, 1e-15);
  EXPECT_NEAR(static_cast<double>(r.assocs[user2].usage_norm), 0.25, 1e-12);
  // Classic leaves Slurm's fs_factor field alone.
  EXPECT_EQ(r.assocs[user2].fs_factor, 0.0);
}

TEST(Classic, DampeningFactorDividesTheExponent) {
  AssocTree tree = LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  Params p = ClassicParams();
  p.damp_factor = 2;
  FairshareResults r = ComputeFairshare(tree, p, nullptr, 0);
  int32_t user3 = FindAssoc(tree, "c", "user3");
  // 2^(-(0.15/0.05)/2) = 2^-1.5
  EXPECT_NEAR(r.assocs[user3].job_factor, std::pow(2.0, -1.5), 1e-12);
}

TEST(Classic, CalcFsFactorGuards) {
  EXPECT_EQ(CalcFsFactor(kNoValLd, 0.5L, 1), 0.0);
  EXPECT_EQ(CalcFsFactor(0.25L, 0.0L, 1), 0.0);
  EXPECT_EQ(CalcFsFactor(0.25L, -1.0L, 1), 0.0);
  EXPECT_EQ(CalcFsFactor(0.25L, 0.5L, 0), 0.0);  // no NaN for a zero damp factor
  EXPECT_NEAR(CalcFsFactor(0.25L, 0.5L, 1), 0.707107, 1e-6);  // 2^(-0.25/0.5)
  EXPECT_EQ(CalcFsFactor(0.0L, 0.5L, 1), 1.0);
}

TEST(Classic, ParentUserTakesItsFsParentsFactor) {
  AssocTree tree = LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  FairshareResults r = ComputeFairshare(tree, ClassicParams(), nullptr, 0);
  int32_t root_user = FindAssoc(tree, "root", "root");
  // root's user is Fairshare=parent: its fs parent is the root (efctv 1,
  // shares_norm 1), so its jobs get 2^-1.
  EXPECT_NEAR(r.assocs[root_user].job_factor, 0.5, 1e-12);
}

TEST(Classic, ZeroSharesGiveZeroFactor) {
  std::vector<AssocNode> nodes = {
      {1, 0, "root", "", "", 1, 100}, {2, 1, "a", "", "", 1, 100},
      {3, 2, "a", "u1", "", 0, 50},   {4, 2, "a", "u2", "", 1, 50},
  };
  AssocTree tree;
  std::string error;
  ASSERT_TRUE(tree.Build(nodes, false, &error)) << error;
  FairshareResults r = ComputeFairshare(tree, ClassicParams(), nullptr, 0);
  EXPECT_EQ(r.assocs[2].job_factor, 0.0);
  EXPECT_GT(r.assocs[3].job_factor, 0.0);
}

TEST(Classic, NoUsageAnywhereGivesFullFactor) {
  std::vector<AssocNode> nodes = {
      {1, 0, "root", "", "", 1, 0}, {2, 1, "a", "", "", 1, 0}, {3, 2, "a", "u1", "", 1, 0}};
  AssocTree tree;
  ASSERT_TRUE(tree.Build(nodes, false, nullptr));
  FairshareResults r = ComputeFairshare(tree, ClassicParams(), nullptr, 0);
  EXPECT_EQ(r.assocs[2].usage_norm, 0.0L);
  EXPECT_EQ(r.assocs[2].job_factor, 1.0);
}

// Depth-oblivious: when usage sits where the shares say, every level has
// R = 1 and each user gets 2^-1, however deep it is.
TEST(DepthOblivious, ProportionalUsageGivesOneHalfAtEveryDepth) {
  std::vector<AssocNode> nodes = {
      {1, 0, "root", "", "", 1, 100}, {2, 1, "a", "", "", 1, 50},
      {3, 2, "a", "u1", "", 1, 25},   {4, 2, "a", "u2", "", 1, 25},
      {5, 1, "b", "", "", 1, 50},     {6, 5, "bb", "", "", 1, 50},
      {7, 6, "bb", "u3", "", 1, 50},
  };
  AssocTree tree;
  ASSERT_TRUE(tree.Build(nodes, false, nullptr));
  Params p;
  p.flags = kFlagDepthOblivious;
  FairshareResults r = ComputeFairshare(tree, p, nullptr, 0);
  ASSERT_EQ(r.mode, FairshareMode::kDepthOblivious);
  for (int32_t i : {2, 3, 6}) EXPECT_NEAR(r.assocs[i].job_factor, 0.5, 1e-12) << i;
}

TEST(DepthOblivious, OverservedUserRanksBelowSibling) {
  std::vector<AssocNode> nodes = {
      {1, 0, "root", "", "", 1, 100}, {2, 1, "a", "", "", 1, 60},
      {3, 2, "a", "u1", "", 1, 50},   {4, 2, "a", "u2", "", 1, 10},
      {5, 1, "b", "", "", 1, 40},     {6, 5, "b", "u3", "", 1, 40},
  };
  AssocTree tree;
  ASSERT_TRUE(tree.Build(nodes, false, nullptr));
  Params p;
  p.flags = kFlagDepthOblivious;
  FairshareResults r = ComputeFairshare(tree, p, nullptr, 0);
  EXPECT_LT(r.assocs[2].job_factor, r.assocs[3].job_factor);
  EXPECT_GT(r.assocs[5].job_factor, r.assocs[2].job_factor);
  for (const AssocFairshare& a : r.assocs) {
    EXPECT_FALSE(std::isnan(a.job_factor));
    EXPECT_GE(a.job_factor, 0.0);
    EXPECT_LE(a.job_factor, 1.0);
  }
}

// _depth_oblivious_set_usage_efctv as multifactor 22.05 writes it: two
// logarithms and a pow per association. ComputeClassic takes the
// parent's terms once per parent and skips the child's logarithm and
// pow(x, 1); the results must still be the same long doubles. *damped
// tells whether the exponent was damped (k < 1 branch) rather than 1.
long double MultifactorDepthOblivious(const DepthObliviousInputs& in, bool* damped) {
  *damped = false;
  if (!(in.shares_norm && in.parent_shares_norm && in.parent_efctv && in.usage_norm)) {
    return in.usage_norm;
  }
  const long double f = 5.0;
  long double ratio_p = in.parent_efctv / in.parent_shares_norm;
  long double ratio_s = in.siblings_usage_norm / in.parent_shares_norm;
  long double ratio_l = (in.usage_norm / in.shares_norm) / ratio_s;
  long double k;
  if (!ratio_p || !ratio_l || logl(ratio_p) * logl(ratio_l) >= 0) {
    k = 1;
  } else {
    k = 1 / (1 + powl(f * logl(ratio_p), 2));
    *damped = true;
  }
  return ratio_p * std::pow(static_cast<double>(ratio_l), static_cast<double>(k)) * in.shares_norm;
}

// Random trees (accounts up to five deep, users with and without usage,
// some Fairshare=parent): every effective usage equals the one the
// formula above gives from the same inputs, bit for bit.
TEST(DepthOblivious, MatchesMultifactorsFormulaBitForBitOnRandomTrees) {
  std::mt19937_64 rng(20261123);
  size_t computed = 0, damped = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<AssocNode> nodes = {{1, 0, "root", "", "", 1, 0}};
    std::vector<uint32_t> accounts = {1};
    std::vector<int> depth_of = {0, 0};  // by id
    for (uint32_t id = 2; id < 400; ++id) {
      const uint32_t parent = accounts[rng() % accounts.size()];
      const bool user = depth_of[parent] >= 5 || rng() % 3 != 0;
      AssocNode n;
      n.id = id;
      n.parent_id = parent;
      n.acct = user ? nodes[parent - 1].acct : "a" + std::to_string(id);
      if (user) n.user = "u" + std::to_string(id);
      n.shares_raw = rng() % 20 == 0 ? kSharesUseParent : static_cast<uint32_t>(1 + rng() % 100);
      if (user && rng() % 4 != 0) n.usage_raw = static_cast<long double>(rng() % 1000000) / 7;
      nodes.push_back(n);
      depth_of.push_back(depth_of[parent] + 1);
      if (!user) accounts.push_back(id);
    }
    // usage_raw holds the subtree's usage: add each user's to its accounts.
    for (size_t i = nodes.size(); i-- > 1;) {
      if (nodes[i].is_user()) {
        for (uint32_t a = nodes[i].parent_id; a; a = nodes[a - 1].parent_id) {
          nodes[a - 1].usage_raw += nodes[i].usage_raw;
        }
      }
    }
    AssocTree tree;
    ASSERT_TRUE(tree.Build(nodes, false, nullptr));
    Params p;
    p.flags = kFlagDepthOblivious;
    FairshareResults r = ComputeFairshare(tree, p, nullptr, 0);
    for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
      const int32_t parent = tree.links(i).fs_parent;
      if (i == tree.root() || parent < 0 || parent == tree.root() || tree.node(i).uses_parent()) {
        continue;
      }
      DepthObliviousInputs in;
      in.shares_norm = tree.links(i).shares_norm;
      in.parent_shares_norm = tree.links(parent).shares_norm;
      in.parent_efctv = r.assocs[parent].usage_efctv;
      in.usage_norm = r.assocs[i].usage_norm;
      for (int32_t s : tree.fs_children(parent)) {
        if (!tree.node(s).uses_parent()) in.siblings_usage_norm += r.assocs[s].usage_norm;
      }
      bool was_damped = false;
      const long double expected = MultifactorDepthOblivious(in, &was_damped);
      EXPECT_EQ(r.assocs[i].usage_efctv, expected) << "round " << round << " assoc " << i;
      EXPECT_EQ(DepthObliviousEffectiveUsage(in), expected) << "round " << round << " assoc " << i;
      if (!(in.shares_norm && in.parent_efctv && in.usage_norm)) continue;
      ++computed;
      if (was_damped) ++damped;
    }
  }
  // Both branches of the exponent were taken many times.
  EXPECT_GT(computed, 3000u);
  EXPECT_GT(damped, 500u);
  EXPECT_GT(computed - damped, 500u);
}

// priority_p_set_assoc_usage's values for one association.
TEST(ComputeOneAssocUsage, EachBranch) {
  OneAssocUsageInputs in;
  in.usage_raw = 30;
  in.root_usage_raw = 120;
  in.parent_is_root = true;
  OneAssocUsage out = ComputeOneAssocUsage(in, false);
  EXPECT_EQ(out.usage_norm, 0.25L);
  EXPECT_EQ(out.usage_efctv, 0.25L);  // child of root: its own usage_norm

  in.parent_is_root = false;
  in.uses_parent = true;
  in.parent_efctv = 0.6L;
  EXPECT_EQ(ComputeOneAssocUsage(in, false).usage_efctv, 0.6L);  // Fairshare=parent

  in.uses_parent = false;
  in.shares_raw = 1;
  in.level_shares = 4;
  EXPECT_EQ(ComputeOneAssocUsage(in, false).usage_efctv,
            ClassicEffectiveUsage(0.25L, 0.6L, 1, 4));
  EXPECT_EQ(ComputeOneAssocUsage(in, false).usage_efctv, 0.25L + (0.6L - 0.25L) / 4);

  // Depth-oblivious: the association's own entry among its siblings is
  // replaced by the usage_norm just computed (the stored one is stale).
  in.shares_norm = 0.2;
  in.parent_shares_norm = 0.5;
  const long double siblings[] = {0.1L, 0.9L /* stale own value */, 0.05L};
  in.sibling_usage_norm = siblings;
  in.sibling_count = 3;
  in.self_index = 1;
  DepthObliviousInputs d;
  d.shares_norm = 0.2;
  d.parent_shares_norm = 0.5;
  d.parent_efctv = 0.6L;
  d.usage_norm = 0.25L;
  d.siblings_usage_norm = 0.1L + 0.25L + 0.05L;
  EXPECT_EQ(ComputeOneAssocUsage(in, true).usage_efctv, DepthObliviousEffectiveUsage(d));
  d.siblings_usage_norm = 0.1L + 0.9L + 0.05L;
  EXPECT_NE(ComputeOneAssocUsage(in, true).usage_efctv, DepthObliviousEffectiveUsage(d));
}

}  // namespace
}  // namespace fairway
