// SPDX-License-Identifier: GPL-2.0-or-later
// One fixture slurm.conf per class of mistake (test/unit/data/conf_*.conf).
#include "cmd/check_config.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace fairway {
namespace {

CheckReport Check(const std::string& fixture, const CheckOptions& options = CheckOptions()) {
  SlurmConf conf;
  std::string error;
  EXPECT_TRUE(ReadSlurmConfFile(test::DataPath(fixture), &conf, &error)) << error;
  return CheckSlurmConf(conf, options);
}

// Whether a finding of this severity names the setting and contains text.
bool Finds(const CheckReport& r, Severity severity, const std::string& setting, const std::string& text = "") {
  for (const ConfDiagnostic& d : r.findings) {
    if (d.diagnostic.severity == severity && d.diagnostic.setting == setting &&
        d.diagnostic.Format().find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string Dump(const CheckReport& r) {
  std::string s;
  for (const ConfDiagnostic& d : r.findings) s += std::to_string(d.line) + ": " + d.diagnostic.Format() + "\n";
  return s;
}

TEST(CheckConfig, CleanConfigPasses) {
  CheckReport r = Check("conf_clean.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_EQ(r.warnings(), 0) << Dump(r);
  EXPECT_FALSE(r.info.empty());  // resolutions are reported as info
}

TEST(CheckConfig, BadWeightValues) {
  CheckReport r = Check("conf_bad_weight.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeightAge", "12abc")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeightFairshare", "5000000000")) << Dump(r);
}

TEST(CheckConfig, WeightSumOverflow) {
  CheckReport r = Check("conf_overflow.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeight*", "4294967295")) << Dump(r);
}

TEST(CheckConfig, WeightsTooSmallToSeparateFactors) {
  CheckReport r = Check("conf_low_weight.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityWeightAge", "1/100")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityWeightFairshare", "1/500")) << Dump(r);
  CheckOptions many_users;
  many_users.user_assocs = 2000;
  SlurmConf conf;
  std::string error;
  ASSERT_TRUE(ReadSlurmConfFile(test::DataPath("conf_clean.conf"), &conf, &error));
  conf.params.weight_fairshare = 1500;
  EXPECT_TRUE(Finds(CheckSlurmConf(conf, many_users), Severity::kWarning, "PriorityWeightFairshare",
                    "number of user associations"));
}

TEST(CheckConfig, NoDecayWithoutResetPeriod) {
  CheckReport r = Check("conf_no_decay.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityDecayHalfLife", "refuses to start")) << Dump(r);
}

TEST(CheckConfig, ResetPeriodComparableToHalfLife) {
  CheckReport r = Check("conf_reset_vs_half_life.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityUsageResetPeriod", "WEEKLY")) << Dump(r);
}

TEST(CheckConfig, MalformedPriorityParameters) {
  CheckReport r = Check("conf_bad_params.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityParameters", "fairshar")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityParameters", "soon")) << Dump(r);
}

TEST(CheckConfig, WrongPriorityType) {
  CheckReport r = Check("conf_wrong_type.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityType", "priority/basic")) << Dump(r);
}

TEST(CheckConfig, DampeningFactorZero) {
  CheckReport r = Check("conf_damp_zero.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "FairShareDampeningFactor")) << Dump(r);
}

TEST(CheckConfig, MalformedTresWeights) {
  CheckReport r = Check("conf_bad_tres.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeightTRES", "foo")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeightTRES", "1X")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityWeightTRES", "gres/gpu=")) << Dump(r);
}

TEST(CheckConfig, UnknownPriorityFlag) {
  CheckReport r = Check("conf_unknown_flag.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityFlags", "SMALL_RELATIVE_TOTIME")) << Dump(r);
}

TEST(CheckConfig, BadTimes) {
  CheckReport r = Check("conf_bad_time.conf");
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityDecayHalfLife", "7days")) << Dump(r);
  EXPECT_TRUE(Finds(r, Severity::kError, "PriorityUsageResetPeriod", "FORTNIGHTLY")) << Dump(r);
}

TEST(CheckConfig, RangedTreeDepthBeyondFairshareWeight) {
  CheckOptions shallow, deep;
  shallow.tree_depth = 16;  // 2^-16 * 100000 = 1.5 >= 1
  deep.tree_depth = 17;     // 2^-17 * 100000 = 0.76 < 1
  EXPECT_FALSE(Finds(Check("conf_clean.conf", shallow), Severity::kWarning, "PriorityWeightFairshare"));
  CheckReport r = Check("conf_clean.conf", deep);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityWeightFairshare", "depth 17")) << Dump(r);
  EXPECT_EQ(r.errors(), 0);
}

}  // namespace
}  // namespace fairway
