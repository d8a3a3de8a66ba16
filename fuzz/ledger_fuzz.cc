// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: ParseLedger (the planned-use state file). It must never
// crash; when it accepts, every value is finite and >= 0, and
// ParseLedger(SerializeLedger(ledger)) gives back an equal ledger whose
// serialisation is byte-identical (a fixed point).
//
// The checksum would make almost every mutation fail early, so when the
// first byte is odd the target rewrites the checksum line to match the body
// before parsing: the body parser is then fuzzed too. The rest of the input
// (after that byte) is the file.
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "planned_use.h"

using fairway::PlannedUseLedger;

namespace {

[[noreturn]] void Die(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "ledger_fuzz: invariant violated: %s %s\n", what, detail.c_str());
  std::abort();
}

uint64_t Fnv1a64(const std::string& s, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// Replaces everything from the last "\nchecksum " (or appends one) with a
// checksum line that matches the bytes before it.
std::string FixChecksum(const std::string& in) {
  std::string body = in;
  size_t pos = body.rfind("\nchecksum ");
  if (pos != std::string::npos) {
    body.resize(pos + 1);
  } else if (!body.empty() && body.back() != '\n') {
    body.push_back('\n');
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(Fnv1a64(body, body.size())));
  return body + "checksum " + hex + "\n";
}

bool SameLedger(const PlannedUseLedger& a, const PlannedUseLedger& b) {
  if (a.interval_index != b.interval_index || a.entries.size() != b.entries.size()) return false;
  auto ia = a.entries.begin();
  auto ib = b.entries.begin();
  for (; ia != a.entries.end(); ++ia, ++ib) {
    if (ia->first != ib->first) return false;
    if (!(ia->second.history == ib->second.history)) return false;
    if (!(ia->second.open == ib->second.open)) return false;
  }
  return true;
}

std::string Describe(const PlannedUseLedger& l) {
  std::string s = "interval " + std::to_string(l.interval_index);
  char buf[128];
  for (const auto& [id, e] : l.entries) {
    std::snprintf(buf, sizeof buf, "; %u H=%La c=%La", id, e.history, e.open);
    s += buf;
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) bytes = FixChecksum(bytes);

  PlannedUseLedger ledger;
  ledger.interval_index = 42;  // must be left alone on failure
  ledger.entries[7].open = 3;
  std::string error;
  if (!fairway::ParseLedger(bytes, &ledger, &error)) {
    if (error.empty()) Die("a rejected ledger has a reason");
    if (ledger.interval_index != 42 || ledger.entries.size() != 1) Die("rejection modified *ledger");
    return 0;
  }
  if (ledger.interval_index < -1) Die("interval_index >= -1");
  for (const auto& [id, e] : ledger.entries) {
    if (!std::isfinite(e.history) || !(e.history >= 0)) Die("history finite and >= 0", Describe(ledger));
    if (!std::isfinite(e.open) || !(e.open >= 0)) Die("open finite and >= 0", Describe(ledger));
  }

#ifdef FAIRWAY_FUZZ_SKIP_KNOWN_BUGS
  // Known bug (reported): a value above DBL_MAX (hi + lo overflows double)
  // is accepted, then serialised as +inf and rejected. Skip it to look for
  // other bugs; remove this once ParseLedger/SerializeLedger are fixed.
  for (const auto& [id, e] : ledger.entries) {
    if (e.history > DBL_MAX || e.open > DBL_MAX) return 0;
  }
#endif
  const std::string out = fairway::SerializeLedger(ledger);
  PlannedUseLedger back;
  if (!fairway::ParseLedger(out, &back, &error)) {
    Die("SerializeLedger output rejected by ParseLedger:", error + " for " + Describe(ledger));
  }
  if (!SameLedger(ledger, back)) {
    Die("round trip changed the ledger:", Describe(ledger) + " -> " + Describe(back));
  }
  if (fairway::SerializeLedger(back) != out) Die("serialisation is not a fixed point");

  // Rolling and charging an accepted ledger keeps it serialisable.
  PlannedUseLedger rolled = ledger;
  if (ledger.interval_index < INT64_MAX / 3600 - 8) {
    rolled.Roll((ledger.interval_index + 3) * 3600, 3600, 0.5);
  }
  rolled.Charge(1, 1e30L);
#ifdef FAIRWAY_FUZZ_SKIP_KNOWN_BUGS
  for (const auto& [id, e] : rolled.entries) {
    if (e.history > DBL_MAX || e.open > DBL_MAX) return 0;
  }
#endif
  for (const auto& [id, e] : rolled.entries) {
    if (!std::isfinite(e.history) || !(e.history >= 0)) Die("rolled history finite and >= 0", Describe(rolled));
  }
  PlannedUseLedger rolled_back;
  if (!fairway::ParseLedger(fairway::SerializeLedger(rolled), &rolled_back, &error)) {
    Die("a rolled ledger does not serialise:", error + " for " + Describe(rolled));
  }
  return 0;
}
