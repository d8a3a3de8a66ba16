// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_index.h"

#include <gtest/gtest.h>

namespace fairway {
namespace {

TEST(JobIndex, FindsEveryInsertedIdAndNothingElse) {
  JobIndex index;
  index.Reset(1000);
  for (uint32_t id = 5000; id < 6000; ++id) index.Insert(id, id - 5000);
  EXPECT_EQ(index.size(), 1000u);
  for (uint32_t id = 5000; id < 6000; ++id) ASSERT_EQ(index.Find(id), id - 5000) << id;
  EXPECT_EQ(index.Find(4999), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(6000), JobIndex::kNotFound);
  EXPECT_EQ(index.Find(0), JobIndex::kNotFound);
}

TEST(JobIndex, GrowsPastItsExpectedSize) {
  JobIndex index;
  index.Reset(4);
  for (uint32_t id = 1; id <= 10000; id += 3) index.Insert(id, id * 2);
  for (uint32_t id = 1; id <= 10000; id += 3) ASSERT_EQ(index.Find(id), id * 2) << id;
  EXPECT_EQ(index.Find(2), JobIndex::kNotFound);
}

TEST(JobIndex, ResetForgetsAndARepeatedIdKeepsItsFirstPosition) {
  JobIndex index;
  index.Reset(10);
  index.Insert(7, 1);
  index.Insert(7, 2);
  EXPECT_EQ(index.Find(7), 1u);
  EXPECT_EQ(index.size(), 1u);
  index.Reset(10);
  EXPECT_EQ(index.Find(7), JobIndex::kNotFound);
  EXPECT_EQ(index.size(), 0u);
  index.Insert(0, 3);  // no job has id 0
  EXPECT_EQ(index.size(), 0u);
}

TEST(JobIndex, EmptyIndexFindsNothing) {
  JobIndex index;
  EXPECT_EQ(index.Find(1), JobIndex::kNotFound);
}

}  // namespace
}  // namespace fairway
