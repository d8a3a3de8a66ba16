// SPDX-License-Identifier: GPL-2.0-or-later
#include "io/slurm_conf_reader.h"

#include <gtest/gtest.h>

#include <sstream>

#include "test_support.h"

namespace fairway {
namespace {

SlurmConf Parse(const std::string& text) {
  std::istringstream in(text);
  return ParseSlurmConf(in, "test.conf");
}

bool HasDiagnostic(const SlurmConf& conf, const std::string& setting, Severity severity, int line) {
  for (const ConfDiagnostic& d : conf.diagnostics) {
    if (d.diagnostic.setting == setting && d.diagnostic.severity == severity && d.line == line) return true;
  }
  return false;
}

TEST(SlurmConfReader, CleanFileReadsEverySetting) {
  SlurmConf conf;
  std::string error;
  ASSERT_TRUE(ReadSlurmConfFile(test::DataPath("conf_clean.conf"), &conf, &error)) << error;
  EXPECT_TRUE(conf.diagnostics.empty()) << conf.diagnostics[0].diagnostic.Format();
  const Params& p = conf.params;
  EXPECT_EQ(p.weight_age, 1000u);
  EXPECT_EQ(p.weight_fairshare, 100000u);
  EXPECT_EQ(p.weight_qos, 10000u);
  EXPECT_EQ(p.decay_half_life_s, 7 * 86400);
  EXPECT_EQ(p.calc_period_s, 300);
  EXPECT_EQ(p.max_age_s, 7 * 86400);
  EXPECT_EQ(p.flags, kFlagFairTree | kFlagSizeRelative | kFlagMaxTres);
  EXPECT_EQ(conf.priority_type, "priority/fairway");
  ASSERT_EQ(conf.tres_weights.size(), 3u);
  EXPECT_EQ(conf.tres_weights[0].name, "cpu");
  EXPECT_DOUBLE_EQ(conf.tres_weights[0].weight, 2000);
  EXPECT_DOUBLE_EQ(conf.tres_weights[1].weight, 1.0 / 1024);  // mem=1G: per MB
  EXPECT_EQ(conf.tres_weights[2].name, "gres/gpu");
  EXPECT_EQ(conf.node_count, 6u);
  EXPECT_EQ(conf.cpu_count, 5u * 8 + 64);
  ASSERT_EQ(conf.notes.size(), 1u);
  EXPECT_NE(conf.notes[0].find("line 4"), std::string::npos);
}

TEST(SlurmConfReader, BadAndOverflowingWeightsAreErrorsNamingLine) {
  SlurmConf conf = Parse("PriorityWeightAge=12abc\nPriorityWeightQOS=4294967296\nPriorityWeightJobSize=4294967295\n");
  EXPECT_TRUE(HasDiagnostic(conf, "PriorityWeightAge", Severity::kError, 1));
  EXPECT_TRUE(HasDiagnostic(conf, "PriorityWeightQOS", Severity::kError, 2));
  EXPECT_EQ(conf.params.weight_job_size, 4294967295u);
  EXPECT_EQ(conf.diagnostics.size(), 2u);
}

TEST(SlurmConfReader, FlagsAsSlurmReadsThem) {
  EXPECT_EQ(Parse("PriorityFlags=NO_FAIR_TREE").params.flags, 0u);
  EXPECT_EQ(Parse("PriorityFlags=depth_oblivious").params.flags, kFlagDepthOblivious);
  EXPECT_EQ(Parse("PriorityFlags=NO_NORMAL_ALL,INCR_ONLY").params.flags,
            kFlagFairTree | kFlagNoNormalAll | kFlagIncrOnly);
  SlurmConf conf = Parse("PriorityFlags=MAX_TRES,BOGUS");
  EXPECT_EQ(conf.params.flags, kFlagFairTree | kFlagMaxTres);
  EXPECT_TRUE(HasDiagnostic(conf, "PriorityFlags", Severity::kWarning, 1));
}

// PRIORITY_FLAGS_MAX_TRES_GRES (25.05+): read_config.c of 25.05 sets it for
// a text holding MAX_TRES_GRES, and then not MAX_TRES; an older release
// finds MAX_TRES in the same text (xstrcasestr).
TEST(SlurmConfReader, MaxTresGresByRelease) {
  auto parse = [](const std::string& text, uint32_t version) {
    std::istringstream in(text);
    return ParseSlurmConf(in, "test.conf", version);
  };
  const uint32_t v2411 = SlurmVersionNum(24, 11, 5), v2505 = SlurmVersionNum(25, 5, 0);
  SlurmConf old = parse("PriorityFlags=MAX_TRES_GRES", v2411);
  EXPECT_EQ(old.params.flags, kFlagFairTree | kFlagMaxTres);
  ASSERT_EQ(old.diagnostics.size(), 1u);
  EXPECT_NE(old.diagnostics[0].diagnostic.message.find("finds MAX_TRES in it"), std::string::npos)
      << old.diagnostics[0].diagnostic.message;
  EXPECT_EQ(old.diagnostics[0].fairway->does, "runs with MAX_TRES");

  SlurmConf now = parse("PriorityFlags=max_tres_gres", v2505);
  EXPECT_EQ(now.params.flags, kFlagFairTree | kFlagMaxTresGres);
  EXPECT_TRUE(now.diagnostics.empty());
  // Both named: Slurm keeps only MAX_TRES_GRES, and says nothing.
  SlurmConf both = parse("PriorityFlags=MAX_TRES,MAX_TRES_GRES", SlurmVersionNum(26, 5, 3));
  EXPECT_EQ(both.params.flags, kFlagFairTree | kFlagMaxTresGres);
  EXPECT_TRUE(HasDiagnostic(both, "PriorityFlags", Severity::kWarning, 1));
  EXPECT_EQ(parse("PriorityFlags=MAX_TRES", v2505).params.flags, kFlagFairTree | kFlagMaxTres);
  // A word holding MAX_TRES_GRES sets only it, from 25.05.
  SlurmConf word = parse("PriorityFlags=XMAX_TRES_GRES", v2505);
  EXPECT_EQ(word.params.flags, kFlagFairTree | kFlagMaxTresGres);
  ASSERT_EQ(word.diagnostics.size(), 1u);
  EXPECT_EQ(word.diagnostics[0].fairway->does, "runs with MAX_TRES_GRES");
  // The default is 22.05's reader.
  EXPECT_EQ(Parse("PriorityFlags=MAX_TRES_GRES").params.flags, kFlagFairTree | kFlagMaxTres);
}

TEST(SlurmConfReader, TimesAreMinutesOrSlurmTimeStrings) {
  SlurmConf conf = Parse("PriorityDecayHalfLife=90\nPriorityMaxAge=1-12\nPriorityCalcPeriod=2\n");
  EXPECT_EQ(conf.params.decay_half_life_s, 90 * 60);
  EXPECT_EQ(conf.params.max_age_s, 36 * 3600);
  EXPECT_EQ(conf.params.calc_period_s, 120);
  SlurmConf bad = Parse("PriorityDecayHalfLife=7days\nPriorityCalcPeriod=0\nPriorityUsageResetPeriod=fortnightly\n");
  EXPECT_TRUE(HasDiagnostic(bad, "PriorityDecayHalfLife", Severity::kError, 1));
  EXPECT_TRUE(HasDiagnostic(bad, "PriorityCalcPeriod", Severity::kError, 2));
  EXPECT_TRUE(HasDiagnostic(bad, "PriorityUsageResetPeriod", Severity::kError, 3));
}

TEST(SlurmConfReader, OtherSettings) {
  SlurmConf conf = Parse(
      "PriorityUsageResetPeriod=monthly\nPriorityFavorSmall=YES\nFairShareDampeningFactor=5\n"
      "PriorityParameters=fairshare=classic\nPriorityType=priority/multifactor\n");
  EXPECT_EQ(conf.params.reset_period, ResetPeriod::kMonthly);
  EXPECT_TRUE(conf.params.favor_small);
  EXPECT_EQ(conf.params.damp_factor, 5);
  EXPECT_EQ(conf.params.Mode(), FairshareMode::kClassic);
  EXPECT_EQ(conf.priority_type, "priority/multifactor");
  EXPECT_TRUE(conf.diagnostics.empty());
}

TEST(SlurmConfReader, PriorityParametersProblemsCarryTheLine) {
  SlurmConf conf = Parse("# comment\nPriorityParameters=fairshar=ranged\n");
  EXPECT_TRUE(HasDiagnostic(conf, "PriorityParameters", Severity::kError, 2));
}

TEST(SlurmConfReader, RepeatedSettingWarnsAndLastWins) {
  SlurmConf conf = Parse("PriorityWeightAge=1\nPriorityWeightAge=2\n");
  EXPECT_EQ(conf.params.weight_age, 2u);
  EXPECT_TRUE(HasDiagnostic(conf, "PriorityWeightAge", Severity::kWarning, 2));
}

TEST(SlurmConfReader, TresWeightsUnitsAndErrors) {
  Diagnostics d;
  const std::vector<std::string> configured = {"cpu", "mem", "license/matlab", "bb/x"};
  std::vector<TresWeight> w =
      ParseTresWeights("CPU=1000,Mem=0.25G,license/matlab=3K,bb/x=2kb", &d, configured);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_TRUE(d.empty());
  // As slurm_get_tres_weight_array: memory and burst buffer count in MB.
  EXPECT_DOUBLE_EQ(w[1].weight, 0.25 / 1024);
  EXPECT_DOUBLE_EQ(w[2].weight, 3.0 / 1024);
  EXPECT_DOUBLE_EQ(w[3].weight, 2.0);  // K is below MB: unchanged
  ParseTresWeights("foo=1,cpu=x,mem=1X,gres/gpu=,=3", &d);
  EXPECT_EQ(d.size(), 5u);
  // A TRES slurmctld does not track is as bad as a typo: Slurm's parser
  // cannot place its weight.
  d.clear();
  EXPECT_TRUE(ParseTresWeights("gres/gpu=5", &d).empty());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("AccountingStorageTRES"), std::string::npos);
  d.clear();
  EXPECT_EQ(ParseTresWeights("gres/gpu=5", &d, {"cpu", "gres/gpu"}).size(), 1u);
  EXPECT_TRUE(d.empty());
  // Negative weights: Slurm takes them as written; a warning, not an error.
  d.clear();
  EXPECT_EQ(ParseTresWeights("cpu=-1", &d).size(), 1u);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::kWarning);
}

TEST(SlurmConfReader, AccountingStorageTresAnywhereConfiguresTres) {
  SlurmConf conf = Parse("PriorityWeightTRES=cpu=1,gres/gpu=5\nAccountingStorageTRES=gres/gpu,license/x\n");
  EXPECT_TRUE(conf.diagnostics.empty());
  EXPECT_TRUE(conf.tres_weights_usable);
  EXPECT_EQ(conf.tres_weights.size(), 2u);
  SlurmConf bad = Parse("PriorityWeightTRES=cpu=1,gres/gpu=5\n");
  EXPECT_FALSE(bad.tres_weights_usable);
  EXPECT_TRUE(bad.tres_weights.empty());  // the whole string is dropped, as in Slurm
}

TEST(SlurmConfReader, HostListCounts) {
  EXPECT_EQ(CountHostList("n1"), 1u);
  EXPECT_EQ(CountHostList("n[1-3]"), 3u);
  EXPECT_EQ(CountHostList("n[01-10,15],gpu1"), 12u);
  EXPECT_EQ(CountHostList("r[1-2]n[1-4]"), 8u);
  EXPECT_FALSE(CountHostList("n[1-3"));
  EXPECT_FALSE(CountHostList("n[3-1]"));
}

}  // namespace
}  // namespace fairway
