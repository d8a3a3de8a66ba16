// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm 22.05's value conversions as modelled in slurm_conf_values.h. The
// expected numbers are Slurm's, worked by hand from
// slurm-22-05-8-1:src/common/parse_time.c and parse_value.c and confirmed
// against a live slurmctld by test/integration/check_config_truth.sh.
#include "io/slurm_conf_values.h"

#include <gtest/gtest.h>

#include "slurm_values.h"

namespace fairway {
namespace {

TEST(SlurmConfValues, TimeStringsAsTimeStr2Secs) {
  EXPECT_EQ(SlurmTimeStrToSecs("5"), 300);            // minutes
  EXPECT_EQ(SlurmTimeStrToSecs("5:30"), 330);         // minutes:seconds
  EXPECT_EQ(SlurmTimeStrToSecs("1:02:03"), 3723);     // hours:minutes:seconds
  EXPECT_EQ(SlurmTimeStrToSecs("7-0"), 604800);       // days-hours
  EXPECT_EQ(SlurmTimeStrToSecs("1-2:3:4"), 93784);    // days-hours:minutes:seconds
  EXPECT_EQ(SlurmTimeStrToSecs("2-"), 172800);        // days- alone
  EXPECT_EQ(SlurmTimeStrToSecs("INFINITE"), kSlurmTimeInfinite);
  EXPECT_EQ(SlurmTimeStrToSecs("unlimited"), kSlurmTimeInfinite);
  EXPECT_EQ(SlurmTimeStrToSecs("-1"), kSlurmTimeInfinite);
  EXPECT_EQ(SlurmTimeStrToSecs(""), kSlurmTimeNoVal);
  EXPECT_EQ(SlurmTimeStrToSecs("abc"), kSlurmTimeNoVal);
  EXPECT_EQ(SlurmTimeStrToSecs("7days"), kSlurmTimeNoVal);
  EXPECT_EQ(SlurmTimeStrToSecs("5:"), kSlurmTimeNoVal);      // too few digit groups
  EXPECT_EQ(SlurmTimeStrToSecs("1:2-3"), kSlurmTimeNoVal);   // '-' after ':'
  EXPECT_EQ(SlurmTimeStrToSecs("-5"), -5 * 86400);           // "-5" is minus five days
}

TEST(SlurmConfValues, ThirtyTwoBitWrapAsInSlurmctld) {
  // 999999 days = 86,399,913,600 s; mod 2^32 that is 500,567,680.
  EXPECT_EQ(SlurmTimeStrToSecs("999999-0"), 500567680);
  EXPECT_EQ(SlurmTimeStrToMins("999999-0"), 8342795);  // rounded up
  // 30000 days wraps negative.
  EXPECT_EQ(SlurmTimeStrToSecs("30000-0"), -1702967296);
  // 71,582,789 minutes * 60 = 4,294,967,340 wraps to 44 s.
  EXPECT_EQ(SlurmTimeStrToSecs("71582789"), 44);
}

TEST(SlurmConfValues, MaxAgeAndHalfLifeSettings) {
  SlurmTimeSetting huge = ReadSlurmTimeSetting("999999-0", SlurmTimeKind::kHalfLifeOrMaxAge);
  EXPECT_TRUE(huge.accepted);
  EXPECT_TRUE(huge.wrapped);
  EXPECT_EQ(huge.seconds, 500567700u);
  EXPECT_EQ(huge.exact_seconds, 86399913600);
  EXPECT_EQ(SlurmTimeString(huge.seconds), "5793-14:35:00");

  SlurmTimeSetting inf = ReadSlurmTimeSetting("INFINITE", SlurmTimeKind::kHalfLifeOrMaxAge);
  EXPECT_TRUE(inf.accepted);
  EXPECT_TRUE(inf.infinite);
  EXPECT_EQ(inf.seconds, 4294967236u);  // -1 minute * 60 as uint32_t
  EXPECT_EQ(SlurmTimeString(inf.seconds), "49710-06:27:16");

  SlurmTimeSetting zero = ReadSlurmTimeSetting("0", SlurmTimeKind::kHalfLifeOrMaxAge);
  EXPECT_TRUE(zero.accepted);
  EXPECT_EQ(zero.seconds, 0u);
  EXPECT_FALSE(zero.wrapped);

  EXPECT_FALSE(ReadSlurmTimeSetting("-5", SlurmTimeKind::kHalfLifeOrMaxAge).accepted);
  EXPECT_FALSE(ReadSlurmTimeSetting("abc", SlurmTimeKind::kHalfLifeOrMaxAge).accepted);
  EXPECT_FALSE(ReadSlurmTimeSetting("30000-0", SlurmTimeKind::kHalfLifeOrMaxAge).accepted);
  EXPECT_FALSE(ReadSlurmTimeSetting("99999999999", SlurmTimeKind::kHalfLifeOrMaxAge).accepted);

  // Minutes that round up past 2^31 - 1 are refused; 23 digits saturate in
  // sscanf (LONG_MAX, truncated to int -1), so -60 s rounds to 0 minutes.
  EXPECT_FALSE(ReadSlurmTimeSetting("35791394", SlurmTimeKind::kHalfLifeOrMaxAge).accepted);
  SlurmTimeSetting digits =
      ReadSlurmTimeSetting("99999999999999999999999", SlurmTimeKind::kHalfLifeOrMaxAge);
  EXPECT_TRUE(digits.accepted);
  EXPECT_TRUE(digits.wrapped);
  EXPECT_EQ(digits.seconds, 0u);
  EXPECT_EQ(digits.exact_seconds, kSlurmTimeHuge);

  SlurmTimeSetting plain = ReadSlurmTimeSetting("14-0", SlurmTimeKind::kHalfLifeOrMaxAge);
  EXPECT_TRUE(plain.accepted);
  EXPECT_FALSE(plain.wrapped);
  EXPECT_FALSE(plain.rounded);
  EXPECT_EQ(plain.seconds, 14u * 86400);
}

TEST(SlurmConfValues, CalcPeriodSettings) {
  EXPECT_FALSE(ReadSlurmTimeSetting("0", SlurmTimeKind::kCalcPeriod).accepted);
  EXPECT_FALSE(ReadSlurmTimeSetting("INFINITE", SlurmTimeKind::kCalcPeriod).accepted);
  SlurmTimeSetting half = ReadSlurmTimeSetting("0:30", SlurmTimeKind::kCalcPeriod);
  EXPECT_TRUE(half.accepted);
  EXPECT_TRUE(half.rounded);
  EXPECT_EQ(half.seconds, 60u);
  SlurmTimeSetting wrapped = ReadSlurmTimeSetting("71582789", SlurmTimeKind::kCalcPeriod);
  EXPECT_TRUE(wrapped.accepted);
  EXPECT_TRUE(wrapped.wrapped);
  EXPECT_EQ(wrapped.seconds, 60u);  // 44 s, rounded up to a minute
}

TEST(SlurmConfValues, WholeNumbersAsStrtoulBaseZero) {
  std::string why;
  EXPECT_EQ(SlurmUint32("1000", &why), 1000u);
  EXPECT_EQ(SlurmUint32("010", &why), 8u);
  EXPECT_EQ(SlurmUint32("0x10", &why), 16u);
  EXPECT_EQ(SlurmUint32("2k", &why), 2048u);
  EXPECT_EQ(SlurmUint32("INFINITE", &why), 4294967295u);
  EXPECT_FALSE(SlurmUint32("abc", &why));
  EXPECT_EQ(why, "is not a valid number");
  EXPECT_FALSE(SlurmUint32("-1", &why));
  EXPECT_EQ(why, "is less than zero");
  EXPECT_FALSE(SlurmUint32("4294967296", &why));
  EXPECT_EQ(why, "is greater than 4294967295");
  EXPECT_FALSE(SlurmUint32("99999999999999999999", &why));
  EXPECT_EQ(why, "is out of range");
  EXPECT_EQ(SlurmUint16("0", &why), uint16_t{0});
  EXPECT_EQ(SlurmUint16("INFINITE", &why), uint16_t{0xffff});
  EXPECT_FALSE(SlurmUint16("70000", &why));
  EXPECT_FALSE(SlurmUint16("1k", &why));  // no K suffix for 16-bit values
  EXPECT_TRUE(IsPlainDecimal("1000"));
  EXPECT_TRUE(IsPlainDecimal("0"));
  EXPECT_FALSE(IsPlainDecimal("010"));
  EXPECT_FALSE(IsPlainDecimal("1k"));
  EXPECT_EQ(SlurmBoolean("Up"), true);
  EXPECT_EQ(SlurmBoolean("0"), false);
  EXPECT_FALSE(SlurmBoolean("maybe"));
}

TEST(SlurmConfValues, PriorityFlagsAsScontrolPrintsThem) {
  EXPECT_EQ(SlurmPriorityFlagsString(kFlagFairTree), "");
  EXPECT_EQ(SlurmPriorityFlagsString(0), "NO_FAIR_TREE");
  EXPECT_EQ(SlurmPriorityFlagsString(kFlagDepthOblivious), "DEPTH_OBLIVIOUS,NO_FAIR_TREE");
  // Slurm prints any NO_NORMAL_* bit as NO_NORMAL_ALL.
  EXPECT_EQ(SlurmPriorityFlagsString(kFlagFairTree | kFlagMaxTres | kFlagNoNormalQos),
            "MAX_TRES,NO_NORMAL_ALL");
}

// Two changes of priority_flags_string: MAX_TRES_GRES from 25.05; from
// 25.11 NO_NORMAL_ALL only for all four bits, the others one by one.
TEST(SlurmConfValues, PriorityFlagsByRelease) {
  const uint32_t flags = kFlagFairTree | kFlagMaxTresGres | kFlagNoNormalQos | kFlagNoNormalPart;
  EXPECT_EQ(SlurmPriorityFlagsString(flags, SlurmVersionNum(24, 11, 5)), "NO_NORMAL_ALL");
  EXPECT_EQ(SlurmPriorityFlagsString(flags, SlurmVersionNum(25, 5, 8)), "MAX_TRES_GRES,NO_NORMAL_ALL");
  EXPECT_EQ(SlurmPriorityFlagsString(flags, SlurmVersionNum(25, 11, 0)),
            "MAX_TRES_GRES,NO_NORMAL_PART,NO_NORMAL_QOS");
  EXPECT_EQ(SlurmPriorityFlagsString(kFlagNoNormalAll, SlurmVersionNum(26, 5, 3)),
            "NO_FAIR_TREE,NO_NORMAL_ALL");
}

}  // namespace
}  // namespace fairway
