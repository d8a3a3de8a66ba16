// SPDX-License-Identifier: GPL-2.0-or-later
#include "billing.h"

#include <algorithm>

#include "slurm_values.h"
#include "text_util.h"

namespace fairway {

double BillableTres(const std::vector<TresType>& tres, const std::vector<uint64_t>& counts,
                    const std::vector<double>& weights, bool max_tres) {
  if (counts.empty()) return 0.0;
  if (weights.empty()) {
    for (size_t i = 0; i < tres.size() && i < counts.size(); ++i) {
      if (tres[i].type == "cpu") return static_cast<double>(counts[i]);
    }
    return static_cast<double>(counts[0]);
  }
  double to_bill_node = 0.0;
  double to_bill_global = 0.0;
  const size_t n = std::min({tres.size(), counts.size(), weights.size()});
  for (size_t i = 0; i < n; ++i) {
    const std::string type = ToLower(tres[i].type);
    if (type == "billing" || counts[i] == kNoConsumeVal64) continue;
    double value = static_cast<double>(counts[i]) * weights[i];
    bool node_level = type == "cpu" || type == "mem" || type == "node" || type == "gres";
    if (max_tres && node_level) {
      to_bill_node = std::max(to_bill_node, value);
    } else {
      to_bill_global += value;
    }
  }
  return to_bill_node + to_bill_global;
}

}  // namespace fairway
