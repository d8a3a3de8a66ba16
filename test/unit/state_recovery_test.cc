// SPDX-License-Identifier: GPL-2.0-or-later
// The recovery rule (state_recovery.h): every combination of a decay clock
// and an assoc_usage file that is sound, missing, damaged or implausible,
// and the parsers of both formats.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "decay.h"
#include "state_recovery.h"

namespace fairway {
namespace {

constexpr int64_t kNow = 1790000000;  // 2026-09
constexpr int64_t kCalc = 60;
constexpr uint16_t kV2205 = (38 << 8), kV2011 = (36 << 8);

std::string Be(uint64_t v, int width) {
  std::string s(width, '\0');
  for (int i = width - 1; i >= 0; --i) {
    s[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return s;
}

std::string PackStr(const std::string& text) { return Be(text.size() + 1, 4) + text + '\0'; }

// An assoc_usage as dump_assoc_mgr_state writes it.
std::string UsageBytes(int64_t saved_at, int records, uint16_t version = kV2205) {
  std::string b = Be(version, 2) + Be(static_cast<uint64_t>(saved_at), 8);
  for (int i = 0; i < records; ++i) {
    b += Be(static_cast<uint64_t>(i + 1), 4) + PackStr("812.000000") + PackStr("1=812") +
         Be(812, 4);
  }
  return b;
}

UsageFile Usage(int64_t saved_at) { return ParseAssocUsage(UsageBytes(saved_at, 3), kV2011, kV2205); }

DecayClock Clock(int64_t last_ran, int64_t last_reset = 0) {
  return ParseDecayClock(SerializeDecayClock(last_ran, last_reset));
}

DecayClock Missing() { return DecayClock{}; }

RecoveryDecision Decide(DecayClock clock, UsageFile usage, DecayClock old = DecayClock{},
                        int64_t configured_reset = 0) {
  RecoveryInput in;
  in.clock = clock;
  in.clock_old = old;
  in.usage = usage;
  in.now = kNow;
  in.calc_period_s = kCalc;
  in.configured_last_reset = configured_reset;
  return DecideRecovery(in);
}

// ---- parsers ------------------------------------------------------------

TEST(DecayClockParse, SixteenBytesRoundTrip) {
  DecayClock c = ParseDecayClock(SerializeDecayClock(kNow - 5, kNow - 86400));
  EXPECT_EQ(c.state, FileState::kOk);
  EXPECT_EQ(c.last_ran, kNow - 5);
  EXPECT_EQ(c.last_reset, kNow - 86400);
}

TEST(DecayClockParse, EverySizeButSixteenIsDamage) {
  const std::string good = SerializeDecayClock(kNow, 0);
  for (size_t n : {0u, 1u, 7u, 15u, 17u, 43u, 4096u}) {
    std::string b = good;
    b.resize(n, 'x');
    DecayClock c = ParseDecayClock(b);
    EXPECT_EQ(c.state, FileState::kDamaged) << n;
    EXPECT_NE(c.why.find(std::to_string(n) + " bytes, expected 16"), std::string::npos) << c.why;
  }
}

TEST(DecayClockParse, NegativeStampsAreDamage) {
  EXPECT_EQ(ParseDecayClock(SerializeDecayClock(-1, 0)).state, FileState::kDamaged);
  EXPECT_EQ(ParseDecayClock(SerializeDecayClock(kNow, -kNow)).why, "negative time stamps");
}

TEST(DecayClockPlausible, FutureAndAncientStampsAreDamage) {
  std::string why;
  EXPECT_TRUE(PlausibleClock(Clock(kNow + kClockSkewSeconds), kNow, &why));
  EXPECT_FALSE(PlausibleClock(Clock(kNow + kClockSkewSeconds + 1), kNow, &why));
  EXPECT_NE(why.find("in the future"), std::string::npos);
  EXPECT_FALSE(PlausibleClock(Clock(kPlausibleEpoch - 1), kNow, &why));
  EXPECT_NE(why.find("before 2010"), std::string::npos);
  EXPECT_FALSE(PlausibleClock(Clock(kNow, kNow + 86400), kNow, &why));  // last_reset
  EXPECT_TRUE(PlausibleClock(Clock(kNow, 0), kNow, &why));
}

TEST(DecayClockPlausible, RandomSixteenBytesAreAlmostNeverBelieved) {
  // The "one of two random files accepted": with the size and
  // plausibility checks a random stamp would have to land in 2010..now.
  srand(38);
  int believed = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string b(16, '\0');
    for (char& ch : b) ch = static_cast<char>(rand() & 0xff);
    std::string why;
    if (PlausibleClock(ParseDecayClock(b), kNow, &why)) ++believed;
  }
  EXPECT_EQ(believed, 0);
}

TEST(AssocUsageParse, WholeFile) {
  UsageFile u = Usage(kNow - 30);
  EXPECT_EQ(u.state, FileState::kOk) << u.why;
  EXPECT_TRUE(u.has_records);
  EXPECT_EQ(u.saved_at, kNow - 30);
}

TEST(AssocUsageParse, HeaderOnlyHasNoRecords) {
  UsageFile u = ParseAssocUsage(UsageBytes(kNow, 0), kV2011, kV2205);
  EXPECT_EQ(u.state, FileState::kOk);
  EXPECT_FALSE(u.has_records);
}

TEST(AssocUsageParse, EveryCutIsDamage) {
  const std::string good = UsageBytes(kNow, 3);
  const size_t record = (good.size() - 10) / 3;
  for (size_t n = 0; n < good.size(); ++n) {
    UsageFile u = ParseAssocUsage(good.substr(0, n), kV2011, kV2205);
    const bool whole = n >= 10 && (n - 10) % record == 0;
    EXPECT_EQ(u.state, whole ? FileState::kOk : FileState::kDamaged) << n;
  }
}

TEST(AssocUsageParse, BadVersionAndAppendedBytesAreDamage) {
  EXPECT_EQ(ParseAssocUsage(UsageBytes(kNow, 1, 0x6761), kV2011, kV2205).state,
            FileState::kDamaged);
  EXPECT_EQ(ParseAssocUsage(UsageBytes(kNow, 1) + "garbage", kV2011, kV2205).state,
            FileState::kDamaged);
  EXPECT_EQ(ParseAssocUsage("", kV2011, kV2205).why, "file is 0 bytes, shorter than its header");
}

// ---- the rule -----------------------------------------------------------

TEST(Recovery, ConsistentStateChargesFromTheClockSilently) {
  // A clean stop: the last pass at -70, Slurm's shutdown save at -40.
  RecoveryDecision d = Decide(Clock(kNow - 70, kNow - 999), Usage(kNow - 40));
  EXPECT_EQ(d.charge_from, kNow - 70);
  EXPECT_EQ(d.last_reset, kNow - 999);
  EXPECT_FALSE(d.rebuild_usage);
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.message, "");
}

TEST(Recovery, UsageSavedBeforeTheLastPassChargesFromTheSave) {
  // A crash between the clock write and the usage save: the usage holds
  // charges up to at most -100, so charging from the clock's -50 would lose
  // them; from -100 nothing is charged twice.
  RecoveryDecision d = Decide(Clock(kNow - 50), Usage(kNow - 100));
  EXPECT_EQ(d.charge_from, kNow - 100);
  EXPECT_FALSE(d.error);
  EXPECT_NE(d.message.find("charged from the save"), std::string::npos);
}

TEST(Recovery, ClockMuchOlderThanTheUsageIsNotBelieved) {
  // The .old copy or a bit flip: the usage already holds charges past it.
  RecoveryDecision d = Decide(Clock(kNow - 1000), Usage(kNow - 20));
  EXPECT_EQ(d.charge_from, kNow - 20);
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("older than assoc_usage"), std::string::npos) << d.message;
  // Just under one calc period older: the last pass before the save.
  d = Decide(Clock(kNow - 20 - kCalc + 1), Usage(kNow - 20));
  EXPECT_EQ(d.charge_from, kNow - 20 - kCalc + 1);
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.message, "");
}

TEST(Recovery, ClockOnePassOlderThanTheUsageIsSaid) {
  // Issue 45 item 4: the clock replaced by its .old copy, one pass (one
  // calc period) older than the last pass the usage holds, was believed
  // silently and every running job was charged that pass twice.
  RecoveryDecision d = Decide(Clock(kNow - 20 - kCalc), Usage(kNow - 20));
  EXPECT_EQ(d.charge_from, kNow - 20);
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("at least one PriorityCalcPeriod"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("priority_last_decay_ran.old"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("never twice"), std::string::npos) << d.message;
}

TEST(Recovery, MissingClockChargesFromTheUsageSave) {
  // Issue 38 item 4: a deleted clock charged the whole run again.
  RecoveryDecision d = Decide(Missing(), Usage(kNow - 15));
  EXPECT_EQ(d.charge_from, kNow - 15);
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("priority_last_decay_ran is missing"), std::string::npos);
}

TEST(Recovery, DamagedClockNeverFallsBackToOldForTheChargePoint) {
  // Issue 38 item 1: the .old clock is a pass older than the usage.
  DecayClock damaged = ParseDecayClock(std::string(7, '\0'));
  RecoveryDecision d = Decide(damaged, Usage(kNow - 15), Clock(kNow - 75, kNow - 5000));
  EXPECT_EQ(d.charge_from, kNow - 15);
  EXPECT_EQ(d.last_reset, kNow - 5000);  // last_reset is still taken from .old
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("7 bytes, expected 16"), std::string::npos) << d.message;
}

TEST(Recovery, FutureOrAncientClockIsDamage) {
  // Issue 38 item 2: a garbage clock was believed (underflow lines).
  for (int64_t stamp : {int64_t{kNow + 86400 * 365LL * 100}, int64_t{kNow + kClockSkewSeconds + 1}, int64_t{5}}) {
    RecoveryDecision d = Decide(Clock(stamp), Usage(kNow - 15));
    EXPECT_EQ(d.charge_from, kNow - 15) << stamp;
    EXPECT_TRUE(d.error);
    EXPECT_NE(d.message.find("is damaged"), std::string::npos) << d.message;
  }
}

TEST(Recovery, LastResetFallsBackToTheConfiguration) {
  RecoveryDecision d = Decide(Missing(), Usage(kNow - 15), Missing(), kNow - 3600);
  EXPECT_EQ(d.last_reset, kNow - 3600);
  d = Decide(Missing(), Usage(kNow - 15), Clock(kNow + 99999, kNow + 99999), 0);
  EXPECT_EQ(d.last_reset, 0);  // an implausible .old is not used either
}

TEST(Recovery, FirstStartRebuildsQuietly) {
  UsageFile none;
  RecoveryDecision d = Decide(Missing(), none);
  EXPECT_TRUE(d.rebuild_usage);
  EXPECT_EQ(d.charge_from, 0);
  EXPECT_FALSE(d.error);
  EXPECT_NE(d.message.find("first start"), std::string::npos);
}

TEST(Recovery, MissingUsageWithAClockIsAnErrorAndARebuild) {
  UsageFile none;
  RecoveryDecision d = Decide(Clock(kNow - 30), none);
  EXPECT_TRUE(d.rebuild_usage);
  EXPECT_TRUE(d.error);
  EXPECT_EQ(d.charge_from, kNow - 30);
  EXPECT_NE(d.message.find("assoc_usage is missing"), std::string::npos);
}

TEST(Recovery, EmptyOrCutUsageCountsAsMissing) {
  // Issue 38 item 6: an empty assoc_usage lost all history silently.
  for (const std::string& bytes :
       {std::string(), UsageBytes(kNow - 9, 0), UsageBytes(kNow - 9, 2).substr(0, 30)}) {
    RecoveryDecision d = Decide(Clock(kNow - 30), ParseAssocUsage(bytes, kV2011, kV2205));
    EXPECT_TRUE(d.rebuild_usage) << bytes.size();
    EXPECT_TRUE(d.error);
    EXPECT_NE(d.message.find("rebuilt from slurmdbd"), std::string::npos);
  }
}

TEST(Recovery, UsageAndClockBothLost) {
  DecayClock damaged = ParseDecayClock("garbage\n");
  RecoveryDecision d = Decide(damaged, ParseAssocUsage("", kV2011, kV2205));
  EXPECT_TRUE(d.rebuild_usage);
  EXPECT_EQ(d.charge_from, 0);
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("too"), std::string::npos);
}

TEST(Recovery, DamagedUsageHeaderTimeUsesASoundClock) {
  RecoveryDecision d = Decide(Clock(kNow - 30), Usage(kNow + 86400));
  EXPECT_EQ(d.charge_from, kNow - 30);
  EXPECT_TRUE(d.error);
  EXPECT_FALSE(d.rebuild_usage);  // the records themselves were restored
  d = Decide(Clock(kNow - 30), Usage(-3));
  EXPECT_EQ(d.charge_from, kNow - 30);
}

TEST(Recovery, NothingBelievableChargesFromNow) {
  RecoveryDecision d = Decide(Missing(), Usage(kNow + 86400));
  EXPECT_EQ(d.charge_from, kNow);
  EXPECT_TRUE(d.error);
  EXPECT_NE(d.message.find("not charged"), std::string::npos);
}

TEST(Recovery, ChargePointNeverAfterNowWithinTheSkew) {
  // Stamps a little in the future (inside the skew) are believed but
  // charging starts no later than now.
  RecoveryDecision d = Decide(Missing(), Usage(kNow + 100));
  EXPECT_EQ(d.charge_from, kNow);
  d = Decide(Clock(kNow + 100), Usage(kNow + 100));
  EXPECT_LE(d.charge_from, kNow);
}

TEST(LastResetBoundary, NoneHasNoBoundaryAndPeriodsEndAtOrBeforeNow) {
  EXPECT_EQ(LastResetBoundary(ResetPeriod::kNone, kNow), 0);
  EXPECT_EQ(LastResetBoundary(ResetPeriod::kNow, kNow), 0);
  for (ResetPeriod p : {ResetPeriod::kDaily, ResetPeriod::kWeekly, ResetPeriod::kMonthly,
                        ResetPeriod::kQuarterly, ResetPeriod::kYearly}) {
    const int64_t b = LastResetBoundary(p, kNow);
    EXPECT_GT(b, kNow - 367 * 86400LL) << static_cast<int>(p);
    EXPECT_LE(b, kNow);
    EXPECT_GT(NextResetTime(p, b, kNow), kNow);  // it is the latest one
  }
}

}  // namespace
}  // namespace fairway
