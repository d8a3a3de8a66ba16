// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway explain`: registers the subcommand on the fairway command line.
// The full implementation lives in explain.cc (shows, per association or job,
// every input and intermediate value of the fairshare and priority maths).
#ifndef FAIRWAY_TOOL_EXPLAIN_H_
#define FAIRWAY_TOOL_EXPLAIN_H_

namespace CLI {
class App;
}

namespace fairway {

void RegisterExplainCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_EXPLAIN_H_
