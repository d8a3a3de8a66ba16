// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the unit tests: load a fixture tree from test/unit/data.
#ifndef FAIRWAY_TEST_SUPPORT_H_
#define FAIRWAY_TEST_SUPPORT_H_

#include <string>

#include "assoc_tree.h"
#include "fairshare.h"

namespace fairway::test {

std::string DataPath(const std::string& name);

// Reads test/unit/data/<name> and builds the tree for mode; fails the
// calling test (ADD_FAILURE) on error.
AssocTree LoadTree(const std::string& name, FairshareMode mode);

// Index of the association with this user (or, with an empty user, this
// account's account association); -1 when absent.
int32_t FindAssoc(const AssocTree& tree, const std::string& acct, const std::string& user);

}  // namespace fairway::test

#endif  // FAIRWAY_TEST_SUPPORT_H_
