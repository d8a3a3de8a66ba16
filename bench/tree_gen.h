// SPDX-License-Identifier: GPL-2.0-or-later
// Deterministic generators of realistic association trees and pending-job
// inputs for the benchmarks (bench/core_bench.cc). The same (size, seed)
// always gives the same tree and jobs, on any machine.
//
// Tree shape (GenerateTreeNodes): the root account and root's own user
// association; about 1 account association for every 10 user associations;
// top-level accounts whose subtrees are 3, 4 or 5 account levels deep (a
// spine to the full depth, then accounts attached under random eligible
// parents); users only under leaf accounts, unevenly spread (a few big
// accounts, many small ones); about 5% of the user names occur in two
// accounts. Account Fairshare 1-100, users mostly 1, about 5% of user
// associations at Fairshare=parent. Usage: about 15% of the users have none,
// the rest log-uniform between 10^2 and 10^8 billing-seconds; accounts carry
// the sum of their subtree (as Slurm's usage_raw does). Nodes are listed
// depth first (association-manager order); ids are creation order.
#ifndef FAIRWAY_BENCH_TREE_GEN_H_
#define FAIRWAY_BENCH_TREE_GEN_H_

#include <cstdint>
#include <vector>

#include "assoc_tree.h"
#include "job_priority.h"
#include "params.h"

namespace fairway::bench {

// The "now" the generated jobs' accrue times are relative to.
constexpr int64_t kBenchNow = 1700000000;

struct TreeStats {
  size_t assocs = 0, accounts = 0, users = 0, leaf_accounts = 0, zero_usage_users = 0;
  int max_account_depth = 0;
};

// About n_assocs associations (exactly n_assocs for n_assocs >= 20).
std::vector<AssocNode> GenerateTreeNodes(size_t n_assocs, uint64_t seed, TreeStats* stats = nullptr);

// GenerateTreeNodes + AssocTree::Build with the normalisation of mode.
// Aborts (prints and exits) if Build fails: a generator bug.
AssocTree GenerateTree(size_t n_assocs, uint64_t seed, FairshareMode mode,
                       TreeStats* stats = nullptr);

// The weights of the benchmark cluster (scripts/cluster's slurm.conf):
// Age 1000, Fairshare 100000, JobSize 1000, Partition 10000, QOS 10000,
// Assoc 1000, TRES cpu=2000,mem=1 (TRES order cpu, mem, energy, node,
// billing), PriorityFlags=FAIR_TREE, half-life 7 days, MaxAge 7 days.
Params BenchParams(FairshareMode mode);

// n pending jobs as the plugin gathers them: accruing for 0-14 days (some
// not yet), fairshare factor of a random user association of the tree's
// results (job_factors; empty = random in [0, 1]), 2 QOS levels, 1-64 CPUs,
// 1-4 nodes, time limits 10 min - 2 days, one of 2 partitions (5% of the
// jobs in both), requested TRES cpu/mem/node/billing, some nice values.
std::vector<JobInputs> GenerateJobs(size_t n, uint64_t seed, const std::vector<double>& job_factors);

// The cluster the jobs are sized against (4 nodes, 256 CPUs).
ClusterInputs BenchCluster();

}  // namespace fairway::bench

#endif  // FAIRWAY_BENCH_TREE_GEN_H_
