// SPDX-License-Identifier: GPL-2.0-or-later
// One fixture slurm.conf per class of mistake (test/unit/data/conf_*.conf).
#include "check_config.h"

#include <gtest/gtest.h>

#include <sstream>

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

// The first finding about this setting, or null.
const ConfDiagnostic* Finding(const CheckReport& r, const std::string& setting) {
  for (const ConfDiagnostic& d : r.findings) {
    if (d.diagnostic.setting == setting) return &d;
  }
  return nullptr;
}

struct Checked {
  SlurmConf conf;
  CheckReport report;
  ControllerClaims claims;
};

// check-config on slurm.conf text.
Checked CheckText(const std::string& text) {
  Checked c;
  std::istringstream in(text);
  c.conf = ParseSlurmConf(in, "test.conf");
  c.report = CheckSlurmConf(c.conf, CheckOptions());
  c.claims = ClaimsOf(c.report, c.conf);
  return c;
}

const char kBase[] =
    "PriorityType=priority/fairway\nPriorityWeightFairshare=100000\nPriorityWeightAge=1000\n";

std::string Dump(const CheckReport& r) {
  std::string s;
  for (const ConfDiagnostic& d : r.findings) s += std::to_string(d.line) + ": " + d.diagnostic.Format() + "\n";
  return s;
}

TEST(CheckConfig, SlurmReleaseNames) {
  EXPECT_EQ(ParseSlurmRelease("25.05"), SlurmVersionNum(25, 5, 0));
  EXPECT_EQ(ParseSlurmRelease("24.11.5"), SlurmVersionNum(24, 11, 5));
  EXPECT_EQ(ParseSlurmRelease("26.05.3"), SlurmVersionNum(26, 5, 3));
  EXPECT_EQ(ParseSlurmRelease("22.05"), kSlurm2205);
  EXPECT_FALSE(ParseSlurmRelease("21.08"));   // before Fairway's first
  EXPECT_FALSE(ParseSlurmRelease("26.11"));   // after its last
  EXPECT_FALSE(ParseSlurmRelease("25"));
  EXPECT_FALSE(ParseSlurmRelease("25.05."));
  EXPECT_FALSE(ParseSlurmRelease("25.05.x"));
  EXPECT_FALSE(ParseSlurmRelease("25.05.8.1"));
  EXPECT_FALSE(ParseSlurmRelease(""));
  EXPECT_EQ(SlurmReleaseName(SlurmVersionNum(25, 5, 8)), "25.05");
}

TEST(CheckConfig, CleanConfigPasses) {
  CheckReport r = Check("conf_clean.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  EXPECT_EQ(r.warnings(), 0) << Dump(r);
  EXPECT_FALSE(r.info.empty());  // resolutions are reported as info
}

// fairshare_clusters: bad lists and this cluster's own name are errors
// (the plugin logs them and counts no other cluster), wherever ClusterName
// stands; names slurmdbd does not know are warnings when it was asked.
TEST(CheckConfig, FairshareClusters) {
  Checked c = CheckText(std::string(kBase) +
                        "PriorityParameters=fairshare_clusters=gpu:0,cloud\nClusterName=Main\n");
  EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityParameters", "scale '0'")) << Dump(c.report);
  c = CheckText(std::string(kBase) + "PriorityParameters=fairshare_clusters=main,gpu\nClusterName=Main\n");
  EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityParameters", "is this cluster")) << Dump(c.report);
  std::istringstream in(std::string(kBase) +
                        "ClusterName=main\nPriorityParameters=fairshare_clusters=gpu:2.5,cloud\n");
  const SlurmConf conf = ParseSlurmConf(in, "test.conf");
  ASSERT_EQ(conf.params.fairshare_clusters.size(), 2u);
  CheckOptions options;
  options.known_clusters = std::vector<std::string>{"main", "gpu"};
  CheckReport r = CheckSlurmConf(conf, options);
  EXPECT_TRUE(Finds(r, Severity::kWarning, "PriorityParameters", "no cluster 'cloud'")) << Dump(r);
  EXPECT_FALSE(Finds(r, Severity::kWarning, "PriorityParameters", "no cluster 'gpu'")) << Dump(r);
  options.known_clusters.reset();
  options.clusters_not_checked = "--no-slurmdbd";
  r = CheckSlurmConf(conf, options);
  EXPECT_EQ(r.warnings(), 0) << Dump(r);
  bool said = false;
  for (const CheckInfo& i : r.info) said |= i.text.find("not checked against slurmdbd (--no-slurmdbd)") != std::string::npos;
  EXPECT_TRUE(said);
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
  const ConfDiagnostic* d = Finding(r, "PriorityDecayHalfLife");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->multifactor->starts);
  EXPECT_FALSE(d->fairway->starts);
}

// Issue 38: with PriorityUsageResetPeriod=NONE written out, both plugins
// start; Slurm refuses only when the line is absent.
TEST(CheckConfig, NoDecayWithResetNoneWrittenStarts) {
  Checked c = CheckText(std::string(kBase) +
                        "PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE\n");
  EXPECT_EQ(c.report.errors(), 0) << Dump(c.report);
  EXPECT_TRUE(Finds(c.report, Severity::kWarning, "PriorityDecayHalfLife", "only ever grows"));
  EXPECT_TRUE(c.claims.multifactor_starts);
  EXPECT_TRUE(c.claims.fairway_starts);
  EXPECT_EQ(c.claims.decay_half_life_s, 0);
}

TEST(CheckConfig, MaxAgeInfiniteStartsWithSlurmsNumber) {
  Checked c = CheckText(std::string(kBase) + "PriorityMaxAge=INFINITE\n");
  EXPECT_EQ(c.report.errors(), 0) << Dump(c.report);
  EXPECT_TRUE(Finds(c.report, Severity::kWarning, "PriorityMaxAge", "49710-06:27:16"))
      << Dump(c.report);
  EXPECT_TRUE(c.claims.multifactor_starts && c.claims.fairway_starts);
  EXPECT_EQ(c.claims.max_age_s, 4294967236);
}

TEST(CheckConfig, MaxAgeHugeWrapsAsInSlurm) {
  Checked c = CheckText(std::string(kBase) + "PriorityMaxAge=999999-0\n");
  EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityMaxAge", "86399913600"))
      << Dump(c.report);
  EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityMaxAge", "5793-14:35:00"));
  EXPECT_TRUE(c.claims.multifactor_starts && c.claims.fairway_starts);
  EXPECT_EQ(c.claims.max_age_s, 500567700);
  // A larger value wraps negative: Slurm refuses it.
  Checked neg = CheckText(std::string(kBase) + "PriorityMaxAge=30000-0\n");
  EXPECT_TRUE(Finds(neg.report, Severity::kError, "PriorityMaxAge", "refuses to start"));
  EXPECT_FALSE(neg.claims.multifactor_starts || neg.claims.fairway_starts);
}

TEST(CheckConfig, MaxAgeZeroNegativeAndGarbage) {
  Checked zero = CheckText(std::string(kBase) + "PriorityMaxAge=0\n");
  EXPECT_EQ(zero.report.errors(), 0) << Dump(zero.report);
  EXPECT_TRUE(Finds(zero.report, Severity::kWarning, "PriorityMaxAge", "whole age weight"));
  EXPECT_TRUE(zero.claims.fairway_starts);
  EXPECT_EQ(zero.claims.max_age_s, 0);
  for (const char* bad : {"-5", "abc", "7days"}) {
    Checked c = CheckText(std::string(kBase) + "PriorityMaxAge=" + bad + "\n");
    EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityMaxAge", "refuses to start")) << bad;
    EXPECT_FALSE(c.claims.multifactor_starts || c.claims.fairway_starts) << bad;
  }
  // "-1" is Slurm's INFINITE.
  EXPECT_EQ(CheckText(std::string(kBase) + "PriorityMaxAge=-1\n").claims.max_age_s, 4294967236);
}

TEST(CheckConfig, CalcPeriodZeroRefused) {
  Checked c = CheckText(std::string(kBase) + "PriorityCalcPeriod=0\n");
  EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityCalcPeriod", "refuses to start"));
  EXPECT_FALSE(c.claims.multifactor_starts || c.claims.fairway_starts);
  Checked rounded = CheckText(std::string(kBase) + "PriorityCalcPeriod=0:30\n");
  EXPECT_EQ(rounded.report.errors(), 0) << Dump(rounded.report);
  EXPECT_EQ(rounded.claims.calc_period_s, 60);
}

// Issue 38: a bad PriorityWeightTRES stops multifactor only.
TEST(CheckConfig, BadTresWeightsMultifactorExitsFairwayRunsWithoutTres) {
  Checked fw = CheckText(std::string(kBase) + "PriorityWeightTRES=cpu=abc\n");
  const ConfDiagnostic* d = Finding(fw.report, "PriorityWeightTRES");
  ASSERT_NE(d, nullptr) << Dump(fw.report);
  EXPECT_EQ(d->diagnostic.severity, Severity::kError);
  EXPECT_FALSE(d->multifactor->starts);
  EXPECT_TRUE(d->fairway->starts);
  EXPECT_NE(d->fairway->does.find("TRES factor off"), std::string::npos);
  EXPECT_FALSE(fw.claims.multifactor_starts);
  EXPECT_TRUE(fw.claims.fairway_starts);
  EXPECT_EQ(fw.claims.tres_factors, "off");
  EXPECT_EQ(d->diagnostic.fallback.find("refuses"), std::string::npos);
  Checked mf = CheckText("PriorityType=priority/multifactor\nPriorityWeightTRES=cpu=abc\n");
  EXPECT_TRUE(Finds(mf.report, Severity::kError, "PriorityWeightTRES", "refuses to start"));
  Checked good = CheckText(std::string(kBase) + "PriorityWeightTRES=cpu=1000\n");
  EXPECT_EQ(good.claims.tres_factors, "on");
  EXPECT_EQ(CheckText(kBase).claims.tres_factors, "none");
}

TEST(CheckConfig, UnknownFlagsAndSubstringFlags) {
  Checked c = CheckText(std::string(kBase) + "PriorityFlags=BOGUS,NO_FAIR_TREES\n");
  EXPECT_EQ(c.report.errors(), 0) << Dump(c.report);
  EXPECT_TRUE(Finds(c.report, Severity::kWarning, "PriorityFlags", "ignores it"));
  EXPECT_TRUE(Finds(c.report, Severity::kWarning, "PriorityFlags", "sets NO_FAIR_TREE"));
  EXPECT_EQ(c.conf.params.flags & kFlagFairTree, 0u);  // Slurm's substring match
  EXPECT_TRUE(c.claims.multifactor_starts && c.claims.fairway_starts);
}

TEST(CheckConfig, PriorityParametersOnlyFairwayReads) {
  Checked fw = CheckText(std::string(kBase) + "PriorityParameters=fairshar=ranged\n");
  const ConfDiagnostic* d = Finding(fw.report, "PriorityParameters");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->diagnostic.severity, Severity::kError);
  EXPECT_TRUE(d->fairway->starts && d->multifactor->starts);
  EXPECT_NE(d->fairway->does.find("unknown key 'fairshar'"), std::string::npos);
  Checked mf = CheckText("PriorityType=priority/multifactor\nPriorityParameters=fairshar=ranged\n");
  EXPECT_EQ(mf.report.errors(), 0) << Dump(mf.report);
}

TEST(CheckConfig, WeightsAsSlurmReadsThem) {
  Checked octal = CheckText(std::string(kBase) + "PriorityWeightQOS=010\n");
  EXPECT_EQ(octal.conf.params.weight_qos, 8u);
  EXPECT_TRUE(Finds(octal.report, Severity::kWarning, "PriorityWeightQOS", "as 8"));
  for (const char* bad : {"-1", "abc", "4294967296"}) {
    Checked c = CheckText(std::string(kBase) + "PriorityWeightQOS=" + bad + "\n");
    EXPECT_TRUE(Finds(c.report, Severity::kError, "PriorityWeightQOS", "refuses to start")) << bad;
    EXPECT_FALSE(c.claims.fairway_starts) << bad;
  }
  Checked sum = CheckText(std::string(kBase) + "PriorityWeightQOS=4294967295\n");
  EXPECT_TRUE(Finds(sum.report, Severity::kError, "PriorityWeight*", "clamped"));
  EXPECT_TRUE(sum.claims.multifactor_starts && sum.claims.fairway_starts);
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
  // Slurm accepts 0. Under Fair Tree (the default) neither plugin uses it.
  CheckReport r = Check("conf_damp_zero.conf");
  EXPECT_EQ(r.errors(), 0) << Dump(r);
  const ConfDiagnostic* d = Finding(r, "FairShareDampeningFactor");
  ASSERT_NE(d, nullptr) << Dump(r);
  EXPECT_TRUE(d->multifactor->starts);
  EXPECT_TRUE(d->fairway->starts);
  EXPECT_NE(d->fairway->does.find("uses 1"), std::string::npos);
  // With NO_FAIR_TREE the formula uses it: Fairway replaces it by 1.
  CheckReport classic = Check("conf_damp_zero_classic.conf");
  EXPECT_TRUE(Finds(classic, Severity::kError, "FairShareDampeningFactor")) << Dump(classic);
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
