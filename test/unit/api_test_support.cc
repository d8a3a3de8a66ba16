// SPDX-License-Identifier: GPL-2.0-or-later
#include "api_test_support.h"

namespace fairway::test {

std::vector<LoggedLine>& Logged() {
  static std::vector<LoggedLine> lines;
  return lines;
}

void CaptureLog(fw_log_level_t level, const char* line) { Logged().push_back({level, line}); }

std::vector<std::string> LinesAt(fw_log_level_t level) {
  std::vector<std::string> out;
  for (const LoggedLine& l : Logged()) {
    if (l.level == level) out.push_back(l.text);
  }
  return out;
}

fw_config_input_t DefaultInput() {
  fw_config_input_t in{};
  in.weight_age = 1000;
  in.weight_fairshare = 10000;
  in.weight_job_size = 100;
  in.weight_partition = 1000;
  in.weight_qos = 500;
  in.weight_assoc = 10;
  in.flags = 1u << 5;  // FAIR_TREE
  in.decay_half_life_s = 604800;
  in.calc_period_s = 300;
  in.max_age_s = 604800;
  in.damp_factor = 1;
  in.with_slurmdbd = true;
  return in;
}

}  // namespace fairway::test
