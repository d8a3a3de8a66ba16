// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway simulate SCENARIO`: runs the discrete-event simulator
// (src/sim/) for each policy, writes CSV/JSON outputs and gnuplot plots into
// --out, and prints a summary table (doc/simulate.md).
#ifndef FAIRWAY_TOOL_SIMULATE_H_
#define FAIRWAY_TOOL_SIMULATE_H_

namespace CLI {
class App;
}

namespace fairway {

void RegisterSimulateCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_SIMULATE_H_
