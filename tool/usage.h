// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway usage audit|export`: slurmdbd's job records read directly from
// its database (tool/slurmdbd/db_client), checked against the controller's usage
// or written as a `fairway simulate` scenario (doc/accounting.md).
#ifndef FAIRWAY_TOOL_USAGE_H_
#define FAIRWAY_TOOL_USAGE_H_

#include <CLI/CLI.hpp>

namespace fairway {

void RegisterUsageCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_USAGE_H_
