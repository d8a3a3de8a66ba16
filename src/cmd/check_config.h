// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway check-config`: reads a slurm.conf, prints every Diagnostic of the
// reader plus consistency checks of the priority settings (weight overflow,
// weight resolution, decay/reset conflicts, PriorityType, dampening, ranged
// tree depth). CheckSlurmConf is pure so the unit tests call it directly.
#ifndef FAIRWAY_CMD_CHECK_CONFIG_H_
#define FAIRWAY_CMD_CHECK_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../io/slurm_conf_reader.h"

namespace CLI {
class App;
}

namespace fairway {

struct CheckOptions {
  std::optional<int> tree_depth;        // deepest association below root (--tree/--max-depth)
  std::optional<uint32_t> user_assocs;  // user associations (--tree)
};

// A fact worth showing that is not a problem (e.g. a weight's resolution).
struct CheckInfo {
  std::string setting;
  std::string text;
};

struct CheckReport {
  std::vector<ConfDiagnostic> findings;  // the reader's diagnostics, then the checks'
  std::vector<CheckInfo> info;
  int errors() const;
  int warnings() const;
};

CheckReport CheckSlurmConf(const SlurmConf& conf, const CheckOptions& options);

// Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage error.
void RegisterCheckConfigCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_CMD_CHECK_CONFIG_H_
