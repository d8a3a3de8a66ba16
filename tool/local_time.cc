// SPDX-License-Identifier: GPL-2.0-or-later
#include "local_time.h"

#include <cstdlib>
#include <ctime>

#include "text_util.h"

namespace fairway {

namespace {

struct tm LocalTm(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm = {};
  localtime_r(&tt, &tm);
  return tm;
}

int64_t MakeLocal(struct tm tm) {
  tm.tm_isdst = -1;  // let mktime decide, as Slurm's roll-up does
  return static_cast<int64_t>(mktime(&tm));
}

}  // namespace

void UseTimeZone(const std::string& zone) {
  if (zone.empty()) return;
  setenv("TZ", zone.c_str(), 1);
  tzset();
}

bool ParseLocalTime(const std::string& text, int64_t* out) {
  std::optional<uint64_t> unix_time = ParseUnsigned64(text);
  if (unix_time) {
    *out = static_cast<int64_t>(*unix_time);
    return true;
  }
  for (const char* format : {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    struct tm tm = {};
    const char* end = strptime(text.c_str(), format, &tm);
    if (end && *end == '\0') {
      *out = MakeLocal(tm);
      return true;
    }
  }
  return false;
}

int64_t LocalMidnight(int64_t t) {
  struct tm tm = LocalTm(t);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return MakeLocal(tm);
}

int64_t LocalHourStart(int64_t t) {
  struct tm tm = LocalTm(t);
  tm.tm_min = tm.tm_sec = 0;
  int64_t start = MakeLocal(tm);
  // In the repeated hour of a DST change mktime may pick the other
  // occurrence; the hour start is never after t.
  while (start > t) start -= 3600;
  while (start + 3600 <= t) start += 3600;
  return start;
}

int64_t AddLocalDays(int64_t midnight, int days) {
  struct tm tm = LocalTm(midnight);
  tm.tm_mday += days;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return MakeLocal(tm);
}

int64_t LocalWeekStart(int64_t t) {
  const int64_t midnight = LocalMidnight(t);
  const int weekday = LocalTm(midnight).tm_wday;  // 0 = Sunday
  return AddLocalDays(midnight, -((weekday + 6) % 7));
}

std::string FormatLocal(int64_t t, bool date_only) {
  struct tm tm = LocalTm(t);
  char buf[64];
  std::strftime(buf, sizeof buf, date_only ? "%Y-%m-%d" : "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

std::string ZoneName(int64_t t) {
  struct tm tm = LocalTm(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Z", &tm);
  return buf;
}

}  // namespace fairway
