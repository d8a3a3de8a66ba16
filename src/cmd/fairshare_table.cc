// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairshare_table.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>

#include "../fairshare.h"
#include "../io/tree_file.h"
#include "../text_util.h"

namespace fairway {

namespace {

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "Usage: fairway fairshare [-P|--parsable] [--mode MODE] [--damp N] TREE.csv\n"
               "  Computes every association's fairshare factor from a tree file and\n"
               "  prints it with sshare's long columns.\n"
               "  MODE: fair_tree (default), classic, depth_oblivious.\n"
               "  TREE.csv columns: id,parent,account,user,shares,usage[,partition,priority]\n");
}

std::string FormatLd(long double value, bool blank_if_noval) {
  if (blank_if_noval && value == kNoValLd) return "";
  if (std::isinf(value)) return "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6Lf", value);
  return buf;
}

}  // namespace

int RunFairshareCommand(const std::vector<std::string>& args) {
  Params params;
  bool parsable = false;
  std::string path;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      PrintUsage(stdout);
      return 0;
    } else if (a == "-P" || a == "--parsable") {
      parsable = true;
    } else if (a == "--mode" && i + 1 < args.size()) {
      Diagnostics d = ParsePriorityParameters("fairshare=" + args[++i], &params);
      if (!d.empty()) {
        std::fprintf(stderr, "fairway fairshare: %s\n", d[0].Format().c_str());
        return 2;
      }
    } else if (a == "--damp" && i + 1 < args.size()) {
      std::optional<int64_t> damp = ParseUnsigned(args[++i]);
      if (!damp || *damp < 1 || *damp > 65535) {
        std::fprintf(stderr, "fairway fairshare: bad --damp '%s' (1..65535)\n", args[i].c_str());
        return 2;
      }
      params.damp_factor = static_cast<uint16_t>(*damp);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "fairway fairshare: unknown option '%s'\n", a.c_str());
      PrintUsage(stderr);
      return 2;
    } else {
      path = a;
    }
  }
  if (path.empty()) {
    PrintUsage(stderr);
    return 2;
  }
  std::vector<AssocNode> nodes;
  std::string error;
  if (!ReadTreeCsvFile(path, &nodes, &error)) {
    std::fprintf(stderr, "fairway fairshare: %s\n", error.c_str());
    return 1;
  }
  AssocTree tree;
  if (!tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(params.Mode()), &error)) {
    std::fprintf(stderr, "fairway fairshare: %s: %s\n", path.c_str(), error.c_str());
    return 1;
  }
  FairshareResults results = ComputeFairshare(tree, params);
  const bool fair_tree = results.mode == FairshareMode::kFairTree;

  if (parsable) {
    std::printf("Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare%s\n",
                fair_tree ? "|LevelFS" : "");
  } else {
    std::printf("%-20s %-10s %10s %11s %11s %11s %13s %10s%s\n", "Account", "User", "RawShares",
                "NormShares", "RawUsage", "NormUsage", "EffectvUsage", "FairShare",
                fair_tree ? "    LevelFS" : "");
    std::printf("%s\n", std::string(fair_tree ? 111 : 100, '-').c_str());
  }
  // Rows in tree order (depth first along the direct parents), like sshare.
  std::function<void(int32_t, int)> print = [&](int32_t i, int depth) {
    const AssocNode& node = tree.node(i);
    const AssocLinks& links = tree.links(i);
    const AssocFairshare& fs = results.assocs[i];
    std::string account = std::string(parsable ? 0 : depth, ' ') + node.acct;
    std::string raw_shares = i == tree.root() ? "" :
        node.uses_parent() ? "parent" : std::to_string(node.shares_raw);
    char norm_shares[32], raw_usage[32], factor[32];
    std::snprintf(norm_shares, sizeof norm_shares, "%.6f", links.shares_norm);
    std::snprintf(raw_usage, sizeof raw_usage, "%" PRIu64, static_cast<uint64_t>(node.usage_raw));
    // Accounts have no FairShare in Fair Tree (sshare leaves it blank).
    bool show_factor = !fair_tree || node.is_user();
    std::snprintf(factor, sizeof factor, "%.6f", fs.job_factor);
    std::string level_fs = node.uses_parent() ? "" : FormatLd(fs.level_fs, true);
    if (parsable) {
      std::printf("%s|%s|%s|%s|%s|%s|%s|%s", account.c_str(), node.user.c_str(),
                  raw_shares.c_str(), norm_shares, raw_usage, FormatLd(fs.usage_norm, true).c_str(),
                  FormatLd(fs.usage_efctv, false).c_str(), show_factor ? factor : "");
      if (fair_tree) std::printf("|%s", level_fs.c_str());
      std::printf("\n");
    } else {
      std::printf("%-20s %-10s %10s %11s %11s %11s %13s %10s", account.c_str(), node.user.c_str(),
                  raw_shares.c_str(), norm_shares, raw_usage,
                  FormatLd(fs.usage_norm, true).c_str(), FormatLd(fs.usage_efctv, false).c_str(),
                  show_factor ? factor : "");
      if (fair_tree) std::printf(" %10s", level_fs.c_str());
      std::printf("\n");
    }
    // Users first, then sub-accounts, as sshare lists them.
    for (int pass = 0; pass < 2; ++pass) {
      for (int32_t c = 0; c < static_cast<int32_t>(tree.size()); ++c) {
        if (tree.links(c).parent != i) continue;
        if (tree.node(c).is_user() == (pass == 0)) print(c, depth + 1);
      }
    }
  };
  print(tree.root(), 0);
  return 0;
}

}  // namespace fairway
