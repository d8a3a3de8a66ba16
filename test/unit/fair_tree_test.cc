// SPDX-License-Identifier: GPL-2.0-or-later
// Fair Tree ranks and ties as 22.05.8 computes them.
#include <gtest/gtest.h>

#include <cmath>

#include "fair_tree.h"
#include "test_support.h"

namespace fairway {
namespace {

using test::FindAssoc;
using test::LoadTree;

FairshareResults BuildAndCompute(const std::vector<AssocNode>& nodes, AssocTree* tree) {
  std::string error;
  EXPECT_TRUE(tree->Build(nodes, true, &error)) << error;
  return ComputeFairshare(*tree, Params{}, nullptr, 0);
}

// Tied accounts are not merged, as in 22.05.8 (_count_tied_accounts in
// slurm-22-05-8-1:src/plugins/priority/multifactor/fair_tree.c).
TEST(FairTree, TiedAccountsAreNotMerged) {
  AssocTree tree = LoadTree("fair_tree_tied_accounts.csv", FairshareMode::kFairTree);
  FairshareResults r = ComputeFairshare(tree, Params{}, nullptr, 0);
  EXPECT_DOUBLE_EQ(r.assocs[FindAssoc(tree, "ax", "x2")].fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(r.assocs[FindAssoc(tree, "ax", "x1")].fs_factor, 0.75);
  EXPECT_DOUBLE_EQ(r.assocs[FindAssoc(tree, "ay", "y1")].fs_factor, 0.75);
  EXPECT_DOUBLE_EQ(r.assocs[FindAssoc(tree, "ay", "y2")].fs_factor, 0.75);
}

TEST(FairTree, TiedSiblingUsersShareRankAndSkipTheNext) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 30},
                            {2, 1, "a", "", "", 1, 30},
                            {3, 2, "a", "u1", "", 1, 10},
                            {4, 2, "a", "u2", "", 1, 10},
                            {5, 2, "a", "u3", "", 1, 10},
                            {6, 2, "a", "u4", "", 1, 0}},
                           &tree);
  // u4 has no usage (level_fs inf) and ranks first: 4/4. u1..u3 tie: 3/4.
  EXPECT_DOUBLE_EQ(r.assocs[5].fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(r.assocs[2].fs_factor, 0.75);
  EXPECT_DOUBLE_EQ(r.assocs[3].fs_factor, 0.75);
  EXPECT_DOUBLE_EQ(r.assocs[4].fs_factor, 0.75);
  EXPECT_TRUE(std::isinf(r.assocs[5].level_fs));
}

TEST(FairTree, RanksFollowLevelFsDescendingAcrossAccounts) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 100},
                            {2, 1, "a", "", "", 1, 80},   // over-served account
                            {3, 2, "a", "ua", "", 1, 80},
                            {4, 1, "b", "", "", 1, 20},   // under-served account
                            {5, 4, "b", "ub1", "", 1, 5},
                            {6, 4, "b", "ub2", "", 1, 15}},
                           &tree);
  // b's users rank above a's user whatever their own usage.
  EXPECT_DOUBLE_EQ(r.assocs[4].fs_factor, 1.0);        // ub1
  EXPECT_DOUBLE_EQ(r.assocs[5].fs_factor, 2.0 / 3.0);  // ub2
  EXPECT_DOUBLE_EQ(r.assocs[2].fs_factor, 1.0 / 3.0);  // ua
  EXPECT_NEAR(static_cast<double>(r.assocs[3].level_fs), 0.5 / 0.2, 1e-12);
  EXPECT_NEAR(static_cast<double>(r.assocs[1].usage_efctv), 0.8, 1e-12);
}

TEST(FairTree, UserBeforeAccountOnEqualLevelFs) {
  AssocTree tree;
  // Account "a" and user "u" under root both have S = 0.5, U = 0.5.
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 100},
                            {2, 1, "a", "", "", 1, 50},
                            {3, 2, "a", "ua", "", 1, 50},
                            {4, 1, "root", "u", "", 1, 50}},
                           &tree);
  // The sort puts user u first (rank 2/2); account a is tied with u, so its
  // first child inherits u's rank.
  EXPECT_DOUBLE_EQ(r.assocs[3].fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(r.assocs[2].fs_factor, 1.0);
}

TEST(FairTree, ZeroSharesRankLastButKeepPositiveFactor) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 10},
                            {2, 1, "a", "", "", 1, 10},
                            {3, 2, "a", "u0", "", 0, 0},
                            {4, 2, "a", "u1", "", 1, 10}},
                           &tree);
  EXPECT_EQ(r.assocs[2].level_fs, 0.0L);
  EXPECT_DOUBLE_EQ(r.assocs[3].fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(r.assocs[2].fs_factor, 0.5);  // rank 1 of 2, never 0
}

TEST(FairTree, ParentUserRanksAtTopAndParentAccountDissolves) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 100},
                            {2, 1, "a", "", "", 1, 100},
                            {3, 2, "sub", "", "", kSharesUseParent, 60},
                            {4, 3, "sub", "s1", "", 1, 60},
                            {5, 2, "a", "pu", "", kSharesUseParent, 40}},
                           &tree);
  // sub is "parent": s1 is listed under a, as a sibling of sub and pu.
  EXPECT_EQ(tree.links(3).fs_parent, 1);
  EXPECT_TRUE(std::isinf(r.assocs[4].level_fs));
  EXPECT_EQ(r.assocs[2].level_fs, kNoValLd);
  EXPECT_DOUBLE_EQ(r.assocs[4].fs_factor, 1.0);  // pu: inf ranks first
  EXPECT_DOUBLE_EQ(r.assocs[3].fs_factor, 0.5);
}

TEST(FairTree, OrphansCountButAreNeverRanked) {
  AssocTree tree;
  FairshareResults r = BuildAndCompute({{1, 0, "root", "", "", 1, 10},
                            {2, 1, "a", "", "", 1, 10},
                            {3, 2, "a", "u1", "", 1, 0},
                            {4, 2, "a", "u2", "", 1, 10},
                            {5, 99, "gone", "orphan", "", 1, 0}},
                           &tree);
  EXPECT_EQ(tree.user_assoc_count(), 3u);
  EXPECT_DOUBLE_EQ(r.assocs[2].fs_factor, 1.0);
  // The orphan holds rank 1 that nobody reaches: the last ranked user gets
  // 2/3, not 1/3.
  EXPECT_DOUBLE_EQ(r.assocs[3].fs_factor, 2.0 / 3.0);
  EXPECT_EQ(r.assocs[4].fs_factor, 0.0);
}

TEST(FairTree, SiblingOrderDecidesAmongExactTies) {
  // Same as TiedAccountsAreNotMerged with the accounts listed the other way
  // round: now ay's users come first (stable sort keeps list order).
  // Tree usage_raw is the subtree sum (the reader adds it up from files).
  AssocTree tree;
  FairshareResults r2 = BuildAndCompute({{1, 0, "root", "", "", 1, 20},
                                         {5, 1, "ay", "", "", 10, 10},
                                         {6, 5, "ay", "y1", "", 1, 5},
                                         {7, 5, "ay", "y2", "", 1, 5},
                                         {2, 1, "ax", "", "", 10, 10},
                                         {3, 2, "ax", "x1", "", 1, 9},
                                         {4, 2, "ax", "x2", "", 1, 1}},
                                        &tree);
  EXPECT_DOUBLE_EQ(r2.assocs[2].fs_factor, 1.0);   // y1
  EXPECT_DOUBLE_EQ(r2.assocs[3].fs_factor, 1.0);   // y2 tied with y1
  EXPECT_DOUBLE_EQ(r2.assocs[6].fs_factor, 1.0);   // x2: account tied, inherits
  EXPECT_DOUBLE_EQ(r2.assocs[5].fs_factor, 0.25);  // x1
}

}  // namespace
}  // namespace fairway
