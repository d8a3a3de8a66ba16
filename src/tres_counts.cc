// SPDX-License-Identifier: GPL-2.0-or-later
#include "tres_counts.h"

#include <string>

#include "text_util.h"

namespace fairway {

bool ParseTresCounts(std::string_view text, std::map<uint32_t, uint64_t>* tres) {
  tres->clear();
  const std::string trimmed = Trim(std::string(text));
  if (trimmed.empty()) return true;
  for (const std::string& item : Split(trimmed, ',')) {
    const size_t eq = item.find('=');
    std::optional<uint64_t> id, count;
    if (eq != std::string::npos) {
      id = ParseUnsigned64(Trim(item.substr(0, eq)));
      count = ParseUnsigned64(Trim(item.substr(eq + 1)));
    }
    if (!id || *id == 0 || *id > UINT32_MAX || !count) {
      tres->clear();
      return false;
    }
    (*tres)[static_cast<uint32_t>(*id)] = *count;
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
