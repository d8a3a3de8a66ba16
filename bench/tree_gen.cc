// SPDX-License-Identifier: GPL-2.0-or-later
#include "tree_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "fairshare.h"

namespace fairway::bench {

namespace {

// A fixed generator: std::mt19937_64's sequence is specified by the
// standard, and the helpers below use no std::*_distribution (whose output is
// implementation-defined), so results are identical across libraries.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t Next() { return gen_(); }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) { return Uniform() < p; }

 private:
  std::mt19937_64 gen_;
};

struct GenAccount {
  uint32_t id = 0;
  int parent = -1;  // index into accounts; -1 = under root
  int depth = 1;    // 1 = top level
  int max_depth = 3;
  uint32_t shares = 1;
  std::string name;
  std::vector<int> sub_accounts;
  std::vector<int> users;  // indices into users
};

struct GenUser {
  uint32_t id = 0;
  int account = 0;
  std::string name;
  uint32_t shares = 1;
  long double usage = 0;
};

}  // namespace

std::vector<AssocNode> GenerateTreeNodes(size_t n_assocs, uint64_t seed, TreeStats* stats) {
  Rng rng(seed * 0x9e3779b97f4a7c15ULL + 1);
  n_assocs = std::max<size_t>(n_assocs, 20);
  // root account + root user, then ~1 account per 10 users.
  const size_t body = n_assocs - 2;
  const size_t n_accounts = std::max<size_t>(4, body / 11);
  const size_t n_users = body - n_accounts;
  const size_t n_top = std::max<size_t>(2, static_cast<size_t>(std::lround(std::cbrt(n_accounts))));

  uint32_t next_id = 1;
  const uint32_t root_id = next_id++;
  const uint32_t root_user_id = next_id++;

  std::vector<GenAccount> accounts;
  accounts.reserve(n_accounts);
  auto add_account = [&](int parent, int depth, int max_depth) {
    GenAccount a;
    a.id = next_id++;
    a.parent = parent;
    a.depth = depth;
    a.max_depth = max_depth;
    a.shares = static_cast<uint32_t>(rng.Int(1, 100));
    a.name = "acct" + std::to_string(accounts.size() + 1);
    accounts.push_back(std::move(a));
    const int idx = static_cast<int>(accounts.size()) - 1;
    if (parent >= 0) accounts[parent].sub_accounts.push_back(idx);
    return idx;
  };
  // Top-level accounts, each with a spine down to its depth (3, 4 or 5).
  std::vector<int> tops;
  for (size_t t = 0; t < n_top && accounts.size() < n_accounts; ++t) {
    const int max_depth = static_cast<int>(rng.Int(3, 5));
    int a = add_account(-1, 1, max_depth);
    tops.push_back(a);
    for (int d = 2; d <= max_depth && accounts.size() < n_accounts; ++d) a = add_account(a, d, max_depth);
  }
  // The rest under random accounts that may still have children.
  std::vector<int> eligible;
  for (size_t i = 0; i < accounts.size(); ++i)
    if (accounts[i].depth < accounts[i].max_depth) eligible.push_back(static_cast<int>(i));
  while (accounts.size() < n_accounts) {
    const int parent = eligible[rng.Int(0, static_cast<int64_t>(eligible.size()) - 1)];
    const int a = add_account(parent, accounts[parent].depth + 1, accounts[parent].max_depth);
    if (accounts[a].depth < accounts[a].max_depth) eligible.push_back(a);
  }

  // Users under leaf accounts, with Pareto-like account sizes.
  std::vector<int> leaves;
  for (size_t i = 0; i < accounts.size(); ++i)
    if (accounts[i].sub_accounts.empty()) leaves.push_back(static_cast<int>(i));
  std::vector<double> cumulative;
  double total = 0;
  for (size_t i = 0; i < leaves.size(); ++i) {
    total += 1.0 / std::pow(1.0 - rng.Uniform(), 0.7);  // heavy tail
    cumulative.push_back(total);
  }
  std::vector<GenUser> users;
  users.reserve(n_users);
  size_t distinct_names = 0;
  for (size_t u = 0; u < n_users; ++u) {
    GenUser g;
    g.id = next_id++;
    // The first user of each leaf account guarantees no leaf is empty.
    if (u < leaves.size()) {
      g.account = leaves[u];
    } else {
      const double x = rng.Uniform() * total;
      g.account = leaves[std::upper_bound(cumulative.begin(), cumulative.end(), x) - cumulative.begin()];
      if (g.account >= static_cast<int>(accounts.size())) g.account = leaves.back();
    }
    // ~5% reuse an existing user name (one person in two accounts).
    if (distinct_names > 0 && rng.Chance(0.05)) {
      g.name = "u" + std::to_string(rng.Int(1, static_cast<int64_t>(distinct_names)));
    } else {
      g.name = "u" + std::to_string(++distinct_names);
    }
    g.shares = rng.Chance(0.05) ? kSharesUseParent : (rng.Chance(0.8) ? 1 : static_cast<uint32_t>(rng.Int(2, 10)));
    if (!rng.Chance(0.15)) g.usage = std::pow(10.0L, 2.0L + 6.0L * rng.Uniform());
    accounts[g.account].users.push_back(static_cast<int>(users.size()));
    users.push_back(std::move(g));
  }

  // Subtree usage of each account (children are created after parents).
  std::vector<long double> acct_usage(accounts.size(), 0);
  for (const GenUser& g : users) acct_usage[g.account] += g.usage;
  for (size_t i = accounts.size(); i-- > 0;)
    if (accounts[i].parent >= 0) acct_usage[accounts[i].parent] += acct_usage[i];
  long double root_usage = 0;
  for (int t : tops) root_usage += acct_usage[t];

  // Depth-first listing, users before sub-accounts.
  std::vector<AssocNode> nodes;
  nodes.reserve(2 + accounts.size() + users.size());
  AssocNode root;
  root.id = root_id;
  root.parent_id = 0;
  root.acct = "root";
  root.usage_raw = root_usage;
  nodes.push_back(root);
  AssocNode root_user;
  root_user.id = root_user_id;
  root_user.parent_id = root_id;
  root_user.acct = "root";
  root_user.user = "root";
  root_user.shares_raw = 1;
  nodes.push_back(root_user);
  std::vector<int> stack(tops.rbegin(), tops.rend());
  int max_depth_seen = 0;
  while (!stack.empty()) {
    const int a = stack.back();
    stack.pop_back();
    const GenAccount& acc = accounts[a];
    max_depth_seen = std::max(max_depth_seen, acc.depth);
    AssocNode n;
    n.id = acc.id;
    n.parent_id = acc.parent >= 0 ? accounts[acc.parent].id : root_id;
    n.acct = acc.name;
    n.shares_raw = acc.shares;
    n.usage_raw = acct_usage[a];
    nodes.push_back(std::move(n));
    for (int ui : acc.users) {
      const GenUser& g = users[ui];
      AssocNode un;
      un.id = g.id;
      un.parent_id = acc.id;
      un.acct = acc.name;
      un.user = g.name;
      un.shares_raw = g.shares;
      un.usage_raw = g.usage;
      nodes.push_back(std::move(un));
    }
    for (auto it = acc.sub_accounts.rbegin(); it != acc.sub_accounts.rend(); ++it) stack.push_back(*it);
  }

  if (stats) {
    *stats = TreeStats{};
    stats->assocs = nodes.size();
    stats->accounts = accounts.size() + 1;
    stats->users = users.size() + 1;
    stats->leaf_accounts = leaves.size();
    for (const GenUser& g : users) stats->zero_usage_users += g.usage == 0;
    stats->max_account_depth = max_depth_seen;
  }
  return nodes;
}

AssocTree GenerateTree(size_t n_assocs, uint64_t seed, FairshareMode mode, TreeStats* stats) {
  AssocTree tree;
  std::string error;
  if (!tree.Build(GenerateTreeNodes(n_assocs, seed, stats), SharesNormalizedLikeFairTree(mode), &error)) {
    std::fprintf(stderr, "tree_gen: AssocTree::Build failed: %s\n", error.c_str());
    std::exit(2);
  }
  return tree;
}

Params BenchParams(FairshareMode mode) {
  Params p;
  p.weight_age = 1000;
  p.weight_assoc = 1000;
  p.weight_fairshare = 100000;
  p.weight_job_size = 1000;
  p.weight_partition = 10000;
  p.weight_qos = 10000;
  p.weight_tres = {2000, 1, 0, 0, 0};  // cpu, mem, energy, node, billing
  p.flags = kFlagFairTree;
  p.decay_half_life_s = 7 * 86400;
  p.calc_period_s = 60;
  p.max_age_s = 7 * 86400;
  p.mode_override = mode;
  p.planned_use_capacity = 256;  // billing/s: the BenchCluster's CPUs
  return p;
}

ClusterInputs BenchCluster() { return ClusterInputs{256, 4}; }

std::vector<JobInputs> GenerateJobs(size_t n, uint64_t seed, const std::vector<double>& job_factors) {
  Rng rng(seed * 0xbf58476d1ce4e5b9ULL + 7);
  const int64_t now = kBenchNow;
  PartitionInputs debug;
  debug.name = "debug";
  debug.priority_job_factor = 10;
  debug.norm_priority = 0.1;
  debug.max_time_min = 0xffffffff;  // INFINITE
  debug.tres_cnt = {256, 4 * 24103, 0, 4, 256};
  PartitionInputs high = debug;
  high.name = "high";
  high.priority_job_factor = 100;
  high.norm_priority = 1.0;

  std::vector<JobInputs> jobs(n);
  for (size_t i = 0; i < n; ++i) {
    JobInputs& j = jobs[i];
    j.job_id = static_cast<uint32_t>(1000 + i);
    j.accrue_time = rng.Chance(0.1) ? 0 : now - rng.Int(0, 14 * 86400);
    j.has_assoc = true;
    j.fairshare_factor = job_factors.empty()
                             ? rng.Uniform()
                             : job_factors[rng.Int(0, static_cast<int64_t>(job_factors.size()) - 1)];
    j.assoc_priority = 0;
    j.assoc_priority_norm = 0;
    j.has_qos = true;
    const bool hi_qos = rng.Chance(0.2);
    j.qos_priority = hi_qos ? 100 : 10;
    j.qos_norm_priority = hi_qos ? 1.0 : 0.1;
    const uint32_t cpus = static_cast<uint32_t>(1u << rng.Int(0, 6));
    j.min_cpus = cpus;
    j.max_cpus = kNoVal;
    j.min_nodes = static_cast<uint32_t>(rng.Int(1, cpus >= 16 ? 4 : 1));
    j.time_limit_min = static_cast<uint32_t>(rng.Int(10, 2 * 1440));
    const bool in_high = rng.Chance(0.3);
    j.partition = in_high ? high : debug;
    if (rng.Chance(0.05)) j.partition_list = {high, debug};
    j.site_factor = kNiceOffset;
    j.nice = rng.Chance(0.05) ? kNiceOffset + static_cast<uint32_t>(rng.Int(1, 1000)) : kNiceOffset;
    const uint64_t mem = uint64_t{512} * cpus;
    j.tres_req = {cpus, mem, 0, j.min_nodes, cpus};
  }
  return jobs;
}

}  // namespace fairway::bench
