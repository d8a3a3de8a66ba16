// SPDX-License-Identifier: GPL-2.0-or-later
// Small string helpers for the configuration and file parsers. Pure functions.
#ifndef FAIRWAY_TEXT_UTIL_H_
#define FAIRWAY_TEXT_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fairway {

std::string Trim(std::string_view text);
std::string ToLower(std::string_view text);
std::vector<std::string> Split(const std::string& text, char separator);
// A configuration-file line (slurm.conf, slurmdbd.conf) without its '#'
// comment and surrounding blanks.
std::string StripConfComment(std::string_view line);
// A whole non-negative decimal integer (no sign, no spaces, no overflow).
std::optional<int64_t> ParseUnsigned(std::string_view text);
// The same over the whole uint64_t range (TRES counts, database columns).
std::optional<uint64_t> ParseUnsigned64(std::string_view text);
// A whole finite or infinite double as strtod reads it, nothing trailing.
std::optional<double> ParseDouble(std::string_view text);

}  // namespace fairway

#endif  // FAIRWAY_TEXT_UTIL_H_
