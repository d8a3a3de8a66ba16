// SPDX-License-Identifier: GPL-2.0-or-later
#include "state_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace fairway {

namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

}  // namespace

uint64_t Fnv1a64(const char* data, size_t n) {
  uint64_t h = kFnvOffset;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= kFnvPrime;
  }
  return h;
}

void AppendHex64(uint64_t v, std::string* out) {
  static const char kDigits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out->push_back(kDigits[(v >> shift) & 0xf]);
}

uint64_t DoubleBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

double BitsDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

void AppendLongDouble(long double x, std::string* out) {
  double hi = static_cast<double>(x);
  double lo = std::isfinite(hi) ? static_cast<double>(x - static_cast<long double>(hi)) : 0.0;
  AppendHex64(DoubleBits(hi), out);
  out->push_back(' ');
  AppendHex64(DoubleBits(lo), out);
}

void AppendChecksumLine(std::string* out) {
  const uint64_t sum = Fnv1a64(out->data(), out->size());
  *out += "checksum ";
  AppendHex64(sum, out);
  *out += "\n";
}

bool CheckChecksumLine(const std::string& bytes, size_t* body_end, std::string* why) {
  const size_t at = bytes.rfind("checksum ");
  if (at == std::string::npos || at == 0 || bytes[at - 1] != '\n' || bytes.back() != '\n') {
    *why = "truncated (no checksum line)";
    return false;
  }
  uint64_t stored = 0;
  if (!ParseHex64(bytes.substr(at + 9, bytes.size() - at - 10), &stored)) {
    *why = "the checksum is not 16 lowercase hex digits";
    return false;
  }
  if (Fnv1a64(bytes.data(), at) != stored) {
    *why = "checksum mismatch (damaged)";
    return false;
  }
  *body_end = at;
  return true;
}

bool LineReader::NextLine(std::string* line) {
  if (pos_ >= end_) return false;
  size_t nl = text_.find('\n', pos_);
  if (nl == std::string::npos || nl >= end_) return false;
  line->assign(text_, pos_, nl - pos_);
  pos_ = nl + 1;
  return true;
}

// Decimal without leading zeros (except "0"), optional '-' when allowed.
bool ParseDecimal(const std::string& s, bool allow_negative, int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (allow_negative && !s.empty() && s[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i >= s.size() || s.size() - i > 19) return false;
  if (s[i] == '0' && s.size() - i > 1) return false;
  if (negative && s[i] == '0') return false;  // "-0"
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (v > limit) return false;
  *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool ParseHex64(const std::string& s, uint64_t* out) {
  if (s.size() != 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return false;  // upper case is not canonical
    }
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  *out = v;
  return true;
}

std::vector<std::string> SplitSpaces(const std::string& line) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t sp = line.find(' ', start);
    parts.push_back(line.substr(start, sp == std::string::npos ? std::string::npos : sp - start));
    if (sp == std::string::npos) break;
    start = sp + 1;
  }
  return parts;
}

}  // namespace fairway
