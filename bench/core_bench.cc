// SPDX-License-Identifier: GPL-2.0-or-later
// Core micro-benchmarks (Google Benchmark): the fairshare pass of every mode
// over generated association trees of 1k, 10k and 100k associations, the
// snapshot build (AssocTree::Build) the plugin does before each pass, the
// priorities of 10k, 100k and 1M pending jobs (general path and the flat
// path the decay pass takes for single-partition jobs), and the issue's
// whole scenario (1,100 associations, 20,000 jobs). Single-threaded; times
// are CPU time.
// After the table it checks the targets of the performance issue:
//   fairshare pass over 100k associations < 20 ms (every mode),
//   priorities of 1M jobs < 100 ms (one core).
// Run: make bench-core   (or ./fairway_core_bench --benchmark_filter=...)
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "assoc_tree.h"
#include "decay.h"
#include "fairshare.h"
#include "flat_priority.h"
#include "job_priority.h"
#include "metrics.h"
#include "params.h"
#include "planned_use.h"
#include "ranged_tree.h"
#include "remote_usage.h"
#include "tree_gen.h"

namespace fb = fairway::bench;
using fairway::AssocNode;
using fairway::AssocTree;
using fairway::FairshareMode;
using fairway::FairshareResults;
using fairway::JobInputs;
using fairway::Params;

namespace {

constexpr uint64_t kTreeSeed = 20230501;
constexpr uint64_t kJobSeed = 7;

const FairshareMode kModes[] = {FairshareMode::kClassic, FairshareMode::kDepthOblivious,
                                FairshareMode::kFairTree, FairshareMode::kRanged,
                                FairshareMode::kPlannedUse};
const size_t kTreeSizes[] = {1000, 10000, 100000};
const size_t kJobCounts[] = {10000, 100000, 1000000};

// Fixtures are built once per process and reused by every repetition.
const std::vector<AssocNode>& Nodes(size_t n) {
  static std::map<size_t, std::unique_ptr<std::vector<AssocNode>>> cache;
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<std::vector<AssocNode>>(fb::GenerateTreeNodes(n, kTreeSeed));
  return *slot;
}

const AssocTree& Tree(size_t n, FairshareMode mode) {
  static std::map<std::pair<size_t, bool>, std::unique_ptr<AssocTree>> cache;
  const bool ft = fairway::SharesNormalizedLikeFairTree(mode);
  auto& slot = cache[{n, ft}];
  if (!slot) slot = std::make_unique<AssocTree>(fb::GenerateTree(n, kTreeSeed, mode));
  return *slot;
}

// A planned-use ledger as after weeks of use: closed history and an open
// interval for every association, proportional to its decayed usage.
const fairway::PlannedUseLedger& Ledger(size_t n) {
  static std::map<size_t, std::unique_ptr<fairway::PlannedUseLedger>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<fairway::PlannedUseLedger>();
    const AssocTree& tree = Tree(n, FairshareMode::kPlannedUse);
    slot->interval_index = fb::kBenchNow / 86400;
    for (const AssocNode& node : tree.nodes()) {
      if (node.usage_raw <= 0) continue;
      slot->entries[node.id] = fairway::PlannedUseEntry{node.usage_raw * 0.05L, node.usage_raw * 0.002L};
    }
  }
  return *slot;
}

const std::vector<JobInputs>& Jobs(size_t n) {
  static std::map<size_t, std::unique_ptr<std::vector<JobInputs>>> cache;
  auto& slot = cache[n];
  if (!slot) {
    // Fairshare factors as a Fair Tree pass over a 10k tree gives them.
    FairshareMode mode = FairshareMode::kFairTree;
    const AssocTree& tree = Tree(10000, mode);
    FairshareResults r = fairway::ComputeFairshare(tree, fb::BenchParams(mode), nullptr, 0);
    std::vector<double> factors;
    for (size_t i = 0; i < tree.size(); ++i)
      if (tree.node(static_cast<int32_t>(i)).is_user()) factors.push_back(r.assocs[i].job_factor);
    slot = std::make_unique<std::vector<JobInputs>>(fb::GenerateJobs(n, kJobSeed, factors));
  }
  return *slot;
}

void BM_Fairshare(benchmark::State& state, FairshareMode mode, size_t n) {
  const AssocTree& tree = Tree(n, mode);
  const Params params = fb::BenchParams(mode);
  const fairway::PlannedUseLedger* ledger = mode == FairshareMode::kPlannedUse ? &Ledger(n) : nullptr;
  for (auto _ : state) {
    FairshareResults r = fairway::ComputeFairshare(tree, params, ledger, 0);
    benchmark::DoNotOptimize(r.assocs.data());
    benchmark::ClobberMemory();
  }
  state.counters["assocs"] = static_cast<double>(tree.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(tree.size()));
}

void BM_TreeBuild(benchmark::State& state, size_t n) {
  const std::vector<AssocNode>& nodes = Nodes(n);
  for (auto _ : state) {
    AssocTree tree;
    std::string error;
    bool ok = tree.Build(nodes, true, &error);  // copies the nodes, as a snapshot does
    benchmark::DoNotOptimize(ok);
  }
  state.counters["assocs"] = static_cast<double>(nodes.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(nodes.size()));
}

void BM_JobPriority(benchmark::State& state, size_t n) {
  const std::vector<JobInputs>& jobs = Jobs(n);
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const fairway::ClusterInputs cluster = fb::BenchCluster();
  fairway::JobPriority result;
  uint64_t checksum = 0;
  for (auto _ : state) {
    for (const JobInputs& job : jobs) {
      fairway::ComputeJobPriorityInto(job, params, cluster, fb::kBenchNow, &result);
      checksum += result.priority;
    }
    benchmark::DoNotOptimize(checksum);
  }
  state.counters["jobs"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

// The configuration input of params, as the plugin copies slurm.conf.
fw_config_input_t ConfigInputOf(const Params& params) {
  fw_config_input_t in{};
  in.weight_age = params.weight_age;
  in.weight_assoc = params.weight_assoc;
  in.weight_fairshare = params.weight_fairshare;
  in.weight_job_size = params.weight_job_size;
  in.weight_partition = params.weight_partition;
  in.weight_qos = params.weight_qos;
  in.weight_tres = params.weight_tres.empty() ? nullptr : params.weight_tres.data();
  in.tres_cnt = static_cast<uint32_t>(params.weight_tres.size());
  in.weight_tres_text = params.weight_tres.empty() ? nullptr : "bench";
  in.flags = params.flags;
  in.decay_half_life_s = static_cast<uint32_t>(params.decay_half_life_s);
  in.calc_period_s = static_cast<uint32_t>(params.calc_period_s);
  in.max_age_s = static_cast<uint32_t>(params.max_age_s);
  in.favor_small = params.favor_small;
  in.damp_factor = params.damp_factor;
  in.with_slurmdbd = true;
  return in;
}

// The jobs as the boundary hands them to the core: one record each, and
// one partition array (a partition per distinct value, as in a cluster).
struct Records {
  std::vector<std::vector<uint64_t>> part_tres;
  std::vector<fw_partition_input_t> parts;
  std::vector<std::vector<uint64_t>> alloc, req;
  std::vector<fw_job_input_t> jobs;
};

void BuildRecords(const std::vector<JobInputs>& jobs, size_t tres_cnt, Records* r) {
  const size_t n = jobs.size();
  std::map<std::vector<double>, size_t> part_of;
  r->alloc.assign(n, {});
  r->req.assign(n, {});
  r->jobs.assign(n, fw_job_input_t{});
  std::vector<uint32_t> job_part(n, FW_NO_PARTITION);
  for (size_t i = 0; i < n; ++i) {
    const JobInputs& j = jobs[i];
    if (j.partition) {
      std::vector<double> value = {static_cast<double>(j.partition->priority_job_factor),
                                   j.partition->norm_priority,
                                   static_cast<double>(j.partition->max_time_min)};
      for (uint64_t t : j.partition->tres_cnt) value.push_back(static_cast<double>(t));
      auto it = part_of.find(value);
      if (it == part_of.end()) {
        r->part_tres.push_back(j.partition->tres_cnt);
        r->part_tres.back().resize(tres_cnt, 0);
        fw_partition_input_t p{};
        p.priority_job_factor = j.partition->priority_job_factor;
        p.norm_priority = j.partition->norm_priority;
        p.max_time_min = j.partition->max_time_min;
        r->parts.push_back(p);
        it = part_of.emplace(value, r->parts.size() - 1).first;
      }
      job_part[i] = static_cast<uint32_t>(it->second);
    }
    r->alloc[i] = j.tres_alloc;
    r->req[i] = j.tres_req;
    if (!r->alloc[i].empty()) r->alloc[i].resize(tres_cnt, 0);
    if (!r->req[i].empty()) r->req[i].resize(tres_cnt, 0);
  }
  for (size_t p = 0; p < r->parts.size(); ++p) {
    r->parts[p].tres_cnt = r->part_tres[p].empty() ? nullptr : r->part_tres[p].data();
  }
  for (size_t i = 0; i < n; ++i) {
    const JobInputs& j = jobs[i];
    fw_job_input_t& s = r->jobs[i];
    s.job_id = static_cast<uint32_t>(i + 1);
    s.record_index = static_cast<uint32_t>(i);
    s.priority = 1;
    s.scalars = j;  // the scalars as one struct
    s.tres_alloc = r->alloc[i].empty() ? nullptr : r->alloc[i].data();
    s.tres_req = r->req[i].empty() ? nullptr : r->req[i].data();
    s.partition = job_part[i];
  }
}

// The same jobs on the decay pass's path for single-partition jobs
// (flat_priority.h): computed on the boundary's records directly, the
// weights prepared once. The records are built before timing, as the
// plugin builds them while reading the job records.
void BM_FlatPriority(benchmark::State& state, size_t n) {
  const std::vector<JobInputs>& jobs = Jobs(n);
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const fairway::ClusterInputs cluster = fb::BenchCluster();
  std::vector<uint32_t> weighted_columns;
  for (size_t column = 0; column < params.weight_tres.size(); ++column) {
    if (params.weight_tres[column] != 0) weighted_columns.push_back(static_cast<uint32_t>(column));
  }
  fairway::FlatWeights weights;
  fairway::BuildFlatWeights(params, weighted_columns, params.weight_tres.size(), &weights);
  Records records;
  BuildRecords(jobs, params.weight_tres.size(), &records);
  std::vector<double> tres(weighted_columns.size() + 1);
  fairway::FlatResult result;
  uint64_t checksum = 0;
  for (auto _ : state) {
    for (const fw_job_input_t& job : records.jobs) {
      const fw_partition_input_t* part =
          job.partition == FW_NO_PARTITION ? nullptr : &records.parts[job.partition];
      fairway::ComputeFlatPriority(job, part, weights, cluster, fb::kBenchNow, &result,
                                   tres.data());
      checksum += result.priority;
    }
    benchmark::DoNotOptimize(checksum);
  }
  state.counters["jobs"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

// The decay pass's priority part through the C interface the boundary
// calls (fairway_api.h): begin, one fw_pass_add per job, end, and the store
// of every job (all changed: the worst case, as after a restart). The
// records are built before timing, as the boundary builds them while
// reading the job records. Compare with FlatPriority (the arithmetic
// alone): the difference is what the tables and the interface cost.
// A whole pass through the C interface. steady = false: every job's
// priority differs from its record's (never written back), so every job is
// stored every pass, the worst case (a pass after a restart or a weight
// change). steady = true: the stored priorities are written back and each
// pass comes PriorityCalcPeriod's default 5 minutes later, so only the jobs
// whose age term crossed an integer change (counter: stored per pass).
void BM_ApiPass(benchmark::State& state, size_t n, bool steady) {
  const std::vector<JobInputs> jobs = fb::GenerateJobs(n, kJobSeed, {});
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const fw_config_input_t in = ConfigInputOf(params);
  fw_config_t* config = fw_config_create(&in, nullptr, false);
  Records records;
  BuildRecords(jobs, params.weight_tres.size(), &records);
  const fw_cluster_t cluster{fb::BenchCluster().cluster_cpus, fb::BenchCluster().node_count};
  fw_pass_t* pass = fw_pass_create();
  // The job ids as a walk over the job list finds them: the pass sizes its
  // tables from them.
  std::vector<uint32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = records.jobs[i].job_id;
  fw_pass_assign_walked(pass, ids.data(), n);
  uint64_t checksum = 0, stored = 0;
  int64_t now = fb::kBenchNow;
  auto run = [&] {
    fw_pass_begin(pass, config, &cluster, now);
    for (const fw_job_input_t& job : records.jobs) fw_pass_add(pass, &job, records.parts.data());
    fw_pass_end_gather(pass);
    fw_store_item_t item;
    bool finished = false;
    while (!finished) {
      while (fw_pass_store_next(pass, true, &item)) {
        checksum += item.factors.priority;
        ++stored;
        if (steady) records.jobs[item.job_id - 1].priority = item.factors.priority;
      }
      finished = fw_pass_store_end_slice(pass);
    }
    fw_pass_trim(pass);  // as the plugin does after every store
    if (steady) now += 300;
  };
  if (steady) {
    run();  // the first pass of a process stores every job
    run();
    stored = 0;
  }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(checksum);
  }
  fw_pass_destroy(pass);
  fw_config_unref(config);
  state.counters["jobs"] = static_cast<double>(n);
  state.counters["stored"] = static_cast<double>(stored) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

// The issue's controller: Fair Tree, ~1,100 associations, 20,000 pending
// jobs. One pass = snapshot build + fairshare + every job's priority.
void BM_IssuePass(benchmark::State& state) {
  const size_t n_assocs = 1100, n_jobs = 20000;
  const FairshareMode mode = FairshareMode::kFairTree;
  const std::vector<AssocNode>& nodes = Nodes(n_assocs);
  const Params params = fb::BenchParams(mode);
  const fairway::ClusterInputs cluster = fb::BenchCluster();
  std::vector<JobInputs> jobs = fb::GenerateJobs(n_jobs, kJobSeed, {});
  // Each job belongs to a user association (index into the tree).
  std::vector<int32_t> user_idx;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].is_user()) user_idx.push_back(static_cast<int32_t>(i));
  std::vector<int32_t> job_assoc(n_jobs);
  std::mt19937_64 gen(kJobSeed);
  for (auto& a : job_assoc) a = user_idx[gen() % user_idx.size()];
  uint64_t checksum = 0;
  for (auto _ : state) {
    AssocTree tree;
    std::string error;
    tree.Build(nodes, true, &error);
    FairshareResults r = fairway::ComputeFairshare(tree, params, nullptr, 0);
    for (size_t j = 0; j < n_jobs; ++j) {
      jobs[j].fairshare_factor = r.assocs[job_assoc[j]].job_factor;
      checksum += fairway::ComputeJobPriority(jobs[j], params, cluster, fb::kBenchNow).priority;
    }
    benchmark::DoNotOptimize(checksum);
  }
  state.counters["assocs"] = static_cast<double>(nodes.size());
  state.counters["jobs"] = static_cast<double>(n_jobs);
}

// Console output as usual, plus each benchmark's CPU time (ms) for the
// target check.
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal (a reporter given to RunSpecifiedBenchmarks
  // does not follow --benchmark_color).
  RecordingReporter() : ConsoleReporter(isatty(1) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& run : reports) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      // All benchmarks here use milliseconds.
      cpu_ms[run.benchmark_name()] = run.GetAdjustedCPUTime();
    }
    ConsoleReporter::ReportRuns(reports);
  }
  std::map<std::string, double> cpu_ms;
};

std::string Name(const char* kind, const std::string& what, size_t n) {
  return std::string(kind) + "/" + what + "/" + std::to_string(n);
}

void PrintTreeShapes() {
  std::printf("Generated trees (seed %llu):\n", static_cast<unsigned long long>(kTreeSeed));
  for (size_t n : {size_t{1100}, kTreeSizes[0], kTreeSizes[1], kTreeSizes[2]}) {
    fb::TreeStats s;
    fb::GenerateTreeNodes(n, kTreeSeed, &s);
    std::printf("  %7zu assocs: %6zu accounts (%6zu leaf, depth <= %d), %7zu users (%zu with no usage)\n",
                s.assocs, s.accounts, s.leaf_accounts, s.max_account_depth, s.users,
                s.zero_usage_users);
  }
  std::fflush(stdout);
}

// `fairway metrics`' text of a 10,000-association tree with 20,000 jobs
// (issue 48: under a second): the controller's values as the generated
// tree's recomputed fairshare, jobs spread over the users.
void BM_MetricsRender(benchmark::State& state, size_t n_assocs, size_t n_jobs) {
  const AssocTree& tree = Tree(n_assocs, FairshareMode::kFairTree);
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const FairshareResults r = fairway::ComputeFairshare(tree, params, nullptr, 0);
  fairway::client::ControllerState controller;
  controller.params = params;
  controller.tres_names = {"cpu", "mem", "energy", "node", "billing"};
  std::vector<uint32_t> users;
  for (size_t i = 0; i < tree.size(); ++i) {
    fairway::client::ControllerAssoc a;
    a.node = tree.node(static_cast<int32_t>(i));
    a.shares_norm = tree.links(static_cast<int32_t>(i)).shares_norm;
    a.usage_norm = r.assocs[i].usage_efctv;
    a.usage_efctv = r.assocs[i].usage_efctv;
    a.fs_factor = r.assocs[i].job_factor;
    a.level_fs = r.assocs[i].level_fs;
    if (a.node.is_user()) users.push_back(a.node.id);
    controller.assocs.push_back(a);
  }
  std::vector<fairway::client::ControllerJob> jobs(n_jobs);
  for (size_t j = 0; j < n_jobs; ++j) {
    jobs[j].job_id = static_cast<uint32_t>(1000 + j);
    jobs[j].assoc_id = users[(j * 7919) % users.size()];
    jobs[j].pending = j % 5 != 0;
    jobs[j].job_state = jobs[j].pending ? 0 : 1;
    jobs[j].priority = static_cast<uint32_t>(100000 + (j * 104729) % 900000);
    jobs[j].tres_req = {1 + j % 4, 1000 * (1 + j % 8), 0, 1, 1 + j % 4};
    if (!jobs[j].pending) jobs[j].tres_alloc = jobs[j].tres_req;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = fairway::RenderMetrics(controller, jobs, (22u << 16) | (5u << 8));
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["assocs"] = static_cast<double>(tree.size());
  state.counters["bytes"] = static_cast<double>(bytes);
}

// ---- global fairshare (issue 49): the other clusters' usage --------------

constexpr size_t kRemoteClusters = 3;
constexpr size_t kRemoteJobsPerDay = 50000;

// The association records slurmdbd returns for a cluster with the tree of
// Nodes(n): the same paths, so that every remote path has a node here.
std::vector<fairway::RemoteAssoc> RemoteAssocs(size_t n) {
  const std::vector<AssocNode>& nodes = Nodes(n);
  std::map<uint32_t, const AssocNode*> by_id;
  for (const AssocNode& node : nodes) by_id[node.id] = &node;
  std::vector<fairway::RemoteAssoc> out;
  for (const AssocNode& node : nodes) {
    auto parent = by_id.find(node.parent_id);
    const bool has_parent = node.parent_id != 0 && parent != by_id.end();
    out.push_back({node.id, node.acct, node.user, node.partition,
                   has_parent && !node.is_user() ? parent->second->acct : ""});
  }
  return out;
}

// n_jobs ended jobs of the user associations, ends spread evenly over
// [from, to], ids from first_id.
std::vector<fairway::RemoteJob> RemoteJobs(size_t n, size_t n_jobs, uint32_t first_id,
                                           int64_t from, int64_t to) {
  std::vector<uint32_t> users;
  for (const AssocNode& node : Nodes(n))
    if (node.is_user()) users.push_back(node.id);
  std::vector<fairway::RemoteJob> jobs(n_jobs);
  for (size_t i = 0; i < n_jobs; ++i) {
    fairway::RemoteJob& j = jobs[i];
    j.job_id = first_id + static_cast<uint32_t>(i);
    j.assoc_id = users[(i * 7919) % users.size()];
    j.end = from + static_cast<int64_t>((to - from) * i / std::max<size_t>(n_jobs - 1, 1));
    j.start = j.end - 60 * static_cast<int64_t>(1 + (i * 31) % 60);
    j.submit = j.start - 60;
    j.billing = static_cast<double>(1 + i % 4);
  }
  return jobs;
}

std::string RemoteName(size_t c) { return "r" + std::to_string(c + 1); }

// After a day of syncs: every cluster's first sync (a day of jobs).
const fairway::RemoteUsage& Remote(size_t n) {
  static std::map<size_t, std::unique_ptr<fairway::RemoteUsage>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<fairway::RemoteUsage>();
    const Params params = fb::BenchParams(FairshareMode::kFairTree);
    const double decay = fairway::DecayFactorPerSecond(params.decay_half_life_s);
    const std::vector<fairway::RemoteAssoc> assocs = RemoteAssocs(n);
    for (size_t c = 0; c < kRemoteClusters; ++c) {
      slot->Sync(RemoteName(c), &assocs,
                 RemoteJobs(n, kRemoteJobsPerDay, 1, fb::kBenchNow - 86400, fb::kBenchNow),
                 fb::kBenchNow, decay, params.decay_half_life_s);
    }
  }
  return *slot;
}

std::vector<std::pair<std::string, double>> RemoteClusterList() {
  std::vector<std::pair<std::string, double>> clusters;
  for (size_t c = 0; c < kRemoteClusters; ++c) clusters.emplace_back(RemoteName(c), 1.0);
  return clusters;
}

// What each decay pass adds with fairshare_clusters outside planned use
// (api_remote.cc's AddRemoteUsage): the usage decayed to now per cluster
// and path (a view), summed per path, and added to each path's node and
// its ancestors, with the local-path index the pass keeps (its signature
// checked each pass).
void BM_RemotePassAdd(benchmark::State& state, size_t n) {
  const fairway::RemoteUsage& remote = Remote(n);
  const AssocTree& tree = Tree(n, FairshareMode::kFairTree);
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const double decay = fairway::DecayFactorPerSecond(params.decay_half_life_s);
  const auto clusters = RemoteClusterList();
  const fairway::LocalPathIndex index = fairway::MakeLocalPathIndex(tree);
  for (auto _ : state) {
    fairway::ClustersView view = remote.UsedView(clusters, fb::kBenchNow + 60, decay, nullptr);
    benchmark::DoNotOptimize(fairway::LocalPathSignature(tree));
    std::vector<long double> extra = fairway::RemoteSubtreeUsage(tree, view, index, nullptr);
    benchmark::DoNotOptimize(extra.data());
  }
  state.counters["paths"] = static_cast<double>(remote.clusters().begin()->second.ended.size());
}

// The file each pass writes for explain (fairway_remote_used), from the
// same view.
void BM_RemoteUsedSerialize(benchmark::State& state, size_t n) {
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  std::map<std::string, int64_t> synced_at;
  const fairway::ClustersView view =
      Remote(n).UsedView(RemoteClusterList(), fb::kBenchNow + 60,
                         fairway::DecayFactorPerSecond(params.decay_half_life_s), &synced_at);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text =
        fairway::RemoteUsed::SerializeView(fb::kBenchNow + 60, 0, synced_at, view, {});
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

// One steady sync of one cluster a minute later: the jobs that ended in
// the last hour (the fetch reaches back one hour for late records), of
// which a minute's are new, with the association paths kept from the
// first sync (slurmdbd is asked for them again hourly, or for a job of a
// newer association).
void BM_RemoteSync(benchmark::State& state, size_t n) {
  const Params params = fb::BenchParams(FairshareMode::kFairTree);
  const double decay = fairway::DecayFactorPerSecond(params.decay_half_life_s);
  const int64_t now = fb::kBenchNow + 60;
  const size_t per_hour = kRemoteJobsPerDay / 24, per_minute = kRemoteJobsPerDay / 1440;
  // The last hour's jobs as the first sync charged them, then a minute's new.
  std::vector<fairway::RemoteJob> jobs =
      RemoteJobs(n, kRemoteJobsPerDay, 1, fb::kBenchNow - 86400, fb::kBenchNow);
  jobs.erase(jobs.begin(), jobs.end() - static_cast<std::ptrdiff_t>(per_hour));
  const std::vector<fairway::RemoteJob> fresh =
      RemoteJobs(n, per_minute, 1 + kRemoteJobsPerDay, fb::kBenchNow, now);
  jobs.insert(jobs.end(), fresh.begin(), fresh.end());
  for (auto _ : state) {
    state.PauseTiming();
    fairway::RemoteUsage copy = Remote(n);
    state.ResumeTiming();
    fairway::RemoteSyncResult r = copy.Sync("r1", nullptr, jobs, now, decay, params.decay_half_life_s);
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    { fairway::RemoteUsage gone = std::move(copy); }
    state.ResumeTiming();
  }
  state.counters["jobs"] = static_cast<double>(jobs.size());
}

}  // namespace

int main(int argc, char** argv) {
  for (FairshareMode mode : kModes)
    for (size_t n : kTreeSizes)
      benchmark::RegisterBenchmark(Name("Fairshare", fairway::FairshareModeName(mode), n).c_str(),
                                   BM_Fairshare, mode, n)
          ->Unit(benchmark::kMillisecond);
  for (size_t n : kTreeSizes)
    benchmark::RegisterBenchmark(Name("TreeBuild", "snapshot", n).c_str(), BM_TreeBuild, n)
        ->Unit(benchmark::kMillisecond);
  for (size_t n : kJobCounts)
    benchmark::RegisterBenchmark(Name("JobPriority", "jobs", n).c_str(), BM_JobPriority, n)
        ->Unit(benchmark::kMillisecond);
  for (size_t n : kJobCounts)
    benchmark::RegisterBenchmark(Name("FlatPriority", "jobs", n).c_str(), BM_FlatPriority, n)
        ->Unit(benchmark::kMillisecond);
  for (size_t n : {size_t{20000}, size_t{100000}}) {
    benchmark::RegisterBenchmark(Name("ApiPass", "jobs", n).c_str(), BM_ApiPass, n, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(Name("ApiPassSteady", "jobs", n).c_str(), BM_ApiPass, n, true)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("IssuePass/fair_tree_1100assocs_20000jobs", BM_IssuePass)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("MetricsRender/10000assocs_20000jobs", BM_MetricsRender,
                               size_t{10000}, size_t{20000})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("RemotePassAdd/3clusters_10000assocs", BM_RemotePassAdd,
                               size_t{10000})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("RemoteUsedSerialize/3clusters_10000assocs",
                               BM_RemoteUsedSerialize, size_t{10000})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("RemoteSync/10000assocs_2117jobs", BM_RemoteSync, size_t{10000})
      ->Unit(benchmark::kMillisecond);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  PrintTreeShapes();
  RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  // Targets of the performance issue.
  int failed = 0, checked = 0;
  std::printf("\nTargets (CPU time, one core):\n");
  auto check = [&](const std::string& name, double limit_ms) {
    auto it = reporter.cpu_ms.find(name);
    if (it == reporter.cpu_ms.end()) return;  // filtered out
    ++checked;
    const bool ok = it->second < limit_ms;
    failed += !ok;
    std::printf("  %-40s %9.3f ms  (target < %g ms)  %s\n", name.c_str(), it->second, limit_ms,
                ok ? "OK" : "MISSED");
  };
  for (FairshareMode mode : kModes) check(Name("Fairshare", fairway::FairshareModeName(mode), 100000), 20);
  check(Name("JobPriority", "jobs", 1000000), 100);
  check(Name("FlatPriority", "jobs", 1000000), 100);
  check("MetricsRender/10000assocs_20000jobs", 1000);
  if (checked == 0) std::printf("  (no target benchmark ran)\n");
  std::printf("%s\n", failed ? "SOME TARGETS MISSED" : "all targets met");
  // Report, do not fail the build: the figures are what matters.
  return 0;
}
