// SPDX-License-Identifier: GPL-2.0-or-later
#include "decay.h"

#include <cfloat>
#include <cmath>
#include <ctime>

namespace fairway {

namespace {
constexpr int64_t kSecondsPerDay = 86400;
constexpr int64_t kSecondsPerWeek = 7 * kSecondsPerDay;

// mktime with DST decided by the library, as slurm_mktime does.
int64_t MakeLocalTime(struct tm* tm) {
  tm->tm_isdst = -1;
  return static_cast<int64_t>(mktime(tm));
}
}  // namespace

double DecayFactorPerSecond(int64_t half_life_s) {
  if (half_life_s <= 0) return 1.0;
  return 1.0 - 0.693 / static_cast<double>(half_life_s);
}

double DecayOver(double factor_per_second, int64_t elapsed_s) {
  if (elapsed_s <= 0) return 1.0;
  double decay = std::pow(factor_per_second, static_cast<double>(elapsed_s));
  if (decay < DBL_MIN) decay = DBL_MIN;
  return decay;
}

int64_t NextResetTime(ResetPeriod period, int64_t last_reset, int64_t now) {
  time_t last = static_cast<time_t>(last_reset);
  struct tm tm {};
  if (localtime_r(&last, &tm) == nullptr) return 0;
  tm.tm_sec = 0;
  tm.tm_min = 0;
  tm.tm_hour = 0;
  switch (period) {
    // Daily and weekly boundaries are local midnights found by calendar
    // arithmetic. Slurm adds 86400 s to the last midnight instead, which on
    // the autumn clock change lands at 23:00 of the same day, a boundary not
    // after last_reset, so usage would reset at every pass for a day
    // (doc/differences.md). On every other day both give the same instant.
    case ResetPeriod::kDaily: {
      tm.tm_mday += 1;
      int64_t t = MakeLocalTime(&tm);
      while (t + kSecondsPerDay < now) t += kSecondsPerDay;
      return t;
    }
    case ResetPeriod::kWeekly: {
      tm.tm_mday += 7 - tm.tm_wday;
      int64_t t = MakeLocalTime(&tm);
      while (t + kSecondsPerWeek < now) t += kSecondsPerWeek;
      return t;
    }
    case ResetPeriod::kMonthly:
      tm.tm_mday = 1;
      if (tm.tm_mon < 11) {
        tm.tm_mon++;
      } else {
        tm.tm_mon = 0;
        tm.tm_year++;
      }
      break;
    case ResetPeriod::kQuarterly:
      tm.tm_mday = 1;
      if (tm.tm_mon < 3) {
        tm.tm_mon = 3;
      } else if (tm.tm_mon < 6) {
        tm.tm_mon = 6;
      } else if (tm.tm_mon < 9) {
        tm.tm_mon = 9;
      } else {
        tm.tm_mon = 0;
        tm.tm_year++;
      }
      break;
    case ResetPeriod::kYearly:
      tm.tm_mday = 1;
      tm.tm_mon = 0;
      tm.tm_year++;
      break;
    default:
      return 0;
  }
  return MakeLocalTime(&tm);
}

int64_t LastResetBoundary(ResetPeriod period, int64_t now) {
  if (period == ResetPeriod::kNone || period == ResetPeriod::kNow) return 0;
  // Every period has a boundary within 400 days: walk forward from there.
  int64_t boundary = 0;
  int64_t from = now - 400 * kSecondsPerDay;
  for (int i = 0; i < 500; ++i) {
    const int64_t next = NextResetTime(period, from, now);
    if (next <= from || next > now) break;
    boundary = from = next;
  }
  return boundary;
}

}  // namespace fairway
