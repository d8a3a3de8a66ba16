// SPDX-License-Identifier: GPL-2.0-or-later
// The core is pure: several threads may compute fairshare, priorities and
// parse parameters at once on their own or shared const data, and get
// exactly the single-threaded results. A PlannedUseLedger is not
// thread-safe; guarded by a mutex (as the plugin guards it) it stays
// consistent while threads charge it and another rolls and serialises it.
// Meant to run clean under ThreadSanitizer (make check-tsan) and
// AddressSanitizer (make check-asan).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "assoc_tree.h"
#include "diagnostic.h"
#include "fairshare.h"
#include "job_priority.h"
#include "params.h"
#include "planned_use.h"
#include "test_support.h"

namespace fairway {
namespace {

constexpr int kThreads = 4;
constexpr int kIterations = 25;

const FairshareMode kAllModes[] = {FairshareMode::kClassic, FairshareMode::kDepthOblivious,
                                   FairshareMode::kFairTree, FairshareMode::kRanged,
                                   FairshareMode::kPlannedUse};

// Bit-for-bit equality (the results must be identical, not close).
template <typename T>
bool SameBits(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, long double>) {
    // Only the 80 value bits of x86's long double are meaningful.
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return std::memcmp(&a, &b, sizeof a) == 0;
  }
}

bool SameResults(const FairshareResults& a, const FairshareResults& b) {
  if (a.mode != b.mode || a.assocs.size() != b.assocs.size()) return false;
  for (size_t i = 0; i < a.assocs.size(); ++i) {
    const AssocFairshare& x = a.assocs[i];
    const AssocFairshare& y = b.assocs[i];
    if (!SameBits(x.usage_norm, y.usage_norm) || !SameBits(x.usage_efctv, y.usage_efctv) ||
        !SameBits(x.level_fs, y.level_fs) || !SameBits(x.fs_factor, y.fs_factor) ||
        !SameBits(x.job_factor, y.job_factor) || !SameBits(x.slice_lo, y.slice_lo) ||
        !SameBits(x.slice_hi, y.slice_hi) || !SameBits(x.planned_rate, y.planned_rate)) {
      return false;
    }
  }
  return true;
}

bool SamePriority(const JobPriority& a, const JobPriority& b) {
  return a.priority == b.priority && a.clamped == b.clamped && a.had_nan == b.had_nan &&
         SameBits(a.sum, b.sum) && SameBits(a.tres_sum, b.tres_sum) &&
         SameBits(a.factors.fairshare, b.factors.fairshare) &&
         SameBits(a.weighted.age, b.weighted.age) && a.partition_priorities == b.partition_priorities;
}

struct ParseOutcome {
  std::vector<std::string> diagnostics;
  int64_t interval = 0;
  double capacity = 0;
  int mode = -1;
  int charge = -1;
  bool operator==(const ParseOutcome& o) const {
    return diagnostics == o.diagnostics && interval == o.interval &&
           SameBits(capacity, o.capacity) && mode == o.mode && charge == o.charge;
  }
};

ParseOutcome Parse(const std::string& text) {
  Params p;
  ParseOutcome out;
  for (const Diagnostic& d : ParsePriorityParameters(text, &p)) out.diagnostics.push_back(d.Format());
  out.interval = p.planned_use_interval_s;
  out.capacity = p.planned_use_capacity;
  out.mode = p.mode_override ? static_cast<int>(*p.mode_override) : -1;
  out.charge = static_cast<int>(p.planned_use_charge);
  return out;
}

const std::vector<std::string>& ParamTexts() {
  static const std::vector<std::string> texts = {
      "fairshare=fair_tree",
      "fairshare=planned_use,planned_use_interval=1-00:00:00,planned_use_capacity=600",
      "fairshare=ranged, planned_use_charge=start",
      "fairshare=bogus,planned_use_interval=0,planned_use_capacity=nan,x",
      "planned_use_capacity=1e-300,planned_use_interval=12:30:15,fairshare=Classic",
      "",
  };
  return texts;
}

Params ModeParams(FairshareMode mode) {
  Params p;
  p.mode_override = mode;
  p.planned_use_capacity = 600;
  p.damp_factor = 2;
  return p;
}

// Inputs shared read-only by every thread.
struct Shared {
  std::vector<AssocTree> trees;             // one per mode, in kAllModes order
  std::vector<FairshareResults> expected;   // single-threaded results
  PlannedUseLedger ledger;                  // for ComputePlannedUse
  FairshareResults expected_planned;
  std::vector<JobInputs> jobs;
  Params job_params;
  std::vector<JobPriority> expected_jobs;
  std::vector<ParseOutcome> expected_parse;
};

Shared MakeShared() {
  Shared s;
  for (FairshareMode mode : kAllModes) {
    s.trees.push_back(test::LoadTree("classic_doc_example.csv", mode));
    s.expected.push_back(ComputeFairshare(s.trees.back(), ModeParams(mode), nullptr, 0));
  }
  const AssocTree& planned = s.trees.back();
  s.ledger.Roll(0, 86400, 0.5);
  for (int32_t i = 0; i < static_cast<int32_t>(planned.size()); ++i) {
    s.ledger.ChargePath(planned, i, planned.node(i).usage_raw * 1000 + i);
  }
  s.ledger.Roll(86400, 86400, 0.5);
  s.expected_planned =
      ComputeFairshare(planned, ModeParams(FairshareMode::kPlannedUse), &s.ledger, 600);

  s.job_params.weight_age = 1000;
  s.job_params.weight_fairshare = 100000;
  s.job_params.weight_job_size = 500;
  s.job_params.weight_partition = 0xffffffffu;
  s.job_params.weight_tres = {10, 0.5};
  s.job_params.max_age_s = 7 * 86400;
  const FairshareResults& ft = s.expected[2];
  for (size_t i = 0; i < ft.assocs.size(); ++i) {
    JobInputs job;
    job.job_id = static_cast<uint32_t>(i + 1);
    job.accrue_time = 1700000000 - static_cast<int64_t>(i) * 3600;
    job.has_assoc = true;
    job.fairshare_factor = ft.assocs[i].job_factor;
    job.min_nodes = 1 + static_cast<uint32_t>(i % 3);
    job.min_cpus = 4;
    job.tres_req = {8, 1024};
    job.partition = PartitionInputs{"p", 1, 0.25 * (i % 5), kNoVal, {100, 4096}};
    job.partition_list = {PartitionInputs{"a", 2, 1.0, kNoVal, {100, 4096}},
                          PartitionInputs{"b", 1, 0.5, kNoVal, {}}};
    s.jobs.push_back(job);
    s.expected_jobs.push_back(
        ComputeJobPriority(job, s.job_params, ClusterInputs{100, 10}, 1700003600));
  }
  for (const std::string& text : ParamTexts()) s.expected_parse.push_back(Parse(text));
  return s;
}

TEST(Concurrency, PureFunctionsGiveSingleThreadedResultsOnSharedConstData) {
  const Shared shared = MakeShared();
  ASSERT_EQ(shared.trees.size(), std::size(kAllModes));
  std::atomic<int> mismatches{0};
  std::atomic<int> computations{0};
  std::atomic<bool> go{false};

  auto work = [&](int t) {
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    for (int k = 0; k < kIterations; ++k) {
      // Each thread starts at a different mode so that all run at once.
      for (size_t m = 0; m < std::size(kAllModes); ++m) {
        const size_t mi = (m + t) % std::size(kAllModes);
        FairshareResults r = ComputeFairshare(shared.trees[mi], ModeParams(kAllModes[mi]), nullptr, 0);
        if (!SameResults(r, shared.expected[mi])) ++mismatches;
        ++computations;
      }
      const FairshareResults planned = ComputeFairshare(
          shared.trees.back(), ModeParams(FairshareMode::kPlannedUse), &shared.ledger, 600);
      if (!SameResults(planned, shared.expected_planned)) ++mismatches;
      for (size_t j = 0; j < shared.jobs.size(); ++j) {
        JobPriority p = ComputeJobPriority(shared.jobs[j], shared.job_params,
                                           ClusterInputs{100, 10}, 1700003600);
        if (!SamePriority(p, shared.expected_jobs[j])) ++mismatches;
      }
      for (size_t i = 0; i < ParamTexts().size(); ++i) {
        if (!(Parse(ParamTexts()[i]) == shared.expected_parse[i])) ++mismatches;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  go.store(true, std::memory_order_release);
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(computations.load(), kThreads * kIterations * static_cast<int>(std::size(kAllModes)));
}

TEST(Concurrency, EachThreadOnItsOwnTree) {
  // Every thread builds and computes its own tree (no sharing at all),
  // mutating usage between passes; the results match a single-threaded run.
  std::vector<std::vector<FairshareResults>> expected(kThreads);
  auto run = [](int t, std::vector<FairshareResults>* out) {
    for (FairshareMode mode : kAllModes) {
      AssocTree tree = test::LoadTree("classic_doc_example.csv", mode);
      for (int pass = 0; pass < 5; ++pass) {
        for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
          tree.set_usage_raw(i, tree.node(i).usage_raw * 0.5L + t * 7 + pass);
        }
        out->push_back(ComputeFairshare(tree, ModeParams(mode), nullptr, 0));
      }
    }
  };
  for (int t = 0; t < kThreads; ++t) run(t, &expected[t]);
  std::vector<std::vector<FairshareResults>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(run, t, &got[t]);
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), expected[t].size());
    for (size_t k = 0; k < got[t].size(); ++k) {
      EXPECT_TRUE(SameResults(got[t][k], expected[t][k])) << "thread " << t << " result " << k;
    }
  }
}

TEST(Concurrency, MutexGuardedLedgerChargedWhileRolledAndSerialised) {
  AssocTree tree = test::LoadTree("classic_doc_example.csv", FairshareMode::kPlannedUse);
  ASSERT_GT(tree.size(), 3u);
  const int32_t n = static_cast<int32_t>(tree.size());
  constexpr int kCharges = 400;
  constexpr int64_t kInterval = 60;

  std::mutex mu;
  PlannedUseLedger ledger;  // guarded by mu
  ledger.Roll(0, kInterval, 1.0);

  std::atomic<int> chargers_done{0};
  std::atomic<int> bad_snapshots{0};
  std::atomic<int> snapshots{0};

  // Chargers: integer amounts, so every sum is exact in long double and the
  // total is independent of the interleaving (D = 1: rolling moves usage
  // from the open interval into history without losing any).
  std::atomic<bool> rolling{false};
  auto charger = [&](int t) {
    while (!rolling.load()) std::this_thread::yield();  // overlap with the roller
    for (int k = 0; k < kCharges; ++k) {
      const int32_t i = (t * 7 + k) % n;
      std::lock_guard<std::mutex> lock(mu);
      if (k % 2) {
        ledger.ChargePath(tree, i, t + 1);
      } else {
        ledger.Charge(tree.node(i).id, t + 1);
      }
    }
    ++chargers_done;
  };
  // Roller: advances the clock, rolls, serialises and parses back; every
  // snapshot must parse to exactly the ledger it was taken from.
  auto roller = [&] {
    int64_t now = 0;
    do {
      std::string bytes;
      PlannedUseLedger copy;
      {
        std::lock_guard<std::mutex> lock(mu);
        now += kInterval;
        ledger.Roll(now, kInterval, 1.0);
        bytes = SerializeLedger(ledger);
        copy = ledger;
      }
      PlannedUseLedger back;
      std::string error;
      bool same = ParseLedger(bytes, &back, &error) && back.interval_index == copy.interval_index &&
                  back.entries.size() == copy.entries.size();
      if (same) {
        for (const auto& [id, e] : copy.entries) {
          auto it = back.entries.find(id);
          same = same && it != back.entries.end() && it->second.history == e.history &&
                 it->second.open == e.open;
        }
      }
      if (!same) ++bad_snapshots;
      ++snapshots;
      rolling.store(true);
      std::this_thread::yield();
    } while (chargers_done.load() < kThreads);
  };

  std::vector<std::thread> threads;
  threads.emplace_back(roller);
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(charger, t);
  for (std::thread& th : threads) th.join();

  EXPECT_EQ(bad_snapshots.load(), 0);
  EXPECT_GT(snapshots.load(), 0);

  // Expected totals per association, computed without threads.
  std::vector<long double> expected(n, 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kCharges; ++k) {
      int32_t i = (t * 7 + k) % n;
      if (k % 2) {
        for (int32_t steps = 0; i >= 0 && steps < n; ++steps) {
          expected[i] += t + 1;
          if (i == tree.root()) break;
          i = tree.links(i).parent;
        }
      } else {
        expected[i] += t + 1;
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  for (int32_t i = 0; i < n; ++i) {
    auto it = ledger.entries.find(tree.node(i).id);
    const long double got = it == ledger.entries.end() ? 0 : it->second.history + it->second.open;
    EXPECT_EQ(got, expected[i]) << tree.node(i).name();
  }
  // And the final ledger survives its state file.
  PlannedUseLedger back;
  std::string error;
  ASSERT_TRUE(ParseLedger(SerializeLedger(ledger), &back, &error)) << error;
  EXPECT_EQ(back.entries.size(), ledger.entries.size());
}

}  // namespace
}  // namespace fairway
