// SPDX-License-Identifier: GPL-2.0-or-later
#include "tree_file.h"

#include <cmath>
#include <fstream>
#include <map>

#include "../text_util.h"

namespace fairway {

namespace {

bool Fail(const std::string& source, int line, const std::string& what, std::string* error) {
  if (error) *error = source + ":" + std::to_string(line) + ": " + what;
  return false;
}

}  // namespace

bool ReadTreeCsv(std::istream& in, const std::string& source, std::vector<AssocNode>* nodes,
                 std::string* error) {
  nodes->clear();
  std::map<std::string, size_t> column;
  std::vector<long double> own_usage;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::string trimmed = Trim(text);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    std::vector<std::string> fields = Split(trimmed, ',');
    for (std::string& f : fields) f = Trim(f);
    if (column.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!column.emplace(ToLower(fields[i]), i).second) {
          return Fail(source, line, "column '" + fields[i] + "' appears twice in the header", error);
        }
      }
      for (const char* required : {"id", "parent", "account", "user", "shares", "usage"}) {
        if (!column.count(required)) {
          return Fail(source, line, std::string("header has no '") + required +
                      "' column (need id,parent,account,user,shares,usage)", error);
        }
      }
      continue;
    }
    auto field = [&](const char* name) -> std::string {
      auto it = column.find(name);
      if (it == column.end() || it->second >= fields.size()) return "";
      return fields[it->second];
    };
    if (fields.size() != column.size()) {
      return Fail(source, line, "expected " + std::to_string(column.size()) + " fields, found " +
                  std::to_string(fields.size()), error);
    }
    AssocNode node;
    std::optional<int64_t> id = ParseUnsigned(field("id"));
    if (!id || *id == 0 || *id > 0xfffffff0) {
      return Fail(source, line, "bad id '" + field("id") + "' (a positive integer)", error);
    }
    node.id = static_cast<uint32_t>(*id);
    std::optional<int64_t> parent = ParseUnsigned(field("parent"));
    if (!parent || *parent > 0xfffffff0) {
      return Fail(source, line, "bad parent '" + field("parent") + "' (an id, or 0 for the root)", error);
    }
    node.parent_id = static_cast<uint32_t>(*parent);
    node.acct = ToLower(field("account"));
    node.user = field("user");
    node.partition = field("partition");
    if (node.acct.empty()) return Fail(source, line, "empty account", error);
    std::string shares = ToLower(field("shares"));
    if (shares == "parent") {
      node.shares_raw = kSharesUseParent;
    } else {
      std::optional<int64_t> s = ParseUnsigned(shares);
      if (!s || *s >= kSharesUseParent) {
        return Fail(source, line, "bad shares '" + field("shares") + "' (a count or 'parent')", error);
      }
      node.shares_raw = static_cast<uint32_t>(*s);
    }
    std::optional<double> usage = ParseDouble(field("usage"));
    if (!usage || !std::isfinite(*usage) || *usage < 0) {
      return Fail(source, line, "bad usage '" + field("usage") + "' (billing-seconds, >= 0)", error);
    }
    if (!field("priority").empty()) {
      std::optional<int64_t> p = ParseUnsigned(field("priority"));
      if (!p || *p > 0xffffffff) {
        return Fail(source, line, "bad priority '" + field("priority") + "'", error);
      }
      node.priority = static_cast<uint32_t>(*p);
    }
    nodes->push_back(node);
    own_usage.push_back(*usage);
  }
  if (column.empty()) {
    if (error) *error = source + ": no header line (the file is empty)";
    return false;
  }

  // Subtree usage: add each association's own usage to every ancestor.
  std::map<uint32_t, size_t> index;
  for (size_t i = 0; i < nodes->size(); ++i) index[(*nodes)[i].id] = i;
  for (AssocNode& n : *nodes) n.usage_raw = 0;
  for (size_t i = 0; i < nodes->size(); ++i) {
    size_t a = i;
    for (size_t steps = 0; steps <= nodes->size(); ++steps) {
      (*nodes)[a].usage_raw += own_usage[i];
      auto it = index.find((*nodes)[a].parent_id);
      if ((*nodes)[a].parent_id == 0 || it == index.end()) break;
      a = it->second;
    }
  }
  return true;
}

bool ReadTreeCsvFile(const std::string& path, std::vector<AssocNode>* nodes, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = path + ": cannot open";
    return false;
  }
  return ReadTreeCsv(in, path, nodes, error);
}

}  // namespace fairway
