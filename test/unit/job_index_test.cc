// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace fairway {
namespace {

std::vector<uint32_t> Range(uint32_t first, uint32_t end, uint32_t step = 1) {
  std::vector<uint32_t> ids;
  for (uint32_t id = first; id < end; id += step) ids.push_back(id);
  return ids;
}

void ExpectEachAtItsPosition(const JobIndex& index, const std::vector<uint32_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(index.Find(ids[i]), i) << ids[i];
}

// Indexes ids and checks the layout chosen, every id's position, and that
// the ids in absent are not found.
void ExpectIndexed(const std::vector<uint32_t>& ids, bool dense,
                   const std::vector<uint32_t>& absent) {
  JobIndex index;
  index.Assign(ids);
  EXPECT_EQ(index.dense(), dense);
  ExpectEachAtItsPosition(index, ids);
  for (uint32_t id : absent) EXPECT_EQ(index.Find(id), JobIndex::kNotFound) << id;
}

TEST(JobIndex, ConsecutiveIdsUseTheDenseArray) {
  JobIndex index;
  const auto ids = Range(5000, 6000);
  index.Assign(ids);
  EXPECT_TRUE(index.dense());
  EXPECT_EQ(index.size(), 1000u);
  ExpectEachAtItsPosition(index, ids);
  EXPECT_EQ(index.Find(4999), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(6000), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(0), JobIndex::kNotFound);
}

TEST(JobIndex, IdsWithGapsWithinTheSpanLimitStayDense) {
  ExpectIndexed(Range(100, 4100, 4), true, {101, 99, 4100});  // span 3997 for 1000 ids
}

TEST(JobIndex, SpreadOutIdsUseTheHashTable) {
  auto ids = Range(1, 10000, 7);
  ids.push_back(4000000000u);
  ExpectIndexed(ids, false, {2, 3999999999u});
}

// Two blocks of consecutive ids a power of two apart: with a hash on the
// low bits every id of the second block would share a home with one of the
// first and probe through the first block's whole run.
TEST(JobIndex, BlocksAPowerOfTwoApartAreFound) {
  auto ids = Range(1, 10001);
  for (uint32_t id : Range(1 + (1u << 20), 10001 + (1u << 20))) ids.push_back(id);
  ExpectIndexed(ids, false, {10001, 1u << 20});
}

TEST(JobIndex, AssignReplacesAndARepeatedIdKeepsItsFirstPosition) {
  JobIndex index;
  index.Assign({7, 7, 0, 9});
  EXPECT_EQ(index.Find(7), 0u);
  EXPECT_EQ(index.Find(9), 3u);
  EXPECT_EQ(index.size(), 2u);
  index.Assign({8});
  EXPECT_EQ(index.Find(7), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(8), 0u);
  EXPECT_EQ(index.size(), 1u);
  // From the hashed layout back to the dense one and again.
  index.Assign({1, 1u << 30});
  EXPECT_FALSE(index.dense());
  EXPECT_EQ(index.Find(1u << 30), 1u);
  index.Assign({3, 4});
  EXPECT_TRUE(index.dense());
  EXPECT_EQ(index.Find(1u << 30), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(4), 1u);
}

TEST(JobIndex, EmptyIndexFindsNothing) {
  JobIndex index;
  EXPECT_EQ(index.Find(1), JobIndex::kNotFound);
  index.Assign({0, 0});
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find(1), JobIndex::kNotFound);
}

}  // namespace
}  // namespace fairway
