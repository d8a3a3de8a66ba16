// SPDX-License-Identifier: GPL-2.0-or-later
// The association-tree CSV reader (src/io/tree_file.h).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/tree_file.h"
#include "test_support.h"

namespace fairway {
namespace {

bool Read(const std::string& text, std::vector<AssocNode>* nodes, std::string* error) {
  std::istringstream in(text);
  return ReadTreeCsv(in, "tree.csv", nodes, error);
}

// Reads text that must fail; returns the error.
std::string ReadError(const std::string& text) {
  std::vector<AssocNode> nodes;
  std::string error;
  EXPECT_FALSE(Read(text, &nodes, &error)) << text;
  return error;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const char kHeader[] = "id,parent,account,user,shares,usage\n";

TEST(TreeFile, GoodFileWithSubtreeSums) {
  const std::string text =
      "# comment line\n"
      "id,parent,account,user,shares,usage\n"
      "\n"
      "1,0,root,,1,0\n"
      "   # indented comment\n"
      "2,1,A,,parent,10\n"
      "3,2,a,u1,5,20\n"
      "4,1,b,,3,5\n"
      "5,4,b,u2,1,1.5\n";
  std::vector<AssocNode> nodes;
  std::string error;
  ASSERT_TRUE(Read(text, &nodes, &error)) << error;
  ASSERT_EQ(nodes.size(), 5u);
  // File order is kept.
  EXPECT_EQ(nodes[0].id, 1u);
  EXPECT_EQ(nodes[0].parent_id, 0u);
  EXPECT_EQ(nodes[1].acct, "a");  // accounts are lower-cased
  EXPECT_EQ(nodes[2].user, "u1");
  EXPECT_TRUE(nodes[2].is_user());
  EXPECT_FALSE(nodes[1].is_user());
  // Shares: counts and "parent".
  EXPECT_EQ(nodes[0].shares_raw, 1u);
  EXPECT_EQ(nodes[1].shares_raw, kSharesUseParent);
  EXPECT_TRUE(nodes[1].uses_parent());
  EXPECT_EQ(nodes[2].shares_raw, 5u);
  EXPECT_EQ(nodes[3].shares_raw, 3u);
  // Subtree usage, own usage added to every ancestor:
  // u1 20; a 10 + 20 = 30; u2 1.5; b 5 + 1.5 = 6.5; root 30 + 6.5 = 36.5.
  EXPECT_EQ(nodes[2].usage_raw, 20.0L);
  EXPECT_EQ(nodes[1].usage_raw, 30.0L);
  EXPECT_EQ(nodes[4].usage_raw, 1.5L);
  EXPECT_EQ(nodes[3].usage_raw, 6.5L);
  EXPECT_EQ(nodes[0].usage_raw, 36.5L);
  // Optional columns absent: defaults.
  EXPECT_EQ(nodes[2].partition, "");
  EXPECT_EQ(nodes[2].priority, 0u);
}

TEST(TreeFile, ChildrenBeforeParentsStillSum) {
  const std::string text = std::string(kHeader) +
                           "3,2,a,u1,1,7\n"
                           "2,1,a,,1,1\n"
                           "1,0,root,,1,0\n";
  std::vector<AssocNode> nodes;
  std::string error;
  ASSERT_TRUE(Read(text, &nodes, &error)) << error;
  EXPECT_EQ(nodes[0].usage_raw, 7.0L);
  EXPECT_EQ(nodes[1].usage_raw, 8.0L);
  EXPECT_EQ(nodes[2].usage_raw, 8.0L);
}

TEST(TreeFile, ColumnsInAnyOrderWithOptionalColumnsAndSpaces) {
  const std::string text =
      "Usage, priority ,USER,shares,partition,account,parent,id\n"
      "0,,,1,,root,0,1\n"
      " 4 , 10 , alice , 2 , gpu , Phys , 1 , 2 \n";
  std::vector<AssocNode> nodes;
  std::string error;
  ASSERT_TRUE(Read(text, &nodes, &error)) << error;
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].id, 2u);
  EXPECT_EQ(nodes[1].parent_id, 1u);
  EXPECT_EQ(nodes[1].acct, "phys");
  EXPECT_EQ(nodes[1].user, "alice");  // user names keep their case
  EXPECT_EQ(nodes[1].partition, "gpu");
  EXPECT_EQ(nodes[1].shares_raw, 2u);
  EXPECT_EQ(nodes[1].priority, 10u);
  EXPECT_EQ(nodes[0].priority, 0u);  // empty priority: unset
  EXPECT_EQ(nodes[0].usage_raw, 4.0L);
}

TEST(TreeFile, WindowsLineEndingsAreAccepted) {
  std::vector<AssocNode> nodes;
  std::string error;
  ASSERT_TRUE(Read("id,parent,account,user,shares,usage\r\n1,0,root,,1,0\r\n2,1,a,u,1,3\r\n",
                   &nodes, &error))
      << error;
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].usage_raw, 3.0L);
  EXPECT_EQ(nodes[0].usage_raw, 3.0L);
}

TEST(TreeFile, HeaderOnlyIsAnEmptyTree) {
  std::vector<AssocNode> nodes = {AssocNode{}};  // cleared on read
  std::string error;
  EXPECT_TRUE(Read(kHeader, &nodes, &error)) << error;
  EXPECT_TRUE(nodes.empty());
}

TEST(TreeFile, MissingHeaderColumnIsNamed) {
  std::string e = ReadError("# a tree\nid,parent,account,user,shares\n1,0,root,,1\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:2: ")) << e;
  EXPECT_TRUE(Contains(e, "'usage'")) << e;
  e = ReadError("parent,account,user,shares,usage\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:1: ")) << e;
  EXPECT_TRUE(Contains(e, "'id'")) << e;
}

TEST(TreeFile, BadIdNamesLine) {
  for (const char* id : {"x", "0", "-1", "1.5", "", "4294967295"}) {
    std::string e = ReadError(std::string(kHeader) + "1,0,root,,1,0\n" + id + ",1,a,,1,0\n");
    EXPECT_TRUE(StartsWith(e, "tree.csv:3: bad id")) << id << ": " << e;
  }
}

TEST(TreeFile, BadParentNamesLine) {
  for (const char* parent : {"x", "-1", "", "1e3"}) {
    std::string e =
        ReadError(std::string(kHeader) + "1,0,root,,1,0\n2," + parent + ",a,,1,0\n");
    EXPECT_TRUE(StartsWith(e, "tree.csv:3: bad parent")) << parent << ": " << e;
  }
}

TEST(TreeFile, BadSharesNamesLine) {
  for (const char* shares : {"abc", "-1", "", "1.5", "2147483647", "parents"}) {
    std::string e =
        ReadError(std::string(kHeader) + "1,0,root,,1,0\n2,1,a,,"  + shares + ",0\n");
    EXPECT_TRUE(StartsWith(e, "tree.csv:3: bad shares")) << shares << ": " << e;
  }
  std::vector<AssocNode> nodes;
  std::string error;
  EXPECT_TRUE(Read(std::string(kHeader) + "1,0,root,,PARENT,0\n", &nodes, &error)) << error;
  EXPECT_TRUE(Read(std::string(kHeader) + "1,0,root,,2147483646,0\n", &nodes, &error)) << error;
  EXPECT_TRUE(Read(std::string(kHeader) + "1,0,root,,0,0\n", &nodes, &error)) << error;
}

TEST(TreeFile, NegativeOrNonFiniteUsageIsRejected) {
  for (const char* usage : {"-1", "-0.5", "nan", "inf", "abc", "", "1e999"}) {
    std::string e = ReadError(std::string(kHeader) + "1,0,root,,1," + usage + "\n");
    EXPECT_TRUE(StartsWith(e, "tree.csv:2: bad usage")) << usage << ": " << e;
  }
}

TEST(TreeFile, BadPriorityIsRejected) {
  std::string e = ReadError(
      "id,parent,account,user,shares,usage,priority\n1,0,root,,1,0,high\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:2: bad priority")) << e;
  e = ReadError("id,parent,account,user,shares,usage,priority\n1,0,root,,1,0,4294967296\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:2: bad priority")) << e;
}

TEST(TreeFile, ShortLineNamesLineAndCounts) {
  std::string e = ReadError(std::string(kHeader) + "1,0,root,,1,0\n\n# x\n2,1,a,,1\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:5: ")) << e;
  const std::string what = e.substr(std::string("tree.csv:5: ").size());
  EXPECT_TRUE(Contains(what, "6")) << e;  // fields expected
  EXPECT_TRUE(Contains(what, "5")) << e;  // fields found
}

TEST(TreeFile, EmptyAccountIsRejected) {
  std::string e = ReadError(std::string(kHeader) + "1,0,root,,1,0\n2,1,  ,u,1,0\n");
  EXPECT_TRUE(StartsWith(e, "tree.csv:3: empty account")) << e;
}

TEST(TreeFile, EmptyInputHasNoHeader) {
  for (const char* text : {"", "\n\n", "# only a comment\n"}) {
    std::string e = ReadError(text);
    EXPECT_TRUE(StartsWith(e, "tree.csv:")) << e;
    EXPECT_TRUE(Contains(e, "no header")) << e;
  }
}

TEST(TreeFile, ErrorWithNullErrorPointerIsSafe) {
  std::istringstream in("");
  std::vector<AssocNode> nodes;
  EXPECT_FALSE(ReadTreeCsv(in, "x", &nodes, nullptr));
}

TEST(TreeFile, ReadsFixtureFileAndReportsMissingFile) {
  std::vector<AssocNode> nodes;
  std::string error;
  ASSERT_TRUE(ReadTreeCsvFile(test::DataPath("tree_file_any_order.csv"), &nodes, &error))
      << error;
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].usage_raw, 12.0L);  // 2 + 10, see the fixture's comment
  EXPECT_EQ(nodes[2].partition, "debug");
  EXPECT_EQ(nodes[3].shares_raw, kSharesUseParent);

  const std::string missing = test::DataPath("tree_file_does_not_exist.csv");
  EXPECT_FALSE(ReadTreeCsvFile(missing, &nodes, &error));
  EXPECT_TRUE(StartsWith(error, missing)) << error;
}

TEST(TreeFile, FixtureErrorNamesThePath) {
  std::vector<AssocNode> nodes;
  std::string error;
  const std::string path = test::DataPath("tree_file_bad_shares.csv");
  EXPECT_FALSE(ReadTreeCsvFile(path, &nodes, &error));
  EXPECT_EQ(error.rfind(path + ":4: bad shares", 0), 0u) << error;
}

}  // namespace
}  // namespace fairway
