// SPDX-License-Identifier: GPL-2.0-or-later
#include "text_util.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace fairway {

std::string Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(separator, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::string StripConfComment(std::string_view line) {
  size_t hash = line.find('#');
  return Trim(hash == std::string_view::npos ? line : line.substr(0, hash));
}

std::optional<uint64_t> ParseUnsigned64(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<int64_t> ParseUnsigned(std::string_view text) {
  // At most 18 digits, so that every accepted number fits an int64_t.
  if (text.size() > 18) return std::nullopt;
  const std::optional<uint64_t> value = ParseUnsigned64(text);
  if (!value) return std::nullopt;
  return static_cast<int64_t>(*value);
}

std::optional<double> ParseDouble(std::string_view text) {
  std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (errno == ERANGE || end == s.c_str() || *end != '\0') return std::nullopt;
  return value;
}

}  // namespace fairway
