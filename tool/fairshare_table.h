// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway fairshare`: computes every association's fairshare from a tree
// file and prints it with sshare's columns (-l: long columns, -P: parsable,
// --json).
#ifndef FAIRWAY_TOOL_FAIRSHARE_TABLE_H_
#define FAIRWAY_TOOL_FAIRSHARE_TABLE_H_

namespace CLI {
class App;
}

namespace fairway {

void RegisterFairshareCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_FAIRSHARE_TABLE_H_
