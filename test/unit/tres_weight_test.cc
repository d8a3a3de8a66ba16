// SPDX-License-Identifier: GPL-2.0-or-later
#include "tres_weight.h"

#include <gtest/gtest.h>

namespace fairway {
namespace {

double Parsed(std::string_view type, std::string_view value) {
  std::string why;
  std::optional<double> w = ParseTresWeightValue(type, value, &why);
  EXPECT_TRUE(w.has_value()) << type << "=" << value << ": " << why;
  return w.value_or(-1);
}

TEST(TresWeightValue, PlainNumbersAreUnchanged) {
  EXPECT_DOUBLE_EQ(Parsed("cpu", "2000"), 2000);
  EXPECT_DOUBLE_EQ(Parsed("mem", "0.25"), 0.25);
  EXPECT_DOUBLE_EQ(Parsed("gres", "1e3"), 1000);
}

// slurm_get_tres_weight_array: mem and bb count in MB, so "G" divides by
// 1024 once and "T" twice; "M" and "K" leave a memory weight alone.
TEST(TresWeightValue, MemoryUnitsAreStepsAboveMegabytes) {
  EXPECT_DOUBLE_EQ(Parsed("mem", "1G"), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(Parsed("mem", "2048T"), 2048.0 / (1024.0 * 1024));
  EXPECT_DOUBLE_EQ(Parsed("mem", "3M"), 3);
  EXPECT_DOUBLE_EQ(Parsed("mem", "3K"), 3);
  EXPECT_DOUBLE_EQ(Parsed("bb", "1G"), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(Parsed("MEM", "1g"), 1.0 / 1024);
}

// Every other TRES has no base unit: each step from K divides by 1024.
TEST(TresWeightValue, OtherTresUnitsCountFromNone) {
  EXPECT_DOUBLE_EQ(Parsed("cpu", "1K"), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(Parsed("cpu", "1M"), 1.0 / (1024.0 * 1024));
  EXPECT_DOUBLE_EQ(Parsed("gres", "1G"), 1.0 / (1024.0 * 1024 * 1024));
}

// Only the first character of the unit is read, as in Slurm.
TEST(TresWeightValue, OnlyTheFirstUnitCharacterCounts) {
  EXPECT_DOUBLE_EQ(Parsed("mem", "1GB"), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(Parsed("mem", "1GiB"), 1.0 / 1024);
}

TEST(TresWeightValue, BadValuesAndUnitsAreNamed) {
  std::string why;
  EXPECT_FALSE(ParseTresWeightValue("cpu", "lots", &why));
  EXPECT_NE(why.find("'lots' is not a number"), std::string::npos) << why;
  EXPECT_FALSE(ParseTresWeightValue("mem", "1X", &why));
  EXPECT_NE(why.find("unknown unit 'X'"), std::string::npos) << why;
  EXPECT_FALSE(ParseTresWeightValue("mem", "1 G", &why));
}

}  // namespace
}  // namespace fairway
