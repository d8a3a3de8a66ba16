// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's pass statistics file, StateSaveLocation/fairway_pass_stats
// (written after each decay pass by fw_decay_pass_save in
// plugins/priority/fairway/decay_pass.c), as `fairway metrics` reads it.
// The file is "key=value" lines; '#' lines and blank lines are comments:
//   format=1                   required, the only format there is
//   pass_start=UNIX, pass_end=UNIX   the pass's wall clock (pass_end required)
//   duration_ms, cpu_ms        wall and CPU time of the pass (duration_ms required)
//   jobs_computed, jobs_stored, jobs_recomputed   (all three required)
//   jobs_charged, job_records, job_write_lock_held_ms,
//   job_write_lock_longest_ms, job_write_lock_holds  (optional)
//   trigger                    what started the pass: names joined by '+'
//                              (start, timer, job_end, reconfigure, partition,
//                              assoc, qos, usage, backfill; optional)
//   change_checks, change_check_ms, change_check_longest_ms,
//   change_check_cpu_ms, change_check_records   the looks for changes
//                              since the pass before: how many, the mean
//                              and longest hold of assoc R + QOS R, the
//                              mean CPU, records hashed by each (optional)
// A key this reader does not know is ignored (a newer plugin may add some);
// a known key given twice, a line without '=', a value that is not a
// non-negative number (whole for counts and times in seconds) and a missing
// required key are errors. doc/metrics.md describes the keys.
#ifndef FAIRWAY_TOOL_PASS_STATS_H_
#define FAIRWAY_TOOL_PASS_STATS_H_

#include <cstdint>
#include <string>

namespace fairway {

// The file's name under StateSaveLocation.
constexpr const char* kPassStatsFile = "fairway_pass_stats";

struct PassStats {
  int64_t pass_start = -1;  // -1: not in the file
  int64_t pass_end = 0;
  double duration_ms = 0;
  double cpu_ms = -1;       // -1: not in the file (as every optional value below)
  uint64_t jobs_computed = 0, jobs_stored = 0, jobs_recomputed = 0;
  int64_t jobs_charged = -1, job_records = -1, job_write_lock_holds = -1;
  double job_write_lock_held_ms = -1, job_write_lock_longest_ms = -1;
  std::string trigger;  // empty: not in the file (a plugin before issue 47)
  int64_t change_checks = -1, change_check_records = -1;
  double change_check_ms = -1, change_check_longest_ms = -1, change_check_cpu_ms = -1;
};

// Parses the file's text; path names the file in *error. False with
// *error ("PATH: line N: ..." or "PATH: key K: ...") on any error above;
// *out is then unspecified.
bool ParsePassStats(const std::string& text, const std::string& path, PassStats* out,
                    std::string* error);

// `fairway explain`'s lines about the last pass and the age of a job's
// priority (issue 47): "Last pass: ..." and "Priority age: ...". A job
// submitted after the last pass started got its priority at submission
// (priority_p_set); else it is the last pass's, or newer when the job was
// updated since (an update recomputes it at once). now, submit_time: unix
// seconds.
std::string DescribeLastPass(const PassStats& s, int64_t now);
std::string DescribePriorityAge(const PassStats& s, int64_t submit_time, int64_t now);

// Reads and parses the file at path. False with *error naming the file
// and why (missing, unreadable, larger than 64 KiB, or a parse error).
bool ReadPassStats(const std::string& path, PassStats* out, std::string* error);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_PASS_STATS_H_
