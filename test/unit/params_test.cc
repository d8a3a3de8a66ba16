// SPDX-License-Identifier: GPL-2.0-or-later
// PriorityParameters parsing, Slurm time strings, Params::Mode/WeightSum and
// Diagnostic formatting.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "diagnostic.h"
#include "fairshare.h"
#include "params.h"

namespace fairway {
namespace {

// A Params whose every PriorityParameters-controlled field differs from the
// defaults, so "unchanged" checks cannot pass by accident.
Params Customised() {
  Params p;
  p.mode_override = FairshareMode::kDepthOblivious;
  p.planned_use_interval_s = 7200;
  p.planned_use_capacity = 64;
  p.planned_use_charge = PlannedUseCharge::kStart;
  return p;
}

void ExpectSameParameters(const Params& a, const Params& b) {
  EXPECT_EQ(a.mode_override, b.mode_override);
  EXPECT_EQ(a.planned_use_interval_s, b.planned_use_interval_s);
  EXPECT_EQ(a.planned_use_capacity, b.planned_use_capacity);
  EXPECT_EQ(a.planned_use_charge, b.planned_use_charge);
  EXPECT_EQ(a.flags, b.flags);
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---- fairshare= -------------------------------------------------------------

TEST(Params, FairshareKeySelectsEachAvailableMode) {
  struct Case { const char* text; FairshareMode mode; };
  for (const Case& c : {Case{"fairshare=classic", FairshareMode::kClassic},
                        Case{"fairshare=no_fair_tree", FairshareMode::kClassic},
                        Case{"fairshare=depth_oblivious", FairshareMode::kDepthOblivious},
                        Case{"fairshare=fair_tree", FairshareMode::kFairTree},
                        Case{"FairShare=FAIR_TREE", FairshareMode::kFairTree}}) {
    Params p;
    p.flags = 0;  // PriorityFlags alone would say classic
    Diagnostics d = ParsePriorityParameters(c.text, &p);
    EXPECT_TRUE(d.empty()) << c.text;
    ASSERT_TRUE(p.mode_override.has_value()) << c.text;
    EXPECT_EQ(*p.mode_override, c.mode) << c.text;
    EXPECT_EQ(p.Mode(), c.mode) << c.text;
  }
}

TEST(Params, RangedAndPlannedUseAreSelectable) {
  for (auto [text, mode] : {std::pair{"ranged", FairshareMode::kRanged},
                            std::pair{"planned_use", FairshareMode::kPlannedUse},
                            std::pair{"Planned_Use", FairshareMode::kPlannedUse}}) {
    Params p;
    p.mode_override = FairshareMode::kClassic;
    Diagnostics d = ParsePriorityParameters(std::string("fairshare=") + text, &p);
    EXPECT_TRUE(d.empty()) << text;
    ASSERT_TRUE(p.mode_override.has_value()) << text;
    EXPECT_EQ(*p.mode_override, mode) << text;
    EXPECT_EQ(p.Mode(), mode) << text;
  }
  // A PriorityParameters mode overrides the fair-tree flags either way.
  Params p;
  p.flags = kFlagDepthOblivious;
  Diagnostics d = ParsePriorityParameters("fairshare=ranged", &p);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(p.Mode(), FairshareMode::kRanged);
  EXPECT_TRUE(SharesNormalizedLikeFairTree(p.Mode()));
}

TEST(Params, BadFairshareValueNamesKeyAndValueAndKeepsMode) {
  Params p = Customised();
  const Params before = p;
  Diagnostics d = ParsePriorityParameters("fairshare=fairtree", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(HasErrors(d));
  EXPECT_TRUE(Contains(d[0].value, "fairshare")) << d[0].value;
  EXPECT_TRUE(Contains(d[0].value, "fairtree")) << d[0].value;
  std::string text = d[0].Format();
  EXPECT_TRUE(Contains(text, "'fairshare'")) << text;
  EXPECT_TRUE(Contains(text, "'fairtree'")) << text;
  EXPECT_TRUE(Contains(text, "depth_oblivious")) << text;  // the kept mode
  ExpectSameParameters(p, before);
}

// ---- planned_use_* -----------------------------------------------------------

TEST(Params, PlannedUseIntervalAcceptsSlurmTimeStrings) {
  struct Case { const char* value; int64_t seconds; };
  // Hand-computed: 1 day = 86400 s; bare numbers are minutes; m:s; d-h.
  for (const Case& c : {Case{"1-00:00:00", 86400}, Case{"90", 5400}, Case{"2:30", 150},
                        Case{"1:00:00", 3600}, Case{"2-12", 2 * 86400 + 12 * 3600},
                        Case{"0:45", 45}}) {
    Params p;
    Diagnostics d = ParsePriorityParameters(std::string("planned_use_interval=") + c.value, &p);
    EXPECT_TRUE(d.empty()) << c.value;
    EXPECT_EQ(p.planned_use_interval_s, c.seconds) << c.value;
  }
}

TEST(Params, BadPlannedUseIntervalKeepsPreviousValue) {
  for (const char* value : {"0", "0:00", "abc", "-5", "1:2:3:4", "UNLIMITED", "1.5", ""}) {
    Params p = Customised();
    const Params before = p;
    Diagnostics d = ParsePriorityParameters(std::string("planned_use_interval=") + value, &p);
    ASSERT_EQ(d.size(), 1u) << value;
    EXPECT_TRUE(Contains(d[0].message, "planned_use_interval")) << d[0].message;
    EXPECT_TRUE(Contains(d[0].fallback, "7200")) << d[0].fallback;  // the kept value
    ExpectSameParameters(p, before);
  }
}

TEST(Params, PlannedUseCapacityAndCharge) {
  Params p;
  Diagnostics d = ParsePriorityParameters(
      "planned_use_capacity=1234.5,planned_use_charge=start", &p);
  EXPECT_TRUE(d.empty());
  EXPECT_DOUBLE_EQ(p.planned_use_capacity, 1234.5);
  EXPECT_EQ(p.planned_use_charge, PlannedUseCharge::kStart);
  d = ParsePriorityParameters("planned_use_charge=ACCRUE", &p);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(p.planned_use_charge, PlannedUseCharge::kAccrue);
}

TEST(Params, BadCapacityAndChargeKeepPreviousValues) {
  for (const char* item : {"planned_use_capacity=0", "planned_use_capacity=-3",
                           "planned_use_capacity=abc", "planned_use_capacity=nan",
                           "planned_use_capacity=inf", "planned_use_capacity=1e400",
                           "planned_use_capacity=12 cpus", "planned_use_charge=later",
                           "planned_use_charge="}) {
    Params p = Customised();
    const Params before = p;
    Diagnostics d = ParsePriorityParameters(item, &p);
    ASSERT_EQ(d.size(), 1u) << item;
    EXPECT_EQ(d[0].value, item);  // key=value, as written
    EXPECT_FALSE(d[0].fallback.empty()) << item;
    ExpectSameParameters(p, before);
  }
  // The charge fallback names what is kept.
  Params p = Customised();
  Diagnostics d = ParsePriorityParameters("planned_use_charge=later", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(Contains(d[0].fallback, "start")) << d[0].fallback;
}

// ---- unknown keys and malformed items -----------------------------------------

TEST(Params, UnknownKeyIsNamedAndIgnored) {
  Params p = Customised();
  const Params before = p;
  Diagnostics d = ParsePriorityParameters("fairshar=classic", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(Contains(d[0].message, "fairshar")) << d[0].message;
  EXPECT_TRUE(Contains(d[0].fallback, "ignored; known keys")) << d[0].fallback;
  for (const char* key : {"fairshare", "planned_use_interval", "planned_use_capacity",
                          "planned_use_charge"}) {
    EXPECT_TRUE(Contains(d[0].fallback, key)) << key;
  }
  EXPECT_TRUE(Contains(d[0].Format(), "PriorityParameters: unknown key 'fairshar'"))
      << d[0].Format();
  ExpectSameParameters(p, before);
}

TEST(Params, EmptyAndWhitespaceOnlyTextChangesNothing) {
  for (const char* text : {"", "   ", ",,", " , ,\t,"}) {
    Params p = Customised();
    const Params before = p;
    EXPECT_TRUE(ParsePriorityParameters(text, &p).empty()) << "'" << text << "'";
    ExpectSameParameters(p, before);
  }
}

TEST(Params, WhitespaceAroundKeysValuesAndEmptyItemsIsTolerated) {
  Params p;
  Diagnostics d = ParsePriorityParameters(
      " fairshare = classic ,, planned_use_interval =\t2:30 ,planned_use_charge= start,", &p);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(p.Mode(), FairshareMode::kClassic);
  EXPECT_EQ(p.planned_use_interval_s, 150);
  EXPECT_EQ(p.planned_use_charge, PlannedUseCharge::kStart);
}

TEST(Params, ItemWithoutEqualsSignIsReportedAndOthersStillApply) {
  Params p;
  Diagnostics d = ParsePriorityParameters("classic,planned_use_interval=10", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].value, "classic");
  EXPECT_TRUE(Contains(d[0].message, "key=value")) << d[0].message;
  EXPECT_EQ(d[0].fallback, "ignored");
  EXPECT_FALSE(p.mode_override.has_value());
  EXPECT_EQ(p.planned_use_interval_s, 600);  // the valid item after it applied
}

TEST(Params, OneDiagnosticPerBadItemInOrder) {
  Params p;
  Diagnostics d = ParsePriorityParameters("a=1,fairshare=x,b,planned_use_charge=y", &p);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_TRUE(Contains(d[0].message, "'a'"));
  EXPECT_TRUE(Contains(d[1].message, "'fairshare'"));
  EXPECT_EQ(d[2].value, "b");
  EXPECT_TRUE(Contains(d[3].message, "'planned_use_charge'"));
}

TEST(Params, LaterItemOverridesEarlierOne) {
  Params p;
  EXPECT_TRUE(ParsePriorityParameters("fairshare=classic,fairshare=depth_oblivious", &p).empty());
  EXPECT_EQ(p.Mode(), FairshareMode::kDepthOblivious);
}

TEST(Params, VeryLongAndNonAsciiValuesAreReportedVerbatim) {
  const std::string long_value(10000, 'x');
  Params p = Customised();
  const Params before = p;
  Diagnostics d = ParsePriorityParameters("fairshare=" + long_value, &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].value, "fairshare=" + long_value);
  ExpectSameParameters(p, before);

  const std::string accented = "cl\xc3\xa4ssic";  // "clässic" in UTF-8
  d = ParsePriorityParameters("fairshare=" + accented, &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(Contains(d[0].Format(), accented)) << d[0].Format();
  ExpectSameParameters(p, before);

  d = ParsePriorityParameters("f\xc3\xa4irshare=classic", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(Contains(d[0].fallback, "known keys"));
  ExpectSameParameters(p, before);
}

TEST(Params, HugeNumbersAreRejectedNotWrapped) {
  Params p = Customised();
  const Params before = p;
  // 10^18 minutes is 6*10^19 s: beyond int64, so it cannot be stored exactly.
  Diagnostics d = ParsePriorityParameters("planned_use_interval=1000000000000000000", &p);
  EXPECT_EQ(d.size(), 1u);
  d = ParsePriorityParameters("planned_use_interval=99999999999999999999999", &p);
  EXPECT_EQ(d.size(), 1u);
  d = ParsePriorityParameters("planned_use_interval=999999999999-00:00:00", &p);
  EXPECT_EQ(d.size(), 1u);
  ExpectSameParameters(p, before);
  // A large but finite capacity is a valid number of billing units.
  d = ParsePriorityParameters("planned_use_capacity=1e300", &p);
  EXPECT_TRUE(d.empty());
  EXPECT_DOUBLE_EQ(p.planned_use_capacity, 1e300);
}

// ---- Params::Mode and WeightSum ---------------------------------------------

TEST(Params, ModeFollowsPriorityFlagsUnlessOverridden) {
  Params p;
  EXPECT_EQ(p.flags, static_cast<uint32_t>(kFlagFairTree));  // slurm.conf default (read_config.c)
  EXPECT_EQ(p.Mode(), FairshareMode::kFairTree);
  p.flags = kFlagDepthOblivious;
  EXPECT_EQ(p.Mode(), FairshareMode::kDepthOblivious);
  p.flags = 0;
  EXPECT_EQ(p.Mode(), FairshareMode::kClassic);
  p.flags = kFlagMaxTres | kFlagIncrOnly;  // unrelated bits: still classic
  EXPECT_EQ(p.Mode(), FairshareMode::kClassic);
  p.flags = kFlagFairTree;
  p.mode_override = FairshareMode::kClassic;
  EXPECT_EQ(p.Mode(), FairshareMode::kClassic);
  p.flags = 0;
  p.mode_override = FairshareMode::kFairTree;
  EXPECT_EQ(p.Mode(), FairshareMode::kFairTree);
}

TEST(Params, WeightSumIs64BitAndExcludesTres) {
  Params p;
  EXPECT_EQ(p.WeightSum(), 0u);
  p.weight_age = 1;
  p.weight_assoc = 2;
  p.weight_fairshare = 4;
  p.weight_job_size = 8;
  p.weight_partition = 16;
  p.weight_qos = 32;
  p.weight_tres = {1000.0};
  EXPECT_EQ(p.WeightSum(), 63u);
  p.weight_age = p.weight_assoc = p.weight_fairshare = p.weight_job_size =
      p.weight_partition = p.weight_qos = 0xffffffffu;
  // 6 * (2^32 - 1) = 25769803770, beyond 32 bits.
  EXPECT_EQ(p.WeightSum(), 25769803770ull);
  p.weight_age = p.weight_assoc = p.weight_fairshare = p.weight_job_size =
      p.weight_partition = p.weight_qos = 0;
  p.weight_age = 0x80000000u;
  p.weight_qos = 0x80000000u;
  EXPECT_EQ(p.WeightSum(), 4294967296ull);  // 2^31 + 2^31 = 2^32, no wrap to 0
}

TEST(Params, FairshareModeNames) {
  EXPECT_STREQ(FairshareModeName(FairshareMode::kClassic), "classic");
  EXPECT_STREQ(FairshareModeName(FairshareMode::kDepthOblivious), "depth_oblivious");
  EXPECT_STREQ(FairshareModeName(FairshareMode::kFairTree), "fair_tree");
  EXPECT_STREQ(FairshareModeName(FairshareMode::kRanged), "ranged");
  EXPECT_STREQ(FairshareModeName(FairshareMode::kPlannedUse), "planned_use");
}

// ---- ParseSlurmTimeSeconds ----------------------------------------------------

TEST(Params, SlurmTimeForms) {
  // Slurm's time_str2secs (parse_time.c): one number = minutes; two =
  // minutes:seconds; three = hours:minutes:seconds; with '-' days first.
  EXPECT_EQ(ParseSlurmTimeSeconds("90"), 5400);
  EXPECT_EQ(ParseSlurmTimeSeconds("0"), 0);
  EXPECT_EQ(ParseSlurmTimeSeconds("2:30"), 150);
  EXPECT_EQ(ParseSlurmTimeSeconds("1:02:03"), 3723);
  EXPECT_EQ(ParseSlurmTimeSeconds("1-2"), 86400 + 7200);
  EXPECT_EQ(ParseSlurmTimeSeconds("1-2:03"), 86400 + 7200 + 180);
  EXPECT_EQ(ParseSlurmTimeSeconds("1-02:03:04"), 86400 + 7200 + 180 + 4);
  EXPECT_EQ(ParseSlurmTimeSeconds("1-00:00:00"), 86400);
  EXPECT_EQ(ParseSlurmTimeSeconds("0:90"), 90);  // fields are not range-checked
  EXPECT_EQ(ParseSlurmTimeSeconds("  15  "), 900);
}

TEST(Params, SlurmTimeRejections) {
  for (const char* text : {"", "  ", "abc", "1h", "-1", "+5", "1.5", "1-", "-", ":", "1:",
                           ":30", "1:2:3:4", "1-2:3:4:5", "1-2-3", "1--2", "UNLIMITED",
                           "INFINITE", "1 2", "1e3", "99999999999999999999"}) {
    EXPECT_FALSE(ParseSlurmTimeSeconds(text).has_value()) << "'" << text << "'";
  }
}

// ---- Diagnostic ----------------------------------------------------------------

TEST(Diagnostic, FormatAppendsValueOnlyWhenMessageLacksIt) {
  Diagnostic d;
  d.setting = "PriorityFlags";
  d.value = "FOO";
  d.message = "unknown flag";
  d.fallback = "ignored";
  EXPECT_EQ(d.Format(), "PriorityFlags: unknown flag 'FOO' (ignored)");
  d.message = "unknown flag 'FOO'";
  EXPECT_EQ(d.Format(), "PriorityFlags: unknown flag 'FOO' (ignored)");
  d.fallback.clear();
  EXPECT_EQ(d.Format(), "PriorityFlags: unknown flag 'FOO'");
  d.value.clear();
  d.message = "no value";
  EXPECT_EQ(d.Format(), "PriorityFlags: no value");
}

TEST(Diagnostic, ParsedUnknownKeyFormatsAsDocumented) {
  Params p;
  Diagnostics d = ParsePriorityParameters("fairshar=x", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].Format(),
            "PriorityParameters: unknown key 'fairshar' (ignored; known keys: fairshare, "
            "planned_use_interval, planned_use_capacity, planned_use_charge, usage_bootstrap, "
            "fairshare_clusters, fairshare_sync, change_check)");
}

TEST(Params, ChangeCheckSecondsDefaultTwoZeroOff) {
  Params p;
  EXPECT_EQ(p.change_check_s, 2);
  EXPECT_TRUE(ParsePriorityParameters("change_check=0", &p).empty());
  EXPECT_EQ(p.change_check_s, 0);
  EXPECT_TRUE(ParsePriorityParameters("change_check=10", &p).empty());
  EXPECT_EQ(p.change_check_s, 10);
  // A bad value keeps the previous one, and says which.
  Diagnostics d = ParsePriorityParameters("change_check=soon", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(p.change_check_s, 10);
  EXPECT_NE(d[0].Format().find("using 10 s"), std::string::npos) << d[0].Format();
  d = ParsePriorityParameters("change_check=3601", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(p.change_check_s, 10);
}

TEST(Diagnostic, HasErrorsIgnoresWarnings) {
  Diagnostics d;
  EXPECT_FALSE(HasErrors(d));
  Diagnostic w;
  w.severity = Severity::kWarning;
  d.push_back(w);
  EXPECT_FALSE(HasErrors(d));
  Diagnostic e;
  e.severity = Severity::kError;
  d.push_back(e);
  EXPECT_TRUE(HasErrors(d));
}

}  // namespace
}  // namespace fairway
