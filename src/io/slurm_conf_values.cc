// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_conf_values.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../slurm_values.h"
#include "../text_util.h"

namespace fairway {

namespace {

// 32-bit wrapping arithmetic on int, as the compiled Slurm does it.
int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }
int32_t MulWrap(int32_t a, int32_t b) { return Wrap(static_cast<int64_t>(a) * b); }
int32_t AddWrap(int32_t a, int32_t b) { return Wrap(static_cast<int64_t>(a) + b); }

// _is_valid_timespec (parse_time.c): digits, at most one '-' (before any
// ':'), at most two ':', and enough digit groups for the separators.
bool IsValidTimespec(std::string_view s) {
  int digit = 0, dash = 0, colon = 0;
  bool already_digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      if (!already_digit) {
        ++digit;
        already_digit = true;
      }
    } else if (c == '-') {
      already_digit = false;
      ++dash;
      if (colon) return false;
    } else if (c == ':') {
      already_digit = false;
      ++colon;
    } else {
      return false;
    }
  }
  if (!digit || dash > 1 || colon > 2) return false;
  if (dash) {
    if (colon == 1 && digit < 3) return false;
    if (colon == 2 && digit < 4) return false;
  } else {
    if (colon == 1 && digit < 2) return false;
    if (colon == 2 && digit < 3) return false;
  }
  return true;
}

bool IsInfiniteWord(std::string_view s) {
  std::string l = ToLower(s);
  return l == "-1" || l == "infinite" || l == "unlimited";
}

// The same fields in exact arithmetic (no wrap): what the text meant, for
// messages. kSlurmTimeHuge when a field has more than 12 digits. Requires a
// valid timespec.
int64_t ExactSeconds(const std::string& s) {
  bool huge = false;
  auto number = [&](const std::string& digits) {
    int64_t v = 0;
    if (digits.size() > 12) huge = true;
    else for (char c : digits) v = v * 10 + (c - '0');
    return v;
  };
  auto fields = [&](const std::string& text) {
    std::vector<int64_t> out;
    for (const std::string& f : Split(text, ':')) out.push_back(number(f));
    return out;
  };
  int64_t total = 0;
  const size_t dash = s.find('-');
  if (dash == 0) {
    total = -number(s.substr(1)) * 86400;  // "-5": minus five days
  } else if (dash != std::string::npos) {
    std::vector<int64_t> f = fields(s.substr(dash + 1));
    f.resize(3, 0);
    total = number(s.substr(0, dash)) * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
  } else {
    std::vector<int64_t> f = fields(s);
    total = f.size() == 3 ? f[0] * 3600 + f[1] * 60 + f[2] : f[0] * 60 + (f.size() > 1 ? f[1] : 0);
  }
  if (huge) return total < 0 || dash == 0 ? -2 * 86400 : kSlurmTimeHuge;
  return total;
}

}  // namespace

int32_t SlurmTimeStrToSecs(std::string_view text) {
  const std::string s(text);
  if (s.empty()) return kSlurmTimeNoVal;
  if (IsInfiniteWord(s)) return kSlurmTimeInfinite;
  if (!IsValidTimespec(s)) return kSlurmTimeNoVal;
  // The same sscanf calls as time_str2secs, so that out-of-range digits
  // convert exactly as in slurmctld (glibc: strtol, then truncated to int).
  int d = 0, h = 0, m = 0, sec = 0;
  if (s.find('-') != std::string::npos) {
    std::sscanf(s.c_str(), "%d-%d:%d:%d", &d, &h, &m, &sec);
    d = MulWrap(d, 86400);
    h = MulWrap(h, 3600);
    m = MulWrap(m, 60);
  } else if (std::sscanf(s.c_str(), "%d:%d:%d", &h, &m, &sec) == 3) {
    h = MulWrap(h, 3600);
    m = MulWrap(m, 60);
  } else {
    // minutes[:seconds]: sscanf put the minutes in h and the seconds in m.
    sec = m;
    m = MulWrap(h, 60);
    h = 0;
  }
  return AddWrap(AddWrap(AddWrap(d, h), m), sec);
}

int32_t SlurmTimeStrToMins(std::string_view text) {
  int32_t i = SlurmTimeStrToSecs(text);
  if (i != kSlurmTimeInfinite && i != kSlurmTimeNoVal) i = AddWrap(i, 59) / 60;  // round up
  return i;
}

SlurmTimeSetting ReadSlurmTimeSetting(std::string_view text, SlurmTimeKind kind) {
  SlurmTimeSetting t;
  const std::string s(text);
  const int32_t minutes = SlurmTimeStrToMins(s);
  if (kind == SlurmTimeKind::kCalcPeriod) {
    t.accepted = minutes >= 1;
  } else {
    t.accepted = minutes >= 0 || minutes == kSlurmTimeInfinite;
  }
  if (!IsInfiniteWord(s) && IsValidTimespec(s)) {
    int64_t exact = ExactSeconds(s);
    t.rounded = exact != kSlurmTimeHuge && exact % 60 != 0 && exact > 0;
    t.exact_seconds = exact >= 0 && exact != kSlurmTimeHuge ? (exact + 59) / 60 * 60 : exact;
  }
  if (!t.accepted) return t;
  t.infinite = minutes == kSlurmTimeInfinite;
  t.seconds = static_cast<uint32_t>(MulWrap(minutes, 60));
  t.wrapped = t.exact_seconds >= 0 && t.exact_seconds != static_cast<int64_t>(t.seconds);
  return t;
}

std::string SlurmTimeString(uint32_t seconds) {
  if (seconds == 0xffffffffu) return "UNLIMITED";
  char buf[64];
  const long s = seconds % 60, m = (seconds / 60) % 60, h = (seconds / 3600) % 24;
  const long days = seconds / 86400;
  if (days) std::snprintf(buf, sizeof buf, "%ld-%2.2ld:%2.2ld:%2.2ld", days, h, m, s);
  else std::snprintf(buf, sizeof buf, "%2.2ld:%2.2ld:%2.2ld", h, m, s);
  return buf;
}

std::string SlurmPriorityFlagsString(uint32_t flags, uint32_t slurm_version) {
  std::string out;
  auto add = [&](const char* name) { out += (out.empty() ? "" : ",") + std::string(name); };
  if (flags & kFlagAccrueAlways) add("ACCRUE_ALWAYS");
  if (flags & kFlagSizeRelative) add("SMALL_RELATIVE_TO_TIME");
  if (flags & kFlagCalculateRunning) add("CALCULATE_RUNNING");
  if (flags & kFlagDepthOblivious) add("DEPTH_OBLIVIOUS");
  if (!(flags & kFlagFairTree)) add("NO_FAIR_TREE");
  if (flags & kFlagIncrOnly) add("INCR_ONLY");
  if (flags & kFlagMaxTres) add("MAX_TRES");
  if (slurm_version >= SlurmVersionNum(25, 5, 0) && (flags & kFlagMaxTresGres)) add("MAX_TRES_GRES");
  const uint32_t no_normal = flags & kFlagNoNormalAll;
  if (slurm_version < SlurmVersionNum(25, 11, 0) ? no_normal != 0 : no_normal == kFlagNoNormalAll) {
    add("NO_NORMAL_ALL");
  } else {
    if (flags & kFlagNoNormalAssoc) add("NO_NORMAL_ASSOC");
    if (flags & kFlagNoNormalPart) add("NO_NORMAL_PART");
    if (flags & kFlagNoNormalQos) add("NO_NORMAL_QOS");
    if (flags & kFlagNoNormalTres) add("NO_NORMAL_TRES");
  }
  return out;
}

std::optional<uint32_t> SlurmUint32(const std::string& text, std::string* why) {
  errno = 0;
  char* end = nullptr;
  unsigned long num = std::strtoul(text.c_str(), &end, 0);
  const int err = errno;
  if (*end == 'k' || *end == 'K') {
    num *= 1024;
    ++end;
  }
  if ((num == 0 && err == EINVAL) || *end != '\0') {
    std::string l = ToLower(text);
    if (l == "unlimited" || l == "infinite") return 0xffffffffu;
    *why = "is not a valid number";
    return std::nullopt;
  }
  if (err == ERANGE) {
    *why = "is out of range";
    return std::nullopt;
  }
  if (!text.empty() && text[0] == '-') {
    *why = "is less than zero";
    return std::nullopt;
  }
  if (num > 0xffffffffUL) {
    *why = "is greater than 4294967295";
    return std::nullopt;
  }
  return static_cast<uint32_t>(num);
}

std::optional<uint16_t> SlurmUint16(const std::string& text, std::string* why) {
  errno = 0;
  char* end = nullptr;
  unsigned long num = std::strtoul(text.c_str(), &end, 0);
  const int err = errno;
  if ((num == 0 && err == EINVAL) || *end != '\0') {
    std::string l = ToLower(text);
    if (l == "unlimited" || l == "infinite") return uint16_t{0xffff};
    *why = "is not a valid number";
    return std::nullopt;
  }
  if (err == ERANGE) {
    *why = "is out of range";
    return std::nullopt;
  }
  if (!text.empty() && text[0] == '-') {
    *why = "is less than zero";
    return std::nullopt;
  }
  if (num > 0xffff) {
    *why = "is greater than 65535";
    return std::nullopt;
  }
  return static_cast<uint16_t>(num);
}

std::optional<bool> SlurmBoolean(std::string_view text) {
  std::string l = ToLower(text);
  if (l == "yes" || l == "up" || l == "true" || l == "1") return true;
  if (l == "no" || l == "down" || l == "false" || l == "0") return false;
  return std::nullopt;
}

bool IsPlainDecimal(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace fairway
