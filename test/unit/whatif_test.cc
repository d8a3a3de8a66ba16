// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway whatif` (tool/whatif_model.h): its baseline equals the
// controller, and each kind of change moves the jobs it must move, as the
// core computes them after the same change.
#include <gtest/gtest.h>

#include <map>

#include "explain_model.h"
#include "test_support.h"
#include "whatif_model.h"

namespace fairway {
namespace {

constexpr int64_t kNow = 1800000000;
constexpr uint32_t k2205 = (22u << 16) | (5u << 8);

// Slurm's classic worked example tree in Fair Tree, weights for fairshare
// and age, and one pending job per user, older for later users.
struct Fixture {
  client::ControllerState state;
  std::vector<client::ControllerJob> jobs;
};

Fixture Make() {
  Fixture f;
  client::ControllerState& st = f.state;
  st.params.flags = kFlagFairTree;
  st.params.weight_fairshare = 10000;
  st.params.weight_age = 1000;
  st.params.max_age_s = 7 * 86400;
  st.cluster_cpus = 8;
  st.node_count = 2;
  st.tres_names = {"cpu", "mem", "node", "billing"};
  st.partitions.push_back({"debug", 1, 0, kNoVal, {}});
  st.qos.push_back({"normal", 0, 0.0});
  AssocTree tree = test::LoadTree("classic_doc_example.csv", FairshareMode::kFairTree);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    client::ControllerAssoc a;
    a.node = tree.node(i);
    st.assocs.push_back(a);
  }
  uint32_t id = 100;
  int age_days = 1;
  for (const auto& a : st.assocs) {
    if (!a.node.is_user() || a.node.user == "root") continue;
    client::ControllerJob job;
    job.job_id = id++;
    job.assoc_id = a.node.id;
    job.user = a.node.user;
    job.account = a.node.acct;
    job.partition = "debug";
    job.qos = "normal";
    job.pending = true;
    job.num_cpus = 1;
    job.num_nodes = 1;
    job.time_limit_min = 60;
    job.nice = kNiceOffset;
    job.site_factor = kNiceOffset;
    job.accrue_time = kNow - 86400L * age_days++;
    job.tres_req = {1, 1000, 1, 1};
    f.jobs.push_back(job);
  }
  // What the controller computed: the core's priorities at kNow.
  ExplainModel model;
  std::string error;
  EXPECT_TRUE(BuildExplainModel(st, &model, &error)) << error;
  for (auto& job : f.jobs) job.priority = ExplainJob(model, job, {}, kNow).front().result.priority;
  return f;
}

WhatIfResult Rerank(const Fixture& f, const WhatIfChanges& changes, std::string* error = nullptr) {
  client::ControllerState changed;
  std::string why;
  EXPECT_TRUE(ApplyWhatIf(f.state, changes, k2205, &changed, &why)) << why;
  ExplainModel before, after;
  EXPECT_TRUE(BuildExplainModel(f.state, &before, &why)) << why;
  EXPECT_TRUE(BuildExplainModel(changed, &after, &why)) << why;
  return RunWhatIf(before, after, f.jobs, {}, kNow, changes.age_shift_s);
}

std::map<std::string, size_t> RanksAfter(const WhatIfResult& r) {
  std::map<std::string, size_t> ranks;
  for (const WhatIfJob& j : r.jobs) ranks[j.user] = j.rank_after;
  return ranks;
}

TEST(WhatIfTest, NoChangeIsTheBaseline) {
  Fixture f = Make();
  WhatIfResult r = Rerank(f, {});
  EXPECT_TRUE(r.baseline_matches);
  ASSERT_EQ(r.jobs.size(), 5u);
  EXPECT_EQ(r.moved, 0u);
  EXPECT_DOUBLE_EQ(r.spearman, 1.0);
  for (const WhatIfJob& j : r.jobs) EXPECT_EQ(j.before, j.after);
}

TEST(WhatIfTest, ABaselineThatDiffersFromTheControllerIsSaid) {
  Fixture f = Make();
  f.jobs[2].priority += 7;
  WhatIfResult r = Rerank(f, {});
  EXPECT_FALSE(r.baseline_matches);
  ASSERT_EQ(r.baseline_mismatches.size(), 1u);
  EXPECT_NE(r.baseline_mismatches[0].find("job 102"), std::string::npos);
}

TEST(WhatIfTest, WithoutTheFairshareWeightAgeAloneOrders) {
  Fixture f = Make();
  WhatIfChanges c;
  c.settings = {"PriorityWeightFairshare=0"};
  WhatIfResult r = Rerank(f, c);
  EXPECT_TRUE(r.baseline_matches);
  // Jobs are older the later their user comes: user5's first.
  std::map<std::string, size_t> ranks = RanksAfter(r);
  EXPECT_EQ(ranks["user5"], 1u);
  EXPECT_EQ(ranks["user4"], 2u);
  EXPECT_EQ(ranks["user1"], 5u);
  for (const WhatIfJob& j : r.jobs) EXPECT_LT(j.after, j.before);
}

TEST(WhatIfTest, SharesAndUsageChangeTheFairshareFactorAsTheCoreDoes) {
  Fixture f = Make();
  WhatIfChanges shares;
  shares.shares = {"c=400"};
  WhatIfChanges usage;
  usage.usage = {"c,user3=+100cpu-h"};
  // What the core gives after the same change made by hand.
  auto factor_after = [&](const WhatIfChanges& c, const std::string& user) {
    client::ControllerState changed;
    std::string error;
    EXPECT_TRUE(ApplyWhatIf(f.state, c, k2205, &changed, &error)) << error;
    for (const auto& a : changed.assocs) {
      if (a.node.user == "user3" && c.usage.size()) {
        EXPECT_GT(a.node.usage_raw, 359999.0L);  // 100 core-hours of billing-seconds
      }
    }
    ExplainModel m;
    EXPECT_TRUE(BuildExplainModel(changed, &m, &error));
    return m.fairshare.assocs[FindExplainAssoc(m, "c", user)].job_factor;
  };
  WhatIfResult r = Rerank(f, shares);
  for (const WhatIfAssoc& a : r.users) {
    if (a.user == "user3") {
      EXPECT_GT(a.fs_after, a.fs_before);
      EXPECT_DOUBLE_EQ(a.fs_after, factor_after(shares, "user3"));
    }
  }
  WhatIfResult u = Rerank(f, usage);
  for (const WhatIfAssoc& a : u.users) {
    if (a.user == "user3") {
      EXPECT_LT(a.fs_after, a.fs_before);
      EXPECT_DOUBLE_EQ(a.fs_after, factor_after(usage, "user3"));
    }
  }
  // The account's first pending job is its subtree's.
  bool found_a = false;
  for (const WhatIfAssoc& a : r.accounts) {
    if (a.account != "a") continue;
    found_a = true;
    EXPECT_GT(a.first_before, 0u);  // user1's job, under b under a
  }
  EXPECT_TRUE(found_a);
}

TEST(WhatIfTest, AgeMovesEveryJobOn) {
  Fixture f = Make();
  WhatIfChanges c;
  c.age_shift_s = 86400;
  WhatIfResult r = Rerank(f, c);
  // user1's job is a day old: one day more adds 1000/7 points
  // (PriorityMaxAge 7 days, PriorityWeightAge 1000).
  for (const WhatIfJob& j : r.jobs) {
    EXPECT_GE(j.after, j.before);
    if (j.user == "user1") {
      EXPECT_NEAR(static_cast<double>(j.after - j.before), 1000.0 / 7, 1.0);
    }
  }
}

TEST(WhatIfTest, BadChangesAreRefusedWithTheirReason) {
  Fixture f = Make();
  client::ControllerState changed;
  std::string error;
  WhatIfChanges c;
  c.shares = {"nosuch=3"};
  EXPECT_FALSE(ApplyWhatIf(f.state, c, k2205, &changed, &error));
  EXPECT_NE(error.find("no association nosuch"), std::string::npos) << error;
  c = {};
  c.settings = {"PriorityDecayHalfLife=1-0"};
  EXPECT_FALSE(ApplyWhatIf(f.state, c, k2205, &changed, &error));
  EXPECT_NE(error.find("not the ranking now"), std::string::npos) << error;
  c = {};
  c.settings = {"PriorityWeightAge=lots"};
  EXPECT_FALSE(ApplyWhatIf(f.state, c, k2205, &changed, &error));
  EXPECT_NE(error.find("PriorityWeightAge"), std::string::npos) << error;
  c = {};
  c.usage = {"c,user3=100"};
  EXPECT_FALSE(ApplyWhatIf(f.state, c, k2205, &changed, &error));
  EXPECT_NE(error.find("+X or -X"), std::string::npos) << error;
  c = {};
  c.settings = {"PriorityFlags=NO_FAIR_TREE", "PriorityWeightTRES=CPU=100"};
  EXPECT_TRUE(ApplyWhatIf(f.state, c, k2205, &changed, &error)) << error;
  EXPECT_EQ(changed.params.flags & kFlagFairTree, 0u);
  ASSERT_EQ(changed.params.weight_tres.size(), 4u);
  EXPECT_EQ(changed.params.weight_tres[0], 100.0);
}

}  // namespace
}  // namespace fairway
