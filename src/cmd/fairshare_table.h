// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway fairshare`: computes every association's fairshare from a tree
// file and prints it with sshare's columns.
#ifndef FAIRWAY_CMD_FAIRSHARE_TABLE_H_
#define FAIRWAY_CMD_FAIRSHARE_TABLE_H_

#include <string>
#include <vector>

namespace fairway {

int RunFairshareCommand(const std::vector<std::string>& args);

}  // namespace fairway

#endif  // FAIRWAY_CMD_FAIRSHARE_TABLE_H_
