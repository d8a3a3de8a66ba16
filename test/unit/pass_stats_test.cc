// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's pass statistics file as `fairway metrics` reads it
// (tool/pass_stats.h): the plugin's own output, then damaged files, each
// refused with a message naming the file and the key or line.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "pass_stats.h"

namespace fairway {
namespace {

// What fw_decay_pass_save (plugins/priority/fairway/decay_pass.c) writes.
const char* kPluginFile =
    "# priority/fairway: the last decay pass (doc/metrics.md)\n"
    "format=1\n"
    "pass_start=1764230000\n"
    "pass_end=1764230001\n"
    "duration_ms=812.250\n"
    "cpu_ms=640.125\n"
    "jobs_computed=1200\n"
    "jobs_stored=35\n"
    "jobs_recomputed=2\n"
    "jobs_charged=80\n"
    "job_records=1300\n"
    "job_write_lock_held_ms=3.500\n"
    "job_write_lock_longest_ms=1.250\n"
    "job_write_lock_holds=4\n"
    "trigger=job_end+assoc\n"
    "change_checks=29\n"
    "change_check_ms=0.412\n"
    "change_check_longest_ms=0.950\n"
    "change_check_cpu_ms=0.401\n"
    "change_check_records=10012\n";

const std::string kPath = "/state/fairway_pass_stats";

// The text with the line starting with key replaced by with ("" drops it).
std::string Replace(const std::string& key, const std::string& with) {
  std::string text = kPluginFile;
  size_t at = text.find("\n" + key + "=");
  EXPECT_NE(at, std::string::npos) << key;
  size_t end = text.find('\n', at + 1);
  text.replace(at + 1, end - at, with.empty() ? "" : with + "\n");
  return text;
}

std::string Error(const std::string& text) {
  PassStats s;
  std::string error;
  EXPECT_FALSE(ParsePassStats(text, kPath, &s, &error)) << text;
  return error;
}

TEST(PassStatsTest, ReadsWhatThePluginWrites) {
  PassStats s;
  std::string error;
  ASSERT_TRUE(ParsePassStats(kPluginFile, kPath, &s, &error)) << error;
  EXPECT_EQ(s.pass_start, 1764230000);
  EXPECT_EQ(s.pass_end, 1764230001);
  EXPECT_DOUBLE_EQ(s.duration_ms, 812.25);
  EXPECT_DOUBLE_EQ(s.cpu_ms, 640.125);
  EXPECT_EQ(s.jobs_computed, 1200u);
  EXPECT_EQ(s.jobs_stored, 35u);
  EXPECT_EQ(s.jobs_recomputed, 2u);
  EXPECT_EQ(s.jobs_charged, 80);
  EXPECT_EQ(s.job_records, 1300);
  EXPECT_DOUBLE_EQ(s.job_write_lock_held_ms, 3.5);
  EXPECT_DOUBLE_EQ(s.job_write_lock_longest_ms, 1.25);
  EXPECT_EQ(s.job_write_lock_holds, 4);
  EXPECT_EQ(s.trigger, "job_end+assoc");
  EXPECT_EQ(s.change_checks, 29);
  EXPECT_DOUBLE_EQ(s.change_check_ms, 0.412);
  EXPECT_DOUBLE_EQ(s.change_check_longest_ms, 0.95);
  EXPECT_DOUBLE_EQ(s.change_check_cpu_ms, 0.401);
  EXPECT_EQ(s.change_check_records, 10012);
}

TEST(PassStatsTest, ExplainSaysHowOldThePriorityIs) {
  PassStats s;
  std::string error;
  ASSERT_TRUE(ParsePassStats(kPluginFile, kPath, &s, &error)) << error;
  EXPECT_EQ(DescribeLastPass(s, 1764230011),
            "Last pass: ended 10 s ago, triggered by job_end+assoc; 1200 jobs computed, 35 "
            "stored, in 812.2 ms; job write lock held 3.500 ms");
  EXPECT_EQ(DescribePriorityAge(s, 1764229000, 1764230011),
            "Priority age: at most 11 s (the last pass's, triggered by job_end+assoc; newer if "
            "the job was updated since)");
  EXPECT_EQ(DescribePriorityAge(s, 1764230005, 1764230011),
            "Priority age: 6 s (computed at submission; no pass since)");
}

TEST(PassStatsTest, TriggerIsNamesOnly) {
  EXPECT_EQ(Error(Replace("trigger", "trigger=job end")),
            kPath + ": key trigger: 'job end' is not a list of trigger names");
  EXPECT_EQ(Error(Replace("trigger", "trigger=")),
            kPath + ": key trigger: '' is not a list of trigger names");
}

TEST(PassStatsTest, OptionalKeysMayBeAbsentAndUnknownKeysAreIgnored) {
  const std::string text =
      "format=1\npass_end=5\nduration_ms=1\njobs_computed=3\njobs_stored=0\n"
      "jobs_recomputed=0\n\n  # a comment\nsome_future_key=anything at all\n";
  PassStats s;
  std::string error;
  ASSERT_TRUE(ParsePassStats(text, kPath, &s, &error)) << error;
  EXPECT_EQ(s.pass_start, -1);
  EXPECT_EQ(s.cpu_ms, -1);
  EXPECT_EQ(s.jobs_charged, -1);
  EXPECT_EQ(s.job_write_lock_held_ms, -1);
  EXPECT_EQ(s.trigger, "");
  EXPECT_EQ(s.change_check_ms, -1);
  EXPECT_EQ(s.jobs_computed, 3u);
}

TEST(PassStatsTest, MissingRequiredKeysAreNamed) {
  for (const char* key : {"format", "pass_end", "duration_ms", "jobs_computed", "jobs_stored",
                          "jobs_recomputed"}) {
    EXPECT_EQ(Error(Replace(key, "")),
              kPath + ": key " + key + ": missing (the file is damaged or was cut short)");
  }
  // An empty file (a write cut short) misses its first required key.
  EXPECT_EQ(Error(""), kPath + ": key duration_ms: missing (the file is damaged or was cut short)");
}

TEST(PassStatsTest, WrongNumbersAreNamed) {
  EXPECT_EQ(Error(Replace("jobs_computed", "jobs_computed=12x")),
            kPath + ": key jobs_computed: '12x' is not a non-negative whole number");
  EXPECT_EQ(Error(Replace("jobs_stored", "jobs_stored=-1")),
            kPath + ": key jobs_stored: '-1' is not a non-negative whole number");
  EXPECT_EQ(Error(Replace("pass_end", "pass_end=")),
            kPath + ": key pass_end: '' is not a non-negative whole number");
  EXPECT_EQ(Error(Replace("pass_end", "pass_end=1.5")),
            kPath + ": key pass_end: '1.5' is not a non-negative whole number");
  EXPECT_EQ(Error(Replace("duration_ms", "duration_ms=nan")),
            kPath + ": key duration_ms: 'nan' is not a non-negative decimal number");
  EXPECT_EQ(Error(Replace("duration_ms", "duration_ms=1e3")),
            kPath + ": key duration_ms: '1e3' is not a non-negative decimal number");
  EXPECT_EQ(Error(Replace("cpu_ms", "cpu_ms=1.2.3")),
            kPath + ": key cpu_ms: '1.2.3' is not a non-negative decimal number");
  EXPECT_EQ(Error(Replace("job_records", "job_records=99999999999999999999")),
            kPath + ": key job_records: '99999999999999999999' is not a non-negative whole number");
  EXPECT_EQ(Error(Replace("format", "format=2")),
            kPath + ": key format: 2 is not a format this fairway reads (1)");
}

TEST(PassStatsTest, DamagedLinesAndInconsistentValuesAreRefused) {
  EXPECT_EQ(Error(Replace("jobs_stored", "jobs_stored 35")),
            kPath + ": line 8: not key=value: 'jobs_stored 35'");
  EXPECT_EQ(Error(std::string(kPluginFile) + "jobs_computed=1\n"),
            kPath + ": line 21: key jobs_computed given twice");
  EXPECT_EQ(Error(Replace("pass_end", "pass_end=1764229999")),
            kPath + ": key pass_end: 1764229999 is before pass_start 1764230000");
  EXPECT_EQ(Error(Replace("jobs_stored", "jobs_stored=1201")),
            kPath + ": key jobs_stored: 1201 is more than jobs_computed 1200");
  // A line cut in the middle of a value.
  std::string cut = kPluginFile;
  cut = cut.substr(0, cut.find("jobs_stored=") + 5);
  EXPECT_EQ(Error(cut), kPath + ": line 8: not key=value: 'jobs_'");
}

TEST(PassStatsTest, ReadNamesTheFile) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp");
  const std::string path = dir + "/fairway-pass-stats-test-" + std::to_string(::getpid());
  PassStats s;
  std::string error;
  EXPECT_FALSE(ReadPassStats(path, &s, &error));
  EXPECT_EQ(error, path + ": no such file (no pass has run with priority/fairway, or "
                          "StateSaveLocation is elsewhere)");
  std::ofstream(path) << kPluginFile;
  EXPECT_TRUE(ReadPassStats(path, &s, &error)) << error;
  EXPECT_EQ(s.jobs_computed, 1200u);
  std::ofstream(path, std::ios::trunc) << std::string("format=1\n") + '\0' + "x\n";
  EXPECT_FALSE(ReadPassStats(path, &s, &error));
  EXPECT_EQ(error, path + ": holds a NUL byte, not a file the plugin writes");
  std::ofstream(path, std::ios::trunc) << std::string(70 * 1024, '#');
  EXPECT_FALSE(ReadPassStats(path, &s, &error));
  EXPECT_EQ(error, path + ": larger than 64 KiB, not a file the plugin writes");
  std::remove(path.c_str());
  // A directory is not a file.
  EXPECT_FALSE(ReadPassStats(dir, &s, &error));
  EXPECT_NE(error.find(dir + ": "), std::string::npos) << error;
}

}  // namespace
}  // namespace fairway
