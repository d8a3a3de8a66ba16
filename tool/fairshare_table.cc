// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairshare_table.h"

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "fairshare.h"
#include "io/tree_file.h"
#include "text_util.h"

namespace fairway {

namespace {

struct FairshareArgs {
  std::string path;
  std::string mode;
  int damp = 1;
  bool parsable = false;
  bool long_format = false;
  bool json = false;
};

std::string FormatLd(long double value, bool blank_if_noval) {
  if (blank_if_noval && value == kNoValLd) return "";
  if (std::isinf(value)) return "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6Lf", value);
  return buf;
}

struct Row {
  int depth = 0;
  std::string account, user, raw_shares, norm_shares, raw_usage, norm_usage, effectv_usage,
      fairshare, level_fs;
};

int RunFairshare(const FairshareArgs& args) {
  Params params;
  if (!args.mode.empty()) {
    Diagnostics d = ParsePriorityParameters("fairshare=" + args.mode, &params);
    if (!d.empty()) {
      std::fprintf(stderr, "fairway fairshare: %s\n", d[0].Format().c_str());
      return 2;
    }
  }
  params.damp_factor = static_cast<uint16_t>(args.damp);
  std::vector<AssocNode> nodes;
  std::string error;
  if (!ReadTreeCsvFile(args.path, &nodes, &error)) {
    std::fprintf(stderr, "fairway fairshare: %s\n", error.c_str());
    return 1;
  }
  AssocTree tree;
  if (!tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(params.Mode()), &error)) {
    std::fprintf(stderr, "fairway fairshare: %s: %s\n", args.path.c_str(), error.c_str());
    return 1;
  }
  FairshareResults results = ComputeFairshare(tree, params, nullptr, 0);
  const bool fair_tree = results.mode == FairshareMode::kFairTree;

  // Rows in tree order (depth first along the direct parents), like sshare.
  std::vector<Row> rows;
  std::function<void(int32_t, int)> collect = [&](int32_t i, int depth) {
    const AssocNode& node = tree.node(i);
    const AssocFairshare& fs = results.assocs[i];
    Row r;
    r.depth = depth;
    r.account = node.acct;
    r.user = node.user;
    r.raw_shares = i == tree.root() ? "" : node.uses_parent() ? "parent" : std::to_string(node.shares_raw);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", tree.links(i).shares_norm);
    r.norm_shares = buf;
    std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(node.usage_raw));
    r.raw_usage = buf;
    r.norm_usage = FormatLd(fs.usage_norm, true);
    r.effectv_usage = FormatLd(fs.usage_efctv, false);
    // Accounts have no FairShare in Fair Tree (sshare leaves it blank).
    if (!fair_tree || node.is_user()) {
      std::snprintf(buf, sizeof buf, "%.6f", fs.job_factor);
      r.fairshare = buf;
    }
    r.level_fs = node.uses_parent() ? "" : FormatLd(fs.level_fs, true);
    rows.push_back(r);
    // Users first, then sub-accounts, as sshare lists them.
    for (int pass = 0; pass < 2; ++pass) {
      for (int32_t c = 0; c < static_cast<int32_t>(tree.size()); ++c) {
        if (tree.links(c).parent != i) continue;
        if (tree.node(c).is_user() == (pass == 0)) collect(c, depth + 1);
      }
    }
  };
  collect(tree.root(), 0);

  const bool show_level = args.long_format && fair_tree;
  if (args.json) {
    nlohmann::json j;
    j["mode"] = FairshareModeName(results.mode);
    j["associations"] = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json a = {{"account", r.account},        {"user", r.user},
                          {"depth", r.depth},            {"raw_shares", r.raw_shares},
                          {"norm_shares", r.norm_shares}, {"raw_usage", r.raw_usage},
                          {"norm_usage", r.norm_usage},   {"effective_usage", r.effectv_usage},
                          {"fairshare", r.fairshare},     {"level_fs", r.level_fs}};
      j["associations"].push_back(a);
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (args.parsable) {
    std::printf("Account|User|RawShares|NormShares|RawUsage|%sEffectvUsage|FairShare%s\n",
                args.long_format ? "NormUsage|" : "", show_level ? "|LevelFS" : "");
    for (const Row& r : rows) {
      std::printf("%s|%s|%s|%s|%s|", r.account.c_str(), r.user.c_str(), r.raw_shares.c_str(),
                  r.norm_shares.c_str(), r.raw_usage.c_str());
      if (args.long_format) std::printf("%s|", r.norm_usage.c_str());
      std::printf("%s|%s", r.effectv_usage.c_str(), r.fairshare.c_str());
      if (show_level) std::printf("|%s", r.level_fs.c_str());
      std::printf("\n");
    }
    return 0;
  }
  std::printf("%-20s %-10s %10s %11s %11s ", "Account", "User", "RawShares", "NormShares", "RawUsage");
  if (args.long_format) std::printf("%11s ", "NormUsage");
  std::printf("%13s %10s", "EffectvUsage", "FairShare");
  if (show_level) std::printf(" %10s", "LevelFS");
  std::printf("\n%s\n", std::string(88 + (args.long_format ? 12 : 0) + (show_level ? 11 : 0), '-').c_str());
  for (const Row& r : rows) {
    std::string account = std::string(r.depth, ' ') + r.account;
    std::printf("%-20s %-10s %10s %11s %11s ", account.c_str(), r.user.c_str(), r.raw_shares.c_str(),
                r.norm_shares.c_str(), r.raw_usage.c_str());
    if (args.long_format) std::printf("%11s ", r.norm_usage.c_str());
    std::printf("%13s %10s", r.effectv_usage.c_str(), r.fairshare.c_str());
    if (show_level) std::printf(" %10s", r.level_fs.c_str());
    std::printf("\n");
  }
  return 0;
}

}  // namespace

void RegisterFairshareCommand(CLI::App& app) {
  auto args = std::make_shared<FairshareArgs>();
  CLI::App* sub = app.add_subcommand(
      "fairshare",
      "Compute every association's fairshare factor from a tree file and print it with sshare's "
      "columns. TREE.csv columns: id,parent,account,user,shares,usage[,partition,priority]");
  sub->add_option("TREE.csv", args->path, "association tree file")->required();
  sub->add_option("--mode", args->mode, "fair_tree (default), classic, depth_oblivious");
  sub->add_option("--damp", args->damp, "FairShareDampeningFactor (1..65535)")->check(CLI::Range(1, 65535));
  sub->add_flag("-P,--parsable", args->parsable, "'|'-separated output, as sshare -P");
  sub->add_flag("-l,--long", args->long_format, "long format: add NormUsage and LevelFS, as sshare -l");
  sub->add_flag("--json", args->json, "JSON output");
  sub->callback([args]() {
    int rc = RunFairshare(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
