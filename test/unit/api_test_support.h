// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers for the tests of the C interface (fairway_api.h): a logger that
// keeps the lines, and a configuration made from slurm.conf-like values.
#ifndef FAIRWAY_TEST_API_TEST_SUPPORT_H_
#define FAIRWAY_TEST_API_TEST_SUPPORT_H_

#include <string>
#include <utility>
#include <vector>

#include "api/fairway_api.h"

namespace fairway::test {

// The lines logged through CaptureLog since the last Clear.
struct LoggedLine {
  fw_log_level_t level;
  std::string text;
};
std::vector<LoggedLine>& Logged();
void CaptureLog(fw_log_level_t level, const char* line);
// Lines of one level, in order.
std::vector<std::string> LinesAt(fw_log_level_t level);

// slurm.conf's defaults as the plugin copies them, with slurmdbd.
fw_config_input_t DefaultInput();

// A configuration (unref'd when the holder goes).
class ConfigHolder {
 public:
  explicit ConfigHolder(const fw_config_input_t& in, bool log_summary = false)
      : config_(fw_config_create(&in, CaptureLog, log_summary)) {}
  ~ConfigHolder() { fw_config_unref(config_); }
  ConfigHolder(const ConfigHolder&) = delete;
  ConfigHolder& operator=(const ConfigHolder&) = delete;
  fw_config_t* get() const { return config_; }
  const fw_settings_t& settings() const { return *fw_settings(config_); }

 private:
  fw_config_t* config_;
};

// Runs a pass over no job: from then on the pass stores only the jobs
// whose priority changed (the first pass of a process stores every job's
// factors once: api_pass.cc, factors_stored_once).
inline void PassOverNoJob(fw_pass_t* pass, const fw_config_t* config) {
  fw_pass_begin(pass, config, nullptr, 0);
  fw_pass_end_gather(pass);
  fw_store_item_t item{};
  while (fw_pass_store_next(pass, true, &item)) {
  }
  while (!fw_pass_store_end_slice(pass)) {
  }
}

}  // namespace fairway::test

#endif  // FAIRWAY_TEST_API_TEST_SUPPORT_H_
