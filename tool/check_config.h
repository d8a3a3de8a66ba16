// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway check-config`: reads a slurm.conf, prints every Diagnostic of the
// reader plus consistency checks of the priority settings (weight overflow,
// weight resolution, decay/reset conflicts, PriorityType, dampening, ranged
// tree depth), each with what slurmctld really does under
// priority/multifactor and under priority/fairway (established on live
// controllers: test/integration/check_config_truth.sh). CheckSlurmConf is
// pure so the unit tests call it directly.
#ifndef FAIRWAY_TOOL_CHECK_CONFIG_H_
#define FAIRWAY_TOOL_CHECK_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/slurm_conf_reader.h"

namespace CLI {
class App;
}

namespace fairway {

struct CheckOptions {
  std::optional<int> tree_depth;        // deepest association below root (--tree/--max-depth)
  std::optional<uint32_t> user_assocs;  // user associations (--tree)
  // The clusters slurmdbd knows, lower case (fairshare_clusters' names are
  // checked against them); unset when slurmdbd was not asked, and then
  // why not (shown as information).
  std::optional<std::vector<std::string>> known_clusters;
  std::string clusters_not_checked;
};

// The clusters slurmdbd knows (as `sacctmgr show clusters`); false with
// *why when it cannot be asked. Given by the command's registration (the
// tool's libslurm client), so that CheckSlurmConf stays pure.
using ClusterLister = std::function<bool(std::vector<std::string>* names, std::string* why)>;

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

// Checks conf. Findings that make a claim about the controllers carry a
// PluginOutcome for priority/multifactor and priority/fairway. Severity:
// error when slurmctld with the configured PriorityType refuses to start,
// when the configured plugin drops or replaces a value (TRES weights, a
// PriorityParameters key, dampening 0 where it is used), when a time wraps
// around, or when priorities lose their order; warning when the value is
// legal and used, but probably not what was meant.
CheckReport CheckSlurmConf(const SlurmConf& conf, const CheckOptions& options);

// What check-config claims about a controller started on this slurm.conf,
// in the terms a live test can compare with the real one.
struct ControllerClaims {
  bool multifactor_starts = true;
  bool fairway_starts = true;
  int64_t max_age_s = 0;          // PriorityMaxAge as slurmctld holds it
  int64_t decay_half_life_s = 0;  // PriorityDecayHalfLife
  int64_t calc_period_s = 0;      // PriorityCalcPeriod
  // priority/fairway's TRES factors: "on", "off" (PriorityWeightTRES
  // dropped), or "none" (no PriorityWeightTRES).
  std::string tres_factors;
};
ControllerClaims ClaimsOf(const CheckReport& report, const SlurmConf& conf);

// Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage error.
// slurm.conf is read as Slurm `built_slurm_version` reads it (the release
// the tool links), unless --slurm-version names another.
// list_clusters, when given, is asked for slurmdbd's clusters when
// fairshare_clusters names any (--no-slurmdbd: never).
void RegisterCheckConfigCommand(CLI::App& app, uint32_t built_slurm_version,
                                ClusterLister list_clusters = {});

}  // namespace fairway

#endif  // FAIRWAY_TOOL_CHECK_CONFIG_H_
