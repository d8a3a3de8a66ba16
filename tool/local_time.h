// SPDX-License-Identifier: GPL-2.0-or-later
// Local calendar time for the tool's commands, in the time zone of the
// process (TZ, as slurmdbd's roll-ups use localtime_r and mktime with
// tm_isdst = -1; slurm-22-05-8-1:src/plugins/accounting_storage/mysql/
// as_mysql_usage.c). Not thread-safe: TZ is process state, and the tool is
// single-threaded where it uses these.
#ifndef FAIRWAY_TOOL_LOCAL_TIME_H_
#define FAIRWAY_TOOL_LOCAL_TIME_H_

#include <cstdint>
#include <string>

namespace fairway {

// Sets the process time zone (TZ=zone, tzset). An empty zone keeps it.
void UseTimeZone(const std::string& zone);

// "1700000000" (Unix seconds), "2024-05-01" or "2024-05-01T12:00[:00]"
// (local time). False when text is none of these.
bool ParseLocalTime(const std::string& text, int64_t* out);

// The local midnight at or before t.
int64_t LocalMidnight(int64_t t);
// The local hour boundary at or before t (hh:00:00 local; in a zone with a
// half-hour offset that is not a multiple of 3600 in Unix time).
int64_t LocalHourStart(int64_t t);
// The local midnight `days` calendar days after the local midnight
// `midnight` (negative goes back); DST days have 23 or 25 hours.
int64_t AddLocalDays(int64_t midnight, int days);
// The Monday local midnight at or before t.
int64_t LocalWeekStart(int64_t t);

// "2024-05-01T12:00:00+0200" (strftime %FT%T%z), or "%F" with date_only.
std::string FormatLocal(int64_t t, bool date_only = false);
// The zone's name for t ("CEST", "UTC").
std::string ZoneName(int64_t t);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_LOCAL_TIME_H_
