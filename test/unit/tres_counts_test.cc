// SPDX-License-Identifier: GPL-2.0-or-later
#include "tres_counts.h"

#include <gtest/gtest.h>

#include "text_util.h"

namespace fairway {
namespace {

TEST(TresCounts, ParsesSlurmdbdAllocations) {
  std::map<uint32_t, uint64_t> t;
  ASSERT_TRUE(ParseTresCounts("1=2,2=1024,3=18446744073709551614,4=1,5=3", &t));
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.at(1), 2u);
  EXPECT_EQ(t.at(2), 1024u);
  EXPECT_EQ(t.at(3), 18446744073709551614ull);
  ASSERT_TRUE(ParseTresCounts(" 1 = 4 , 1001=2 ", &t));
  EXPECT_EQ(t.at(1), 4u);
  EXPECT_EQ(t.at(1001), 2u) << "gres TRES ids are assigned from 1001";
  ASSERT_TRUE(ParseTresCounts("", &t));
  EXPECT_TRUE(t.empty());
}

TEST(TresCounts, RefusesAnythingElseAndLeavesNothing) {
  std::map<uint32_t, uint64_t> t;
  for (const char* bad : {"garbage", "1=", "=2", "1=2,,5=1", "1=-2", "x=1", "1=2;5=1",
                          "1=99999999999999999999", "0=1", "4294967296=1", "1=2,5=x"}) {
    t = {{9, 9}};
    EXPECT_FALSE(ParseTresCounts(bad, &t)) << bad;
    EXPECT_TRUE(t.empty()) << bad;
  }
}

TEST(TresCounts, CountsUseTheWholeUnsigned64Range) {
  EXPECT_EQ(ParseUnsigned64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseUnsigned64("0"), 0u);
  for (const char* bad : {"", "18446744073709551616", "+1", "-1", " 1", "1 ", "0x10"}) {
    EXPECT_FALSE(ParseUnsigned64(bad)) << bad;
  }
}

// ParseUnsigned (settings) reads through ParseUnsigned64 but keeps its
// 18-digit bound, so every number it accepts fits an int64_t.
TEST(TresCounts, SettingsIntegersStopAtEighteenDigits) {
  EXPECT_EQ(ParseUnsigned("999999999999999999"), 999999999999999999);
  EXPECT_EQ(ParseUnsigned("0"), 0);
  for (const char* bad : {"", "1000000000000000000", "+1", "-1", " 1", "1.5"}) {
    EXPECT_FALSE(ParseUnsigned(bad)) << bad;
  }
}

TEST(TresCounts, BillingIsTheBillingTresElseTheCpus) {
  EXPECT_DOUBLE_EQ(AllocationBilling({{1, 2}, {2, 1024}, {4, 1}, {5, 3}}), 3);
  EXPECT_DOUBLE_EQ(AllocationBilling({{1, 4}, {2, 512}}), 4);
  EXPECT_DOUBLE_EQ(AllocationBilling({{2, 512}}), 0);
  EXPECT_DOUBLE_EQ(AllocationBilling({}), 0);
}

}  // namespace
}  // namespace fairway
