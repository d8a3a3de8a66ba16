// SPDX-License-Identifier: GPL-2.0-or-later
// Reads an association tree from a CSV file (shared by the fairway tool and
// the unit tests). Header line names the columns; required: id, parent,
// account, user, shares, usage. Optional: partition, priority. `shares` is a
// count or "parent"; `usage` is the association's own usage in
// billing-seconds (subtree sums are added up here, as assoc_mgr does on
// load). Lines starting with '#' and blank lines are ignored.
#ifndef FAIRWAY_IO_TREE_FILE_H_
#define FAIRWAY_IO_TREE_FILE_H_

#include <istream>
#include <string>
#include <vector>

#include "../assoc_tree.h"

namespace fairway {

// On success returns true with the nodes in file order and subtree usage.
// On failure returns false with "<source>:<line>: <what is wrong>" in *error.
bool ReadTreeCsv(std::istream& in, const std::string& source, std::vector<AssocNode>* nodes,
                 std::string* error);
bool ReadTreeCsvFile(const std::string& path, std::vector<AssocNode>* nodes, std::string* error);

}  // namespace fairway

#endif  // FAIRWAY_IO_TREE_FILE_H_
