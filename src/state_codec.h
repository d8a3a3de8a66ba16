// SPDX-License-Identifier: GPL-2.0-or-later
// The text encoding of Fairway's own state files (the planned-use ledger,
// the remote clusters' usage): exact long doubles as two hex doubles,
// strict decimals, lines, and an FNV-1a 64 checksum. Pure.
#ifndef FAIRWAY_STATE_CODEC_H_
#define FAIRWAY_STATE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fairway {

// FNV-1a, 64 bits, over data[0..n).
uint64_t Fnv1a64(const char* data, size_t n);
// v as 16 lowercase hex digits, appended.
void AppendHex64(uint64_t v, std::string* out);
// 16 lowercase hex digits; false otherwise (upper case is not canonical).
bool ParseHex64(const std::string& s, uint64_t* out);
uint64_t DoubleBits(double d);
double BitsDouble(uint64_t bits);
// x as "HI LO": hi = (double)x and lo = (double)(x - hi), each as
// AppendHex64 of its bits (a double-double, exact for x86's 80-bit long
// double; lo is 0 when hi is not finite).
void AppendLongDouble(long double x, std::string* out);
// Decimal without leading zeros (except "0"), '-' only when allowed.
bool ParseDecimal(const std::string& s, bool allow_negative, int64_t* out);
// Appends the closing line "checksum <Fnv1a64 of *out so far>\n".
void AppendChecksumLine(std::string* out);
// Checks the closing checksum line of bytes; true with *body_end, where
// that line starts (the checksum covers bytes[0, body_end)), else false
// with *why: no such line, not 16 lowercase hex digits, or a mismatch.
bool CheckChecksumLine(const std::string& bytes, size_t* body_end, std::string* why);
// The fields of a line between single spaces (empty fields kept).
std::vector<std::string> SplitSpaces(const std::string& line);

// A strict reader over the lines of text[begin, end).
class LineReader {
 public:
  LineReader(const std::string& text, size_t begin, size_t end)
      : text_(text), pos_(begin), end_(end) {}

  bool AtEnd() const { return pos_ >= end_; }

  // Reads the rest of the current line (without '\n'); false at the end of
  // the text or when the line has no newline.
  bool NextLine(std::string* line);

 private:
  const std::string& text_;
  size_t pos_;
  size_t end_;
};

}  // namespace fairway

#endif  // FAIRWAY_STATE_CODEC_H_
