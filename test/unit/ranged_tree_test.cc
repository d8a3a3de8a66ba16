// SPDX-License-Identifier: GPL-2.0-or-later
// Ranged tree (fairshare-modes.md, "Ranged tree"): local factors, slices,
// ties, zero shares, Fairshare=parent, and the slice invariant on thousands
// of random trees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ranged_tree.h"
#include "test_support.h"

namespace fairway {
namespace {

using test::FindAssoc;
using test::LoadTree;

Params RangedParams(uint16_t damp = 1) {
  Params p;
  p.mode_override = FairshareMode::kRanged;
  p.damp_factor = damp;
  return p;
}

// Builds the tree with fair-tree normalisation (as the mode requires); the
// usage given for accounts is their own, subtree sums are added here.
FairshareResults BuildAndCompute(std::vector<AssocNode> nodes, AssocTree* tree,
                                 uint16_t damp = 1) {
  for (size_t k = nodes.size(); k-- > 0;) {
    for (size_t j = 0; j < nodes.size(); ++j) {
      if (nodes[j].id == nodes[k].parent_id && j != k) nodes[j].usage_raw += nodes[k].usage_raw;
    }
  }
  std::string error;
  EXPECT_TRUE(tree->Build(std::move(nodes), true, &error)) << error;
  return ComputeFairshare(*tree, RangedParams(damp), nullptr, 0);
}

double F(const FairshareResults& r, int32_t i) { return r.assocs[i].fs_factor; }

TEST(RangedTree, LocalFactor) {
  EXPECT_EQ(RangedLocalFactor(0.5L, 0.0, 1), 0.0);   // zero shares
  EXPECT_EQ(RangedLocalFactor(0.0L, 0.0, 1), 0.0);   // zero shares beat zero usage
  EXPECT_EQ(RangedLocalFactor(0.0L, 0.25, 1), 1.0);  // no usage
  EXPECT_DOUBLE_EQ(RangedLocalFactor(0.5L, 0.5, 1), 0.5);
  EXPECT_DOUBLE_EQ(RangedLocalFactor(0.5L, 0.25, 1), 0.25);
  EXPECT_DOUBLE_EQ(RangedLocalFactor(0.5L, 0.25, 2), 0.5);  // d halves the exponent
  EXPECT_DOUBLE_EQ(RangedLocalFactor(0.5L, 0.25, 0), 0.25); // d = 0 treated as 1
  EXPECT_EQ(RangedLocalFactor(1.0L, 1e-300, 1), 0.0);       // underflow, not NaN
  EXPECT_EQ(RangedLocalFactor(std::nanl(""), 0.5, 1), 0.0);
  EXPECT_EQ(RangedLocalFactor(0.5L, std::nan(""), 1), 0.0);
}

// The specification's example: f = 0.3, 0.5, 0.8 give slices [0, 0.3],
// [0.3, 0.5], [0.5, 0.8], and the second account's users stay in [0.3, 0.5].
TEST(RangedTree, SpecThreeAccountExample) {
  AssocTree tree = LoadTree("ranged_three_accounts.csv", FairshareMode::kRanged);
  FairshareResults r = ComputeFairshare(tree, RangedParams(), nullptr, 0);
  ASSERT_EQ(r.mode, FairshareMode::kRanged);
  const int32_t a0 = FindAssoc(tree, "a0", ""), a1 = FindAssoc(tree, "a1", ""),
                a2 = FindAssoc(tree, "a2", ""), a3 = FindAssoc(tree, "a3", "");
  EXPECT_NEAR(static_cast<double>(r.assocs[a1].level_fs), 0.3, 1e-12);
  EXPECT_NEAR(static_cast<double>(r.assocs[a2].level_fs), 0.5, 1e-12);
  EXPECT_NEAR(static_cast<double>(r.assocs[a3].level_fs), 0.8, 1e-12);
  EXPECT_EQ(r.assocs[a0].level_fs, 0.0L);
  EXPECT_NEAR(static_cast<double>(r.assocs[a2].usage_efctv), 0.1, 1e-15);

  EXPECT_EQ(r.assocs[a0].slice_lo, 0.0);
  EXPECT_EQ(r.assocs[a0].slice_hi, 0.0);
  EXPECT_EQ(r.assocs[a1].slice_lo, 0.0);
  EXPECT_NEAR(r.assocs[a1].slice_hi, 0.3, 1e-12);
  EXPECT_NEAR(r.assocs[a2].slice_lo, 0.3, 1e-12);
  EXPECT_NEAR(r.assocs[a2].slice_hi, 0.5, 1e-12);
  EXPECT_NEAR(r.assocs[a3].slice_lo, 0.5, 1e-12);
  EXPECT_NEAR(r.assocs[a3].slice_hi, 0.8, 1e-12);
  EXPECT_EQ(r.assocs[a2].slice_lo, r.assocs[a1].fs_factor);  // exactly F of the lower sibling
  EXPECT_EQ(r.assocs[a3].slice_lo, r.assocs[a2].fs_factor);
  EXPECT_EQ(F(r, a2), r.assocs[a2].job_factor);

  // Users of a2: F = 0.5 - (1 - f) * 0.2.
  const int32_t u1 = FindAssoc(tree, "a2", "u1"), u2 = FindAssoc(tree, "a2", "u2"),
                u3 = FindAssoc(tree, "a2", "u3");
  EXPECT_NEAR(F(r, u1), 0.5 - (1 - std::pow(2.0, -1.2)) * 0.2, 1e-12);
  EXPECT_NEAR(F(r, u2), 0.5 - (1 - std::pow(2.0, -0.8)) * 0.2, 1e-12);
  EXPECT_EQ(F(r, u3), r.assocs[a2].slice_lo);  // zero shares: bottom of the slice
  EXPECT_EQ(r.assocs[u1].slice_lo, F(r, u3));
  EXPECT_EQ(r.assocs[u2].slice_lo, F(r, u1));
  for (int32_t u : {u1, u2, u3}) {
    EXPECT_GE(F(r, u), r.assocs[a2].slice_lo);
    EXPECT_LE(F(r, u), r.assocs[a2].slice_hi);
  }
  // Lone users take their account's whole slice (U = 1, S = 1: f = 1/2).
  const int32_t v1 = FindAssoc(tree, "a1", "v1");
  EXPECT_NEAR(F(r, v1), 0.15, 1e-12);
  EXPECT_EQ(F(r, FindAssoc(tree, "a0", "z1")), 0.0);
  // Root.
  EXPECT_EQ(F(r, tree.root()), 1.0);
  EXPECT_EQ(r.assocs[tree.root()].slice_lo, 0.0);
  EXPECT_EQ(r.assocs[tree.root()].slice_hi, 1.0);
  EXPECT_EQ(r.assocs[tree.root()].usage_norm, kNoValLd);
  EXPECT_NEAR(static_cast<double>(r.assocs[u1].usage_norm), 0.06, 1e-15);
}

TEST(RangedTree, EqualFactorsTieWithTheSameLowerBound) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 0},
                                        {2, 1, "a", "", "", 1, 0},
                                        {3, 2, "a", "x", "", 1, 10},
                                        {4, 2, "a", "y", "", 1, 10},
                                        {5, 2, "a", "z", "", 1, 30},
                                        {6, 2, "a", "w", "", 1, 0}},
                                       &tree);
  // a alone under root: U = 1, S = 1, f = 1/2: slice [0, 0.5].
  EXPECT_DOUBLE_EQ(F(r, 1), 0.5);
  // x and y tie (U = 0.2, S = 0.25); z is lower, w (no usage) is top.
  EXPECT_EQ(F(r, 2), F(r, 3));
  EXPECT_EQ(r.assocs[2].slice_lo, r.assocs[3].slice_lo);
  EXPECT_EQ(r.assocs[2].slice_lo, F(r, 4));
  EXPECT_LT(F(r, 4), F(r, 2));
  EXPECT_EQ(F(r, 5), 0.5);  // f = 1: the top of the parent's slice
  EXPECT_EQ(r.assocs[5].slice_lo, F(r, 2));
  EXPECT_EQ(r.assocs[4].slice_lo, 0.0);
  EXPECT_NEAR(F(r, 2), 0.5 - (1 - std::pow(2.0, -0.8)) * 0.5, 1e-12);
}

TEST(RangedTree, ZeroSharesGetTheBottomOfTheirSliceAndSoDoTheirChildren) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 0},
                                        {2, 1, "a", "", "", 1, 0},
                                        {3, 2, "a", "x", "", 1, 10},
                                        {4, 2, "sub", "", "", 0, 0},
                                        {5, 4, "sub", "s1", "", 1, 0},
                                        {6, 4, "sub", "s2", "", 1, 5},
                                        {7, 2, "a", "y", "", 0, 0}},
                                       &tree);
  const double lo_a = r.assocs[1].slice_lo;
  EXPECT_EQ(r.assocs[3].level_fs, 0.0L);
  EXPECT_EQ(F(r, 3), lo_a);
  EXPECT_EQ(r.assocs[3].slice_hi, lo_a);
  EXPECT_EQ(F(r, 6), lo_a);  // zero-share user without usage
  EXPECT_EQ(F(r, 4), lo_a);  // children of a zero-share account
  EXPECT_EQ(F(r, 5), lo_a);
  EXPECT_GT(F(r, 2), lo_a);
}

TEST(RangedTree, ParentAssociationsTakeTheirFsParentsFactorAndDoNotCompete) {
  AssocTree tree = LoadTree("classic_doc_example.csv", FairshareMode::kRanged);
  FairshareResults r = ComputeFairshare(tree, RangedParams(), nullptr, 0);
  const int32_t root_user = FindAssoc(tree, "root", "root");
  const int32_t a = FindAssoc(tree, "a", ""), d = FindAssoc(tree, "d", "");
  // root's own user is "parent": F of root, and its 300 of usage is not in
  // the first level's usage sum (a 450, d 250).
  EXPECT_EQ(F(r, root_user), 1.0);
  EXPECT_EQ(r.assocs[root_user].slice_lo, 0.0);
  EXPECT_NEAR(static_cast<double>(r.assocs[a].usage_efctv), 450.0 / 700.0, 1e-15);
  EXPECT_NEAR(static_cast<double>(r.assocs[d].usage_efctv), 250.0 / 700.0, 1e-15);
  EXPECT_NEAR(static_cast<double>(r.assocs[a].level_fs), std::pow(2.0, -(450.0 / 700.0) / 0.4),
              1e-12);

  AssocTree t2;
  FairshareResults r2 = BuildAndCompute({{1, 0, "root", "", "", 1, 0},
                                         {2, 1, "a", "", "", 1, 0},
                                         {3, 2, "sub", "", "", kSharesUseParent, 0},
                                         {4, 3, "sub", "s1", "", 1, 60},
                                         {5, 2, "a", "pu", "", kSharesUseParent, 40},
                                         {6, 2, "a", "u", "", 1, 20},
                                         {7, 1, "b", "", "", 1, 10}},
                                        &t2);
  // sub and pu take a's F and slice; s1 and u compete under a (U over 80,
  // pu's 40 and sub's 60 are left out).
  for (int32_t i : {2, 4}) {
    EXPECT_EQ(F(r2, i), F(r2, 1)) << i;
    EXPECT_EQ(r2.assocs[i].slice_lo, r2.assocs[1].slice_lo) << i;
    EXPECT_EQ(r2.assocs[i].slice_hi, r2.assocs[1].slice_hi) << i;
    EXPECT_EQ(r2.assocs[i].job_factor, r2.assocs[1].job_factor) << i;
  }
  EXPECT_NEAR(static_cast<double>(r2.assocs[3].usage_efctv), 0.75, 1e-15);
  EXPECT_NEAR(static_cast<double>(r2.assocs[5].usage_efctv), 0.25, 1e-15);
  EXPECT_LE(F(r2, 3), F(r2, 1));
  EXPECT_GE(F(r2, 3), r2.assocs[1].slice_lo);
}

TEST(RangedTree, OrphansAreNotRanked) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 0},
                                        {2, 1, "a", "", "", 1, 0},
                                        {3, 2, "a", "x", "", 1, 10},
                                        {4, 99, "gone", "o", "", 1, 5}},
                                       &tree);
  EXPECT_EQ(F(r, 3), 0.0);
  EXPECT_EQ(r.assocs[3].job_factor, 0.0);
  EXPECT_EQ(F(r, 2), 0.25);  // root [0,1] -> a: f = 1/2 -> [0, 0.5] -> x: f = 1/2
}

TEST(RangedTree, NoUsageAnywhereGivesEveryoneTheTop) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 0},
                                        {2, 1, "a", "", "", 3, 0},
                                        {3, 2, "a", "x", "", 1, 0},
                                        {4, 1, "b", "", "", 1, 0},
                                        {5, 4, "b", "y", "", 1, 0}},
                                       &tree);
  for (int32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(F(r, i), 1.0) << i;
    EXPECT_EQ(r.assocs[i].slice_lo, 0.0) << i;
  }
}

// ---- the invariant on random trees ----------------------------------------

std::vector<AssocNode> RandomTree(std::mt19937* rng) {
  std::uniform_int_distribution<int> percent(0, 99);
  const int max_depth = 1 + static_cast<int>((*rng)() % 6);
  std::vector<AssocNode> nodes;
  std::vector<int> depth;
  nodes.push_back({1, 0, "root", "", "", 1, 0});
  depth.push_back(0);
  auto shares = [&]() -> uint32_t {
    int p = percent(*rng);
    if (p < 12) return 0;
    if (p < 24) return kSharesUseParent;
    if (p < 70) return 1 + static_cast<uint32_t>((*rng)() % 2);  // frequent ties
    return 1 + static_cast<uint32_t>((*rng)() % 1000);
  };
  auto usage = [&]() -> long double {
    int p = percent(*rng);
    if (p < 25) return 0;
    if (p < 60) return static_cast<long double>(1 + (*rng)() % 2) * 100;  // ties
    if (p < 65) return std::ldexp(1.0L, -static_cast<int>((*rng)() % 60));  // tiny
    return std::uniform_real_distribution<double>(0, 1e9)(*rng);
  };
  // Breadth-first growth; accounts get 1..5 children.
  for (size_t k = 0; k < nodes.size() && nodes.size() < 3000; ++k) {
    if (nodes[k].is_user()) continue;
    const int children = 1 + static_cast<int>((*rng)() % 5);
    for (int c = 0; c < children; ++c) {
      AssocNode n;
      n.id = static_cast<uint32_t>(nodes.size() + 1);
      n.parent_id = nodes[k].id;
      const bool account = depth[k] + 1 < max_depth && percent(*rng) < 40;
      n.acct = account ? "acct" + std::to_string(n.id) : nodes[k].acct;
      if (!account) n.user = "user" + std::to_string(n.id);
      n.shares_raw = shares();
      n.usage_raw = account ? 0 : usage();
      nodes.push_back(n);
      depth.push_back(depth[k] + 1);
    }
  }
  // Subtree sums (parents precede children).
  for (size_t k = nodes.size(); k-- > 1;) nodes[nodes[k].parent_id - 1].usage_raw += nodes[k].usage_raw;
  return nodes;
}

bool Finite(long double x) { return std::isfinite(x); }

void CheckInvariant(const AssocTree& tree, const FairshareResults& r, const std::string& what) {
  SCOPED_TRACE(what);
  const int32_t root = tree.root();
  ASSERT_EQ(r.assocs.size(), tree.size());
  EXPECT_EQ(r.assocs[root].fs_factor, 1.0);
  EXPECT_EQ(r.assocs[root].slice_lo, 0.0);
  EXPECT_EQ(r.assocs[root].slice_hi, 1.0);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    const AssocFairshare& a = r.assocs[i];
    ASSERT_TRUE(Finite(a.usage_efctv) && Finite(a.level_fs) && Finite(a.usage_norm) &&
                std::isfinite(a.fs_factor) && std::isfinite(a.job_factor) &&
                std::isfinite(a.slice_lo) && std::isfinite(a.slice_hi))
        << "non-finite value at " << i;
    ASSERT_EQ(a.fs_factor, a.job_factor) << i;
    ASSERT_EQ(a.slice_hi, a.fs_factor) << i;
    ASSERT_GE(a.fs_factor, 0.0) << i;
    ASSERT_LE(a.fs_factor, 1.0) << i;
    if (i == root) continue;
    const int32_t p = tree.links(i).fs_parent;
    ASSERT_GE(p, 0);
    const AssocFairshare& pa = r.assocs[p];
    // lo_p <= lo_a <= F(a) <= hi_p = F(p)
    ASSERT_EQ(pa.slice_hi, pa.fs_factor) << i;
    ASSERT_LE(pa.slice_lo, a.slice_lo) << i;
    ASSERT_LE(a.slice_lo, a.fs_factor) << i;
    ASSERT_LE(a.fs_factor, pa.slice_hi) << i;
    // ... and inside every ancestor's slice.
    for (int32_t anc = p; anc >= 0; anc = tree.links(anc).fs_parent) {
      ASSERT_GE(a.fs_factor, r.assocs[anc].slice_lo) << i << " in " << anc;
      ASSERT_LE(a.fs_factor, r.assocs[anc].slice_hi) << i << " in " << anc;
    }
    ASSERT_GE(a.level_fs, 0.0L);
    ASSERT_LE(a.level_fs, 1.0L);
    if (tree.node(i).uses_parent()) {
      ASSERT_EQ(a.fs_factor, pa.fs_factor) << i;
      ASSERT_EQ(a.slice_lo, pa.slice_lo) << i;
    } else {
      ASSERT_NEAR(a.fs_factor,
                  pa.slice_hi - (1 - static_cast<double>(a.level_fs)) * (pa.slice_hi - pa.slice_lo),
                  1e-15)
          << i;
      if (tree.node(i).shares_raw == 0) {
        ASSERT_EQ(a.level_fs, 0.0L) << i;
        ASSERT_EQ(a.fs_factor, a.slice_lo) << i;
        ASSERT_EQ(a.fs_factor, pa.slice_lo) << i;
      }
    }
  }
  // Among competing siblings: order, ties, lower bounds, U sums to 1.
  for (int32_t p = 0; p < static_cast<int32_t>(tree.size()); ++p) {
    std::vector<int32_t> sib;
    for (int32_t c : tree.fs_children(p)) {
      if (!tree.node(c).uses_parent()) sib.push_back(c);
    }
    long double usum = 0;
    for (int32_t c : sib) usum += r.assocs[c].usage_efctv;
    if (usum != 0) {
      ASSERT_NEAR(static_cast<double>(usum), 1.0, 1e-12) << p;
    }
    for (int32_t a : sib) {
      const AssocFairshare& x = r.assocs[a];
      double expected_lo = r.assocs[p].slice_lo;
      long double best_lower_f = -1;
      for (int32_t b : sib) {
        const AssocFairshare& y = r.assocs[b];
        if (x.level_fs > y.level_fs) {
          ASSERT_GE(x.fs_factor, y.fs_factor) << a << " vs " << b;
        }
        if (x.level_fs == y.level_fs) {
          ASSERT_EQ(x.fs_factor, y.fs_factor) << a << " vs " << b;
          ASSERT_EQ(x.slice_lo, y.slice_lo) << a << " vs " << b;
        }
        if (y.level_fs < x.level_fs && y.level_fs > best_lower_f) {
          best_lower_f = y.level_fs;
          expected_lo = y.fs_factor;
        }
      }
      ASSERT_EQ(x.slice_lo, expected_lo) << a;
    }
  }
}

TEST(RangedTree, SliceInvariantOnRandomTrees) {
  int checked = 0;
  size_t nodes_seen = 0, parents = 0, zero_shares = 0, zero_usage = 0, inner_ties = 0;
  int deepest = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    std::mt19937 rng(seed);
    std::vector<AssocNode> nodes = RandomTree(&rng);
    nodes_seen += nodes.size();
    AssocTree tree;
    std::string error;
    ASSERT_TRUE(tree.Build(std::move(nodes), true, &error)) << error;
    const uint16_t damp = seed % 7 == 0 ? 5 : 1;
    FairshareResults r = ComputeFairshare(tree, RangedParams(damp), nullptr, 0);
    CheckInvariant(tree, r, "seed " + std::to_string(seed));
    if (HasFatalFailure()) return;
    ++checked;
    // What the generator covered.
    for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
      const AssocNode& n = tree.node(i);
      parents += n.uses_parent();
      zero_shares += n.shares_raw == 0;
      zero_usage += n.usage_raw == 0;
      int depth = 0;
      for (int32_t a = i; a != tree.root(); a = tree.links(a).parent) ++depth;
      deepest = std::max(deepest, depth);
      for (int32_t j : tree.fs_children(tree.links(i).fs_parent >= 0 ? tree.links(i).fs_parent : i)) {
        if (j < i && !n.uses_parent() && !tree.node(j).uses_parent() &&
            r.assocs[j].level_fs == r.assocs[i].level_fs && r.assocs[i].level_fs > 0 &&
            r.assocs[i].level_fs < 1) {
          ++inner_ties;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3000);
  EXPECT_GT(nodes_seen, 30000u);
  EXPECT_GT(parents, 1000u);
  EXPECT_GT(zero_shares, 1000u);
  EXPECT_GT(zero_usage, 1000u);
  EXPECT_GT(inner_ties, 100u);  // equal f strictly between 0 and 1
  EXPECT_EQ(deepest, 6);
  std::printf("random trees: %zu associations, %zu parent, %zu zero shares, %zu zero usage, "
              "%zu inner ties, depth %d\n",
              nodes_seen, parents, zero_shares, zero_usage, inner_ties, deepest);
}

// An 80-level chain (each account shares its level with one user): slices
// shrink geometrically until double can no longer separate siblings; the
// invariant must still hold and nothing may become NaN.
TEST(RangedTree, DeepChainsKeepTheInvariant) {
  std::vector<AssocNode> nodes{{1, 0, "root", "", "", 1, 0}};
  for (uint32_t k = 2; k <= 80; ++k) {
    nodes.push_back({k, k - 1, "a" + std::to_string(k), "", "", 1, 0});
    nodes.push_back({1000 + k, k - 1, "a" + std::to_string(k - 1), "u", "", 1, 1});
  }
  AssocTree tree;
  FairshareResults r = BuildAndCompute(nodes, &tree);
  CheckInvariant(tree, r, "chain");
}

}  // namespace
}  // namespace fairway
