// SPDX-License-Identifier: GPL-2.0-or-later
// The pass statistics file (pass_stats.h).
#include "pass_stats.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace fairway {

namespace {

constexpr size_t kMaxBytes = 64 * 1024;  // the plugin writes about 400

enum class Kind { kCount, kSeconds, kMilliseconds, kText };

struct Key {
  Kind kind;
  bool required;
};

const std::map<std::string, Key>& Keys() {
  static const std::map<std::string, Key> keys = {
      {"format", {Kind::kCount, true}},
      {"pass_start", {Kind::kSeconds, false}},
      {"pass_end", {Kind::kSeconds, true}},
      {"duration_ms", {Kind::kMilliseconds, true}},
      {"cpu_ms", {Kind::kMilliseconds, false}},
      {"jobs_computed", {Kind::kCount, true}},
      {"jobs_stored", {Kind::kCount, true}},
      {"jobs_recomputed", {Kind::kCount, true}},
      {"jobs_charged", {Kind::kCount, false}},
      {"job_records", {Kind::kCount, false}},
      {"job_write_lock_held_ms", {Kind::kMilliseconds, false}},
      {"job_write_lock_longest_ms", {Kind::kMilliseconds, false}},
      {"job_write_lock_holds", {Kind::kCount, false}},
      {"trigger", {Kind::kText, false}},
      {"change_checks", {Kind::kCount, false}},
      {"change_check_ms", {Kind::kMilliseconds, false}},
      {"change_check_longest_ms", {Kind::kMilliseconds, false}},
      {"change_check_cpu_ms", {Kind::kMilliseconds, false}},
      {"change_check_records", {Kind::kCount, false}},
  };
  return keys;
}

std::string Trim(const std::string& s) {
  const char* space = " \t\r";
  const size_t b = s.find_first_not_of(space);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

// A whole non-negative decimal that fits in int64 (counts, unix seconds).
bool WholeNumber(const std::string& v, uint64_t* out) {
  if (v.empty() || v.size() > 18) return false;
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

// A finite non-negative decimal (digits, at most one '.', no sign, no exponent).
bool Decimal(const std::string& v, double* out) {
  if (v.empty() || v.size() > 32 || v.find_first_not_of("0123456789.") != std::string::npos ||
      v.find('.') != v.rfind('.') || v == ".") {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(v.c_str(), &end);
  if (errno || !end || *end || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

}  // namespace

bool ParsePassStats(const std::string& text, const std::string& path, PassStats* out,
                    std::string* error) {
  *out = PassStats{};
  std::map<std::string, std::string> seen;  // key -> value, known keys only
  std::istringstream in(text);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    const size_t eq = t.find('=');
    if (eq == std::string::npos) {
      *error = path + ": line " + std::to_string(number) + ": not key=value: '" + t + "'";
      return false;
    }
    const std::string key = Trim(t.substr(0, eq)), value = Trim(t.substr(eq + 1));
    auto known = Keys().find(key);
    if (known == Keys().end()) continue;  // a newer plugin's key
    if (seen.count(key)) {
      *error = path + ": line " + std::to_string(number) + ": key " + key + " given twice";
      return false;
    }
    seen[key] = value;
  }
  if (!in.eof()) {
    *error = path + ": cannot be read as text";
    return false;
  }
  for (const auto& [key, spec] : Keys()) {
    auto it = seen.find(key);
    if (it == seen.end()) {
      if (spec.required) {
        *error = path + ": key " + key + ": missing (the file is damaged or was cut short)";
        return false;
      }
      continue;
    }
    const std::string& v = it->second;
    uint64_t whole = 0;
    double decimal = 0;
    if (spec.kind == Kind::kText) {
      // Names joined by '+' ("job_end+assoc"): letters, '_' and '+'.
      if (v.empty() || v.find_first_not_of("abcdefghijklmnopqrstuvwxyz_+") != std::string::npos) {
        *error = path + ": key " + key + ": '" + v + "' is not a list of trigger names";
        return false;
      }
      out->trigger = v;
      continue;
    }
    const bool ok =
        spec.kind == Kind::kMilliseconds ? Decimal(v, &decimal) : WholeNumber(v, &whole);
    if (!ok) {
      *error = path + ": key " + key + ": '" + v + "' is not " +
               (spec.kind == Kind::kMilliseconds ? "a non-negative decimal number"
                                                  : "a non-negative whole number");
      return false;
    }
    const int64_t w = static_cast<int64_t>(whole);
    if (key == "format") {
      if (whole != 1) {
        *error = path + ": key format: " + v + " is not a format this fairway reads (1)";
        return false;
      }
    } else if (key == "pass_start") {
      out->pass_start = w;
    } else if (key == "pass_end") {
      out->pass_end = w;
    } else if (key == "duration_ms") {
      out->duration_ms = decimal;
    } else if (key == "cpu_ms") {
      out->cpu_ms = decimal;
    } else if (key == "jobs_computed") {
      out->jobs_computed = whole;
    } else if (key == "jobs_stored") {
      out->jobs_stored = whole;
    } else if (key == "jobs_recomputed") {
      out->jobs_recomputed = whole;
    } else if (key == "jobs_charged") {
      out->jobs_charged = w;
    } else if (key == "job_records") {
      out->job_records = w;
    } else if (key == "job_write_lock_held_ms") {
      out->job_write_lock_held_ms = decimal;
    } else if (key == "job_write_lock_longest_ms") {
      out->job_write_lock_longest_ms = decimal;
    } else if (key == "job_write_lock_holds") {
      out->job_write_lock_holds = w;
    } else if (key == "change_checks") {
      out->change_checks = w;
    } else if (key == "change_check_ms") {
      out->change_check_ms = decimal;
    } else if (key == "change_check_longest_ms") {
      out->change_check_longest_ms = decimal;
    } else if (key == "change_check_cpu_ms") {
      out->change_check_cpu_ms = decimal;
    } else if (key == "change_check_records") {
      out->change_check_records = w;
    }
  }
  if (out->pass_start >= 0 && out->pass_start > out->pass_end) {
    *error = path + ": key pass_end: " + std::to_string(out->pass_end) +
             " is before pass_start " + std::to_string(out->pass_start);
    return false;
  }
  if (out->jobs_stored > out->jobs_computed) {
    *error = path + ": key jobs_stored: " + std::to_string(out->jobs_stored) +
             " is more than jobs_computed " + std::to_string(out->jobs_computed);
    return false;
  }
  return true;
}

std::string DescribeLastPass(const PassStats& s, int64_t now) {
  char line[400];
  std::snprintf(line, sizeof line,
                "Last pass: ended %lld s ago, triggered by %s; %llu jobs computed, %llu stored, "
                "in %.1f ms",
                static_cast<long long>(now - s.pass_end),
                s.trigger.empty() ? "(not recorded)" : s.trigger.c_str(),
                static_cast<unsigned long long>(s.jobs_computed),
                static_cast<unsigned long long>(s.jobs_stored), s.duration_ms);
  std::string out = line;
  if (s.job_write_lock_held_ms >= 0) {
    std::snprintf(line, sizeof line, "; job write lock held %.3f ms", s.job_write_lock_held_ms);
    out += line;
  }
  return out;
}

std::string DescribePriorityAge(const PassStats& s, int64_t submit_time, int64_t now) {
  const int64_t pass_start = s.pass_start >= 0 ? s.pass_start : s.pass_end;
  char line[300];
  if (submit_time > pass_start) {
    std::snprintf(line, sizeof line,
                  "Priority age: %lld s (computed at submission; no pass since)",
                  static_cast<long long>(now - submit_time));
  } else {
    std::snprintf(line, sizeof line,
                  "Priority age: at most %lld s (the last pass's, triggered by %s; newer if the "
                  "job was updated since)",
                  static_cast<long long>(now - pass_start),
                  s.trigger.empty() ? "(not recorded)" : s.trigger.c_str());
  }
  return line;
}

bool ReadPassStats(const std::string& path, PassStats* out, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int err = errno;
    *error = path + ": " +
             (err == ENOENT ? std::string("no such file (no pass has run with priority/fairway, "
                                          "or StateSaveLocation is elsewhere)")
                            : std::string("cannot open: ") + std::strerror(err));
    return false;
  }
  std::string text;
  char buf[4096];
  while (file.read(buf, sizeof buf) || file.gcount() > 0) {
    text.append(buf, static_cast<size_t>(file.gcount()));
    if (text.size() > kMaxBytes) {
      *error = path + ": larger than 64 KiB, not a file the plugin writes";
      return false;
    }
  }
  if (file.bad()) {
    *error = path + ": read error";
    return false;
  }
  if (text.find('\0') != std::string::npos) {
    *error = path + ": holds a NUL byte, not a file the plugin writes";
    return false;
  }
  return ParsePassStats(text, path, out, error);
}

}  // namespace fairway
