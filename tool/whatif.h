// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway whatif` (whatif_model.h; doc/whatif.md).
#ifndef FAIRWAY_TOOL_WHATIF_H_
#define FAIRWAY_TOOL_WHATIF_H_

namespace CLI {
class App;
}

namespace fairway {

void RegisterWhatIfCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_WHATIF_H_
