// SPDX-License-Identifier: GPL-2.0-or-later
#include "tres_counts.h"

#include <string>

#include "text_util.h"

namespace fairway {

namespace {

bool ParseU64(std::string_view text, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

}  // namespace

bool ParseTresCounts(std::string_view text, std::map<uint32_t, uint64_t>* tres) {
  tres->clear();
  const std::string trimmed = Trim(std::string(text));
  if (trimmed.empty()) return true;
  for (const std::string& item : Split(trimmed, ',')) {
    const size_t eq = item.find('=');
    uint64_t id = 0, count = 0;
    if (eq == std::string::npos || !ParseU64(Trim(item.substr(0, eq)), &id) || id == 0 ||
        id > UINT32_MAX || !ParseU64(Trim(item.substr(eq + 1)), &count)) {
      tres->clear();
      return false;
    }
    (*tres)[static_cast<uint32_t>(id)] = count;
  }
  return true;
}

double AllocationBilling(const std::map<uint32_t, uint64_t>& tres) {
  auto billing = tres.find(kTresBilling);
  if (billing != tres.end()) return static_cast<double>(billing->second);
  auto cpus = tres.find(kTresCpu);
  if (cpus != tres.end()) return static_cast<double>(cpus->second);
  return 0;
}

}  // namespace fairway
