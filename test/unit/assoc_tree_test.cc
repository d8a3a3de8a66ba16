// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "assoc_tree.h"
#include "test_support.h"

namespace fairway {
namespace {

TEST(AssocTree, RejectsDuplicateIdsAndMissingRoot) {
  AssocTree tree;
  std::string error;
  EXPECT_FALSE(tree.Build({{1, 0, "root", "", "", 1, 0}, {1, 1, "a", "", "", 1, 0}}, true, &error));
  EXPECT_NE(error.find("duplicate association id 1"), std::string::npos) << error;
  EXPECT_FALSE(tree.Build({{2, 1, "a", "", "", 1, 0}}, true, &error));
  EXPECT_NE(error.find("no root"), std::string::npos) << error;
}

TEST(AssocTree, LevelSharesSkipParentAssociations) {
  AssocTree tree = test::LoadTree("classic_doc_example.csv", FairshareMode::kFairTree);
  int32_t a = test::FindAssoc(tree, "a", "");
  int32_t root_user = test::FindAssoc(tree, "root", "root");
  EXPECT_EQ(tree.links(a).level_shares, 100u);  // 40 + 60 + 0 for "parent"
  EXPECT_DOUBLE_EQ(tree.links(a).shares_norm, 0.4);
  // A "parent" user's normalised share is its fs parent's (the root's,
  // which assoc_mgr divides by NO_VAL).
  EXPECT_DOUBLE_EQ(tree.links(root_user).shares_norm, 1.0 / kNoVal);
}

TEST(AssocTree, ClassicSharesMultiplyDownTheChain) {
  AssocTree tree = test::LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  EXPECT_DOUBLE_EQ(tree.links(test::FindAssoc(tree, "c", "user2")).shares_norm, 0.4 * 0.25 * 0.5);
  EXPECT_DOUBLE_EQ(tree.links(test::FindAssoc(tree, "f", "user5")).shares_norm,
                   0.6 * (35.0 / 60.0) * 1.0);
  EXPECT_DOUBLE_EQ(tree.links(test::FindAssoc(tree, "root", "root")).shares_norm, 1.0);
}

TEST(AssocTree, SubtreeUsageIsSummedByTheReader) {
  AssocTree tree = test::LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
  EXPECT_EQ(tree.node(tree.root()).usage_raw, 1000.0L);
  EXPECT_EQ(tree.node(test::FindAssoc(tree, "a", "")).usage_raw, 450.0L);
  EXPECT_EQ(tree.node(test::FindAssoc(tree, "d", "")).usage_raw, 250.0L);
}

TEST(AssocTree, PriorityNormIsRelativeToTheLargest) {
  AssocTree tree;
  ASSERT_TRUE(tree.Build({{1, 0, "root", "", "", 1, 0, 0}, {2, 1, "a", "", "", 1, 0, 50},
                          {3, 2, "a", "u", "", 1, 0, 200}},
                         true, nullptr));
  EXPECT_DOUBLE_EQ(tree.links(1).priority_norm, 0.25);
  EXPECT_DOUBLE_EQ(tree.links(2).priority_norm, 1.0);
  EXPECT_DOUBLE_EQ(tree.links(0).priority_norm, 0.0);
}

}  // namespace
}  // namespace fairway

namespace fairway {
namespace {

// A parent cycle cannot come from slurmdbd but can be written in a tree
// file: its members become orphans instead of looping forever.
TEST(AssocTree, ParentCyclesAreDetachedNotFollowed) {
  AssocTree tree;
  std::string error;
  ASSERT_TRUE(tree.Build({{1, 0, "root", "", "", 1, 0},
                          {2, 3, "a", "", "", kSharesUseParent, 0},
                          {3, 2, "b", "", "", kSharesUseParent, 0},
                          {4, 2, "a", "u", "", 1, 5},
                          {5, 1, "c", "", "", 1, 0}},
                         true, &error))
      << error;
  for (int32_t i : {1, 2, 3}) {
    EXPECT_EQ(tree.links(i).parent, -1) << i;
    EXPECT_EQ(tree.links(i).fs_parent, -1) << i;
  }
  EXPECT_EQ(tree.links(4).parent, 0);  // c is untouched
  FairshareResults r = ComputeFairshare(tree, Params{}, nullptr, 0);
  EXPECT_EQ(r.assocs[3].fs_factor, 0.0);  // never ranked, like any orphan
}

}  // namespace
}  // namespace fairway
