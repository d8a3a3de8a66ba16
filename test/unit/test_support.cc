// SPDX-License-Identifier: GPL-2.0-or-later
#include "test_support.h"

#include <gtest/gtest.h>

#include "io/tree_file.h"

namespace fairway::test {

std::string DataPath(const std::string& name) { return std::string(FAIRWAY_TEST_DATA) + "/" + name; }

AssocTree LoadTree(const std::string& name, FairshareMode mode) {
  std::vector<AssocNode> nodes;
  std::string error;
  AssocTree tree;
  if (!ReadTreeCsvFile(DataPath(name), &nodes, &error)) {
    ADD_FAILURE() << error;
    return tree;
  }
  if (!tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(mode), &error)) {
    ADD_FAILURE() << name << ": " << error;
  }
  return tree;
}

int32_t FindAssoc(const AssocTree& tree, const std::string& acct, const std::string& user) {
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    const AssocNode& n = tree.node(i);
    if (n.acct == acct && n.user == user) return i;
  }
  return -1;
}

}  // namespace fairway::test
