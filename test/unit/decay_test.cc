// SPDX-License-Identifier: GPL-2.0-or-later
// Decay factor and usage-reset boundaries (_apply_decay and _next_reset in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <optional>
#include <string>
#include <sys/stat.h>

#include "decay.h"

namespace fairway {
namespace {

// Unix seconds of a UTC civil time, from the days-from-civil algorithm, so
// expected boundaries do not come from mktime (which the code uses).
int64_t Utc(int y, unsigned m, unsigned d, int hh = 0, int mm = 0, int ss = 0) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = era * 146097 + static_cast<int64_t>(doe) - 719468;
  return days * 86400 + hh * 3600 + mm * 60 + ss;
}

constexpr int64_t kDay = 86400;
constexpr int64_t kWeek = 7 * kDay;

// Sets TZ for the test and restores the previous value afterwards.
class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    const char* old = std::getenv("TZ");
    if (old) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTz() {
    if (old_) {
      setenv("TZ", old_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::optional<std::string> old_;
};

class DecayUtc : public ::testing::Test {
 protected:
  ScopedTz tz_{"UTC"};
};

bool HaveZone(const char* name) {
  struct stat st;
  return stat((std::string("/usr/share/zoneinfo/") + name).c_str(), &st) == 0;
}

TEST(Decay, SelfCheckOfTheCivilTimeHelper) {
  EXPECT_EQ(Utc(1970, 1, 1), 0);
  EXPECT_EQ(Utc(2000, 1, 1), 946684800);
  EXPECT_EQ(Utc(2024, 2, 29, 12), 1709208000);
}

// ---- decay factor --------------------------------------------------------------

TEST(Decay, FactorPerSecondIsFirstOrderApproximation) {
  // _decay_thread sets decay_factor = 1 - 0.693 / half_life (priority_multifactor.c).
  EXPECT_DOUBLE_EQ(DecayFactorPerSecond(604800), 1.0 - 0.693 / 604800.0);
  EXPECT_DOUBLE_EQ(DecayFactorPerSecond(1000), 0.999307);
  EXPECT_DOUBLE_EQ(DecayFactorPerSecond(1), 0.307);
}

TEST(Decay, NonPositiveHalfLifeMeansNoDecay) {
  EXPECT_EQ(DecayFactorPerSecond(0), 1.0);
  EXPECT_EQ(DecayFactorPerSecond(-1), 1.0);
  EXPECT_EQ(DecayFactorPerSecond(std::numeric_limits<int64_t>::min()), 1.0);
}

TEST(Decay, OneDefaultHalfLifeIsAboutHalf) {
  // (1 - 0.693/604800)^604800 = e^(-0.693 - O(1/hl)) ~= 0.500073,
  // slightly above 0.5 because 0.693 < ln 2.
  double f = DecayFactorPerSecond(604800);
  double d = DecayOver(f, 604800);
  EXPECT_NEAR(d, 0.500073, 1e-6);
  EXPECT_GT(d, 0.5 + 5e-5);  // the approximation is replicated, not 2^-1
}

TEST(Decay, DecayOverIsThePower) {
  EXPECT_DOUBLE_EQ(DecayOver(0.5, 10), 1.0 / 1024.0);
  EXPECT_DOUBLE_EQ(DecayOver(0.9, 2), 0.81);
  EXPECT_DOUBLE_EQ(DecayOver(1.0, 1000000000), 1.0);
}

TEST(Decay, NonPositiveElapsedDecaysNothing) {
  double f = DecayFactorPerSecond(3600);
  EXPECT_EQ(DecayOver(f, 0), 1.0);
  EXPECT_EQ(DecayOver(f, -1), 1.0);       // a clock that went backwards
  EXPECT_EQ(DecayOver(f, -86400), 1.0);
  EXPECT_EQ(DecayOver(0.0, -5), 1.0);
}

TEST(Decay, EnormousElapsedIsFlooredAtDblMin) {
  double f = DecayFactorPerSecond(60);
  EXPECT_EQ(DecayOver(f, std::numeric_limits<int64_t>::max()), DBL_MIN);
  EXPECT_EQ(DecayOver(0.307, 100000), DBL_MIN);  // 0.307^1e5 underflows
  EXPECT_EQ(DecayOver(0.0, 5), DBL_MIN);         // usage never becomes exactly 0
  EXPECT_GT(DecayOver(f, 10 * 60), DBL_MIN);     // ten half-lives is not floored
}

// ---- NextResetTime, UTC ----------------------------------------------------------

TEST_F(DecayUtc, NoneNowAndUnknownHaveNoBoundary) {
  const int64_t t = Utc(2024, 5, 5, 5);
  EXPECT_EQ(NextResetTime(ResetPeriod::kNone, t, t), 0);
  EXPECT_EQ(NextResetTime(ResetPeriod::kNow, t, t), 0);
  EXPECT_EQ(NextResetTime(static_cast<ResetPeriod>(99), t, t), 0);
}

TEST_F(DecayUtc, DailyIsNextMidnight) {
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 1, 10), Utc(2024, 3, 1, 10)),
            Utc(2024, 3, 2));
  // Exactly at midnight: the next one, a full day later.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 2), Utc(2024, 3, 2)),
            Utc(2024, 3, 3));
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 2, 23, 59, 59),
                          Utc(2024, 3, 2, 23, 59, 59)),
            Utc(2024, 3, 3));
  // Month, leap-day and year ends.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 1, 31, 15, 30), Utc(2024, 1, 31, 16)),
            Utc(2024, 2, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 2, 28, 9), Utc(2024, 2, 28, 9)),
            Utc(2024, 2, 29));
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2023, 12, 31, 12), Utc(2023, 12, 31, 12)),
            Utc(2024, 1, 1));
}

TEST_F(DecayUtc, DailyCatchUpFiresAtMostOneReset) {
  // Missed 4 days: last reset Mar 1 10:00, now Mar 5 12:00. The boundary
  // jumps to the last missed midnight (Mar 5), which fires now; the one
  // computed from it (Mar 6) is in the future, so only one reset fires.
  const int64_t now = Utc(2024, 3, 5, 12);
  const int64_t next = NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 1, 10), now);
  EXPECT_EQ(next, Utc(2024, 3, 5));
  EXPECT_LE(next, now);
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, next, now), Utc(2024, 3, 6));
  // Slurm advances while boundary + 1 day < now (strictly): with now exactly
  // one day past the first boundary, it stays on the first boundary.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 1, 10), Utc(2024, 3, 3)),
            Utc(2024, 3, 2));
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 1, 10), Utc(2024, 3, 3, 0, 0, 1)),
            Utc(2024, 3, 3));
}

TEST_F(DecayUtc, DailyWithNowBeforeLastResetIsTheFirstBoundary) {
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 10, 10), Utc(2024, 1, 1)),
            Utc(2024, 3, 11));
}

TEST_F(DecayUtc, WeeklyIsNextSundayMidnight) {
  // 2024-01-01 was a Monday, so 2024-01-07 and 2024-01-14 are Sundays.
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 3, 8), Utc(2024, 1, 3, 8)),
            Utc(2024, 1, 7));
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 6, 23, 59, 59),
                          Utc(2024, 1, 6, 23, 59, 59)),
            Utc(2024, 1, 7));
  // On a Sunday (even at 00:00): the following Sunday.
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 7), Utc(2024, 1, 7)),
            Utc(2024, 1, 14));
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 7, 13), Utc(2024, 1, 7, 13)),
            Utc(2024, 1, 14));
  // Across a year end: Mon 2024-12-30 -> Sun 2025-01-05.
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 12, 30, 6), Utc(2024, 12, 30, 6)),
            Utc(2025, 1, 5));
}

TEST_F(DecayUtc, WeeklyCatchUpFiresAtMostOneReset) {
  // Last reset Wed Jan 3; now Thu Feb 1. Sundays: Jan 7, 14, 21, 28, Feb 4.
  const int64_t now = Utc(2024, 2, 1, 12);
  const int64_t next = NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 3, 8), now);
  EXPECT_EQ(next, Utc(2024, 1, 28));
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, next, now), Utc(2024, 2, 4));
}

TEST_F(DecayUtc, MonthlyIsFirstOfNextMonth) {
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2024, 1, 31, 23, 59, 59),
                          Utc(2024, 1, 31, 23, 59, 59)),
            Utc(2024, 2, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2024, 2, 1), Utc(2024, 2, 1)),
            Utc(2024, 3, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2024, 2, 29, 12), Utc(2024, 2, 29, 12)),
            Utc(2024, 3, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2023, 12, 15), Utc(2023, 12, 15)),
            Utc(2024, 1, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2023, 11, 30, 23), Utc(2023, 11, 30, 23)),
            Utc(2023, 12, 1));
}

TEST_F(DecayUtc, MonthlyDoesNotCatchUp) {
  // Only DAILY and WEEKLY skip missed boundaries (Slurm's _next_reset);
  // a monthly reset missed for months fires once per pass, one month at a time.
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2024, 1, 15), Utc(2024, 6, 15)),
            Utc(2024, 2, 1));
}

TEST_F(DecayUtc, QuarterlyBoundaries) {
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 1, 1), Utc(2024, 1, 1)),
            Utc(2024, 4, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 3, 31, 23, 59),
                          Utc(2024, 3, 31, 23, 59)),
            Utc(2024, 4, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 4, 1), Utc(2024, 4, 1)),
            Utc(2024, 7, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 6, 30, 23, 59, 59),
                          Utc(2024, 6, 30, 23, 59, 59)),
            Utc(2024, 7, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 7, 1), Utc(2024, 7, 1)),
            Utc(2024, 10, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 9, 30, 12), Utc(2024, 9, 30, 12)),
            Utc(2024, 10, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 10, 1), Utc(2024, 10, 1)),
            Utc(2025, 1, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 12, 31, 23, 59, 59),
                          Utc(2024, 12, 31, 23, 59, 59)),
            Utc(2025, 1, 1));
}

TEST_F(DecayUtc, YearlyBoundaries) {
  EXPECT_EQ(NextResetTime(ResetPeriod::kYearly, Utc(2023, 12, 31, 23, 59, 59),
                          Utc(2023, 12, 31, 23, 59, 59)),
            Utc(2024, 1, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kYearly, Utc(2024, 1, 1), Utc(2024, 1, 1)),
            Utc(2025, 1, 1));
  EXPECT_EQ(NextResetTime(ResetPeriod::kYearly, Utc(2024, 7, 4, 12), Utc(2024, 7, 4, 12)),
            Utc(2025, 1, 1));
}

// ---- NextResetTime in a DST zone ----------------------------------------------------

// Europe/Berlin: CET = UTC+1 in winter, CEST = UTC+2 from the last Sunday of
// March (2024-03-31) to the last Sunday of October (2024-10-27).
TEST(DecayBerlin, BoundariesAreLocalMidnight) {
  if (!HaveZone("Europe/Berlin")) GTEST_SKIP() << "no Europe/Berlin in /usr/share/zoneinfo";
  ScopedTz tz("Europe/Berlin");
  // Summer: local midnight Jul 11 (CEST) is Jul 10 22:00 UTC.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 7, 10, 15), Utc(2024, 7, 10, 15)),
            Utc(2024, 7, 10, 22));
  // 23:30 UTC on Jul 10 is already Jul 11 01:30 local: next is Jul 12 00:00 local.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 7, 10, 23, 30), Utc(2024, 7, 10, 23, 30)),
            Utc(2024, 7, 11, 22));
  // Winter: local midnight Jan 16 (CET) is Jan 15 23:00 UTC.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 1, 15, 10), Utc(2024, 1, 15, 10)),
            Utc(2024, 1, 15, 23));
  // Monthly across the spring change: Apr 1 00:00 CEST = Mar 31 22:00 UTC.
  EXPECT_EQ(NextResetTime(ResetPeriod::kMonthly, Utc(2024, 3, 15, 12), Utc(2024, 3, 15, 12)),
            Utc(2024, 3, 31, 22));
  // Quarterly across the autumn change: Jan 1 00:00 CET = Dec 31 23:00 UTC.
  EXPECT_EQ(NextResetTime(ResetPeriod::kQuarterly, Utc(2024, 10, 15), Utc(2024, 10, 15)),
            Utc(2024, 12, 31, 23));
  // Yearly from summer time: Jan 1 2025 00:00 CET.
  EXPECT_EQ(NextResetTime(ResetPeriod::kYearly, Utc(2024, 6, 1), Utc(2024, 6, 1)),
            Utc(2024, 12, 31, 23));
  // Weekly: Wed Oct 23 -> Sun Oct 27 00:00, still CEST (the change is at 03:00).
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 10, 23, 12), Utc(2024, 10, 23, 12)),
            Utc(2024, 10, 26, 22));
}

TEST(DecayBerlin, DailyOnTheSpringChangeDayIsLocalMidnight) {
  if (!HaveZone("Europe/Berlin")) GTEST_SKIP() << "no Europe/Berlin in /usr/share/zoneinfo";
  ScopedTz tz("Europe/Berlin");
  // Mar 31 2024 is 23 hours long. The boundary is Apr 1 00:00 CEST
  // (Mar 31 22:00 UTC). Slurm's midnight + 86400 s would give 01:00 CEST;
  // doc/differences.md explains why Fairway asks for the calendar midnight.
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, Utc(2024, 3, 31, 8), Utc(2024, 3, 31, 8)),
            Utc(2024, 3, 31, 22));
}

// On the 25-hour autumn change day Slurm's midnight + 24 h rule gives
// Oct 27 23:00 CET; from that reset the next boundary would be the same
// instant again (its local day is still Oct 27), and usage would reset at
// every decay pass for a day. Fairway's boundary is always after last_reset.
TEST(DecayBerlin, DailyAfterAutumnChangeIsStrictlyAfterLastReset) {
  if (!HaveZone("Europe/Berlin")) GTEST_SKIP() << "no Europe/Berlin in /usr/share/zoneinfo";
  ScopedTz tz("Europe/Berlin");
  const int64_t first =
      NextResetTime(ResetPeriod::kDaily, Utc(2024, 10, 27, 8), Utc(2024, 10, 27, 8));
  EXPECT_EQ(first, Utc(2024, 10, 27, 23));  // Oct 28 00:00 CET
  const int64_t now = first + 3600;
  EXPECT_EQ(NextResetTime(ResetPeriod::kDaily, first, now), Utc(2024, 10, 28, 23));
}

TEST(DecayBerlin, WeeklyStepsAreWholeWeeksOfSeconds) {
  if (!HaveZone("Europe/Berlin")) GTEST_SKIP() << "no Europe/Berlin in /usr/share/zoneinfo";
  ScopedTz tz("Europe/Berlin");
  // Catch-up adds whole weeks of seconds to the first Sunday midnight
  // (Jan 7 00:00 CET = Jan 6 23:00 UTC): now Feb 1 -> Jan 28 00:00 CET.
  EXPECT_EQ(NextResetTime(ResetPeriod::kWeekly, Utc(2024, 1, 3, 8), Utc(2024, 2, 1, 12)),
            Utc(2024, 1, 6, 23) + 3 * kWeek);
}

}  // namespace
}  // namespace fairway
