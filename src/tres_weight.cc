// SPDX-License-Identifier: GPL-2.0-or-later
#include "tres_weight.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "text_util.h"

namespace fairway {

namespace {

// Slurm's unit indices (get_unit_type): none 0, K 1, M 2, G 3, T 4, P 5.
constexpr const char* kUnitLetters = "KMGTP";
constexpr int kUnitMega = 2;

int BaseUnit(std::string_view type) {
  const std::string t = ToLower(type);
  return (t == "mem" || t == "bb") ? kUnitMega : 0;
}

}  // namespace

std::optional<double> ParseTresWeightValue(std::string_view type, std::string_view value,
                                           std::string* why) {
  const std::string text(value);
  errno = 0;
  char* end = nullptr;
  double weight = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno != 0 || !std::isfinite(weight)) {
    *why = "'" + text + "' is not a number";
    return std::nullopt;
  }
  if (*end == '\0') return weight;
  const char* letter = std::strchr(kUnitLetters, std::toupper(static_cast<unsigned char>(*end)));
  if (!letter || *letter == '\0') {
    *why = "unknown unit '" + std::string(end) + "' (K, M, G, T or P)";
    return std::nullopt;
  }
  const int unit = static_cast<int>(letter - kUnitLetters) + 1;
  for (int step = BaseUnit(type); step < unit; ++step) weight /= 1024.0;
  return weight;
}

}  // namespace fairway
