// SPDX-License-Identifier: GPL-2.0-or-later
// Reads a `fairway simulate` scenario file (line-based "keyword values...",
// '#' comments; grammar in doc/simulate.md) and the job trace CSV files it
// names. Errors name the file and the line: "<file>:<line>: <what>".
#ifndef FAIRWAY_IO_SCENARIO_FILE_H_
#define FAIRWAY_IO_SCENARIO_FILE_H_

#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "../sim/scenario.h"

namespace fairway {

// base_dir resolves relative trace paths ("" = current directory).
bool ReadScenario(std::istream& in, const std::string& source, const std::string& base_dir,
                  sim::Scenario* scenario, std::string* error);
// path "-" reads standard input (source "<stdin>", traces relative to the
// current directory).
bool ReadScenarioFile(const std::string& path, sim::Scenario* scenario, std::string* error);

// A duration with a unit: "40m", "12h", "1d", "3200s", "90min"; "0" alone.
std::optional<int64_t> ParseScenarioDuration(std::string_view text);
// A decay factor: "0.85", "10^(-1/15)", "2^-0.5".
std::optional<double> ParseDecayExpression(std::string_view text);

}  // namespace fairway

#endif  // FAIRWAY_IO_SCENARIO_FILE_H_
