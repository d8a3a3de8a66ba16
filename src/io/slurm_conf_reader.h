// SPDX-License-Identifier: GPL-2.0-or-later
// Reads the priority settings of a slurm.conf text into Params, the way
// Slurm reads them (slurm-22-05-8-1:src/common/read_config.c; PriorityFlags
// as the release given reads them, 22.05 to 26.05): keys are
// case-insensitive, '#' starts a comment, `Include` lines are skipped with a
// note, NodeName lines are counted (nodes and CPUs) for capacity checks.
// Every problem becomes a Diagnostic naming the setting and the value, with
// the line it came from. Used by `fairway check-config`; pure apart from the
// file-reading convenience ReadSlurmConfFile.
#ifndef FAIRWAY_IO_SLURM_CONF_READER_H_
#define FAIRWAY_IO_SLURM_CONF_READER_H_

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../diagnostic.h"
#include "../params.h"
#include "../slurm_values.h"

namespace fairway {

// What slurmctld does with a setting under one priority plugin: whether it
// starts, and in words what the plugin then does with the value.
struct PluginOutcome {
  bool starts = true;
  std::string does;
};

// A Diagnostic with the slurm.conf line it refers to (0 = the whole file),
// and, where the finding makes one, its claim about each plugin's controller.
struct ConfDiagnostic {
  Diagnostic diagnostic;
  int line = 0;
  std::optional<PluginOutcome> multifactor;  // priority/multifactor
  std::optional<PluginOutcome> fairway;      // priority/fairway
};

// One PriorityWeightTRES item: "TYPE[/NAME]=VALUE[UNIT]". weight is what
// Slurm stores: VALUE scaled by its unit (ParseTresWeightValue).
struct TresWeight {
  std::string name;  // lower-case "cpu", "mem", "gres/gpu", ...
  double weight = 0;
  std::string written;  // the item as written
};

struct SlurmConf {
  std::string source;                  // file name used in messages
  // The Slurm release whose reader this one follows (SlurmVersionNum):
  // PriorityFlags' names and how scontrol prints them change by release.
  uint32_t slurm_version = kSlurm2205;
  Params params;                       // Slurm's defaults where unset
  std::string priority_type;           // PriorityType as written; empty = unset
  std::string cluster_name;            // ClusterName as written; empty = unset
  std::string priority_parameters;     // PriorityParameters as written
  std::string priority_weight_tres;    // PriorityWeightTRES as written
  // The PriorityWeightTRES items. Any bad item makes Slurm's parser
  // (slurm_get_tres_weight_array) drop the whole string: multifactor then
  // exits, Fairway runs without TRES factors (tres_weights_usable false).
  std::vector<TresWeight> tres_weights;
  bool tres_weights_usable = true;
  // The TRES slurmctld tracks: Slurm's defaults plus AccountingStorageTRES,
  // lower-case ("cpu", "gres/gpu"). A weight for any other TRES is bad.
  std::vector<std::string> configured_tres;
  // Every priority setting seen: canonical name -> (value as written, line).
  std::map<std::string, std::pair<std::string, int>> settings;
  uint64_t node_count = 0;             // nodes named on NodeName lines
  uint64_t cpu_count = 0;              // their CPUs (CPUs=, else sockets*cores*threads)
  std::vector<ConfDiagnostic> diagnostics;
  std::vector<std::string> notes;      // "line 3: Include ... ignored"

  bool Has(const std::string& canonical_name) const { return settings.count(canonical_name) > 0; }
};

// Parses slurm.conf text as Slurm `slurm_version` (SlurmVersionNum) reads
// it; never fails (problems are diagnostics).
SlurmConf ParseSlurmConf(std::istream& in, const std::string& source,
                         uint32_t slurm_version = kSlurm2205);
// Reads a file; false with *error when it cannot be opened.
bool ReadSlurmConfFile(const std::string& path, SlurmConf* conf, std::string* error,
                       uint32_t slurm_version = kSlurm2205);

// "25.05" for SlurmVersionNum(25, 5, x): the release series, as messages
// name it.
std::string SlurmReleaseName(uint32_t slurm_version);
// "25.05" or "25.05.8" as SlurmVersionNum, for the releases the reader
// follows (22.05 to 26.05); nullopt for anything else.
std::optional<uint32_t> ParseSlurmRelease(const std::string& text);

// PriorityWeightTRES, as slurm_get_tres_weight_array reads it against the
// configured TRES (lower-case "cpu", "gres/gpu"; empty = Slurm's defaults).
// Malformed items and TRES not configured become diagnostics and are skipped.
std::vector<TresWeight> ParseTresWeights(std::string_view text, Diagnostics* diagnostics,
                                         const std::vector<std::string>& configured_tres = {});

// Slurm's default AccountingStorageTRES (slurm-22-05-8-1:src/common/read_config.h).
std::vector<std::string> DefaultTres();

// Number of host names in a Slurm host list ("n[1-3,7],gpu[01-02]x[1-2]").
// nullopt when malformed (unbalanced brackets, bad range).
std::optional<uint64_t> CountHostList(std::string_view hostlist);

}  // namespace fairway

#endif  // FAIRWAY_IO_SLURM_CONF_READER_H_
