// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm 22.05's own conversions of slurm.conf values, reproduced bit for bit,
// 32-bit wrap-arounds included, so that `fairway check-config` can say what
// slurmctld will really hold rather than what the text says:
//  - time strings: time_str2secs / time_str2mins
//    (slurm-22-05-8-1:src/common/parse_time.c), then read_config.c's
//    "minutes * 60" into a uint32_t (slurm-22-05-8-1:src/common/read_config.c,
//    PriorityDecayHalfLife, PriorityMaxAge, PriorityCalcPeriod);
//  - whole numbers: s_p_handle_uint32 / s_p_handle_uint16
//    (slurm-22-05-8-1:src/common/parse_value.c), which use strtoul base 0
//    (so "010" is octal 8, "0x10" is 16), accept a K suffix (x1024, uint32
//    only) and read INFINITE/UNLIMITED as the type's maximum;
//  - booleans: s_p_handle_boolean.
// Pure functions; no Slurm types.
#ifndef FAIRWAY_IO_SLURM_CONF_VALUES_H_
#define FAIRWAY_IO_SLURM_CONF_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../slurm_values.h"

namespace fairway {

// Slurm's INFINITE (0xffffffff) and NO_VAL (0xfffffffe) as the int that
// time_str2secs returns.
constexpr int32_t kSlurmTimeInfinite = -1;
constexpr int32_t kSlurmTimeNoVal = -2;

// time_str2secs: seconds, kSlurmTimeInfinite for "INFINITE", "UNLIMITED" or
// "-1", kSlurmTimeNoVal for text it does not accept. Arithmetic is 32-bit
// and wraps, as on every platform Slurm runs on ("999999-0" gives 500567680).
int32_t SlurmTimeStrToSecs(std::string_view text);
// time_str2mins: time_str2secs rounded up to whole minutes (same wrap).
int32_t SlurmTimeStrToMins(std::string_view text);

constexpr int64_t kSlurmTimeHuge = INT64_MAX;

// Which read_config.c rule a time setting follows.
enum class SlurmTimeKind {
  kHalfLifeOrMaxAge,  // PriorityDecayHalfLife, PriorityMaxAge: >= 0 or INFINITE
  kCalcPeriod,        // PriorityCalcPeriod: >= 1 minute
};

// What read_config.c makes of one time setting.
struct SlurmTimeSetting {
  bool accepted = false;       // false: read_config.c fails, slurmctld exits
  bool infinite = false;       // INFINITE/UNLIMITED/-1, or a value that wrapped to it
  bool wrapped = false;        // 32-bit overflow: seconds differs from the text
  bool rounded = false;        // seconds were rounded up to a whole minute
  uint32_t seconds = 0;        // what slurm_conf holds, when accepted
  // The text's value in exact arithmetic, whole minutes rounded up, in
  // seconds; -1 when the text is not a time or is INFINITE;
  // kSlurmTimeHuge when a field has more than 12 digits.
  int64_t exact_seconds = -1;
};
SlurmTimeSetting ReadSlurmTimeSetting(std::string_view text, SlurmTimeKind kind);

// "D-HH:MM:SS" or "HH:MM:SS", as secs2time_str prints it in
// `scontrol show config`; "UNLIMITED" for 0xffffffff.
std::string SlurmTimeString(uint32_t seconds);

// PriorityFlags as `scontrol show config` of Slurm `slurm_version`
// (SlurmVersionNum) prints them (priority_flags_string,
// slurm-22-05-8-1:src/common/slurm_protocol_defs.c): a cleared FAIR_TREE bit
// prints as NO_FAIR_TREE; up to 25.05 any NO_NORMAL_* bit prints as
// NO_NORMAL_ALL, from 25.11 only all four do and fewer print one by one
// (slurm-25-11-7-1:src/common/slurm_protocol_defs.c); MAX_TRES_GRES from
// 25.05.
std::string SlurmPriorityFlagsString(uint32_t flags, uint32_t slurm_version = kSlurm2205);

// s_p_handle_uint32 / s_p_handle_uint16: the value Slurm stores, or nullopt
// with *why (Slurm's own words) when slurm.conf fails to parse.
std::optional<uint32_t> SlurmUint32(const std::string& text, std::string* why);
std::optional<uint16_t> SlurmUint16(const std::string& text, std::string* why);
// s_p_handle_boolean.
std::optional<bool> SlurmBoolean(std::string_view text);

// True when text is a plain decimal number ("0", "1000"): what Slurm reads
// is then what a reader sees. False for "010" (octal), "0x10", "1k", ...
bool IsPlainDecimal(std::string_view text);

}  // namespace fairway

#endif  // FAIRWAY_IO_SLURM_CONF_VALUES_H_
