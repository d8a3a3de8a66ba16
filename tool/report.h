// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway report`: delivered against entitled share per association over
// time, from slurmdbd's usage roll-ups (report_model.h; doc/report.md).
#ifndef FAIRWAY_TOOL_REPORT_H_
#define FAIRWAY_TOOL_REPORT_H_

namespace CLI {
class App;
}

namespace fairway {

void RegisterReportCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_REPORT_H_
