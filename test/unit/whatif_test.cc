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
    job.scalars.min_cpus = 1;  // total_cpus 0: pending
    job.scalars.min_nodes = 1;
    job.scalars.time_limit_min = 60;
    job.scalars.nice = kNiceOffset;
    job.scalars.site_factor = kNiceOffset;
    job.scalars.accrue_time = kNow - 86400L * age_days++;
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

// ---- PrivateData=usage: a plain user's partial view (explain_visible.h) ----

// What the controller publishes on every association (the core's values on
// the whole tree, as the plugin writes them back), and sprio's weighted
// factors for every job.
struct Published {
  client::ControllerState state;
  std::vector<client::ControllerJob> jobs;
  std::vector<client::ControllerFactors> sprio;
};

Published Publish(bool classic) {
  Fixture f = Make();
  if (classic) {
    f.state.params.flags = 0;  // NO_FAIR_TREE
    ExplainModel m;
    std::string error;
    EXPECT_TRUE(BuildExplainModel(f.state, &m, &error)) << error;
    for (auto& job : f.jobs) job.priority = ExplainJob(m, job, {}, kNow).front().result.priority;
  }
  Published p;
  p.jobs = f.jobs;
  ExplainModel m;
  std::string error;
  EXPECT_TRUE(BuildExplainModel(f.state, &m, &error)) << error;
  for (size_t i = 0; i < f.state.assocs.size(); ++i) {
    client::ControllerAssoc& a = f.state.assocs[i];
    a.level_shares = m.tree.links(static_cast<int32_t>(i)).level_shares;
    a.shares_norm = m.tree.links(static_cast<int32_t>(i)).shares_norm;
    a.usage_norm = m.fairshare.assocs[i].usage_norm;
    a.usage_efctv = m.fairshare.assocs[i].usage_efctv;
    a.level_fs = m.fairshare.assocs[i].level_fs;
    a.fs_factor = m.fairshare.assocs[i].fs_factor;
  }
  for (const client::ControllerJob& job : f.jobs) {
    const JobExplanation row = ExplainJob(m, job, {}, kNow).front();
    client::ControllerFactors c;
    c.job_id = job.job_id;
    c.partition = row.partition;
    c.age = row.result.weighted.age;
    c.assoc = row.result.weighted.assoc;
    c.fairshare = row.result.weighted.fairshare;
    c.job_size = row.result.weighted.job_size;
    c.partition_factor = row.result.weighted.partition;
    c.qos = row.result.weighted.qos;
    c.site = row.result.weighted.site;
    c.nice = row.result.weighted.nice;
    p.sprio.push_back(c);
  }
  p.state = f.state;
  return p;
}

// What slurmctld sends a plain user under PrivateData=usage: their own
// user associations only.
client::ControllerState ViewOf(const client::ControllerState& full, const std::string& user) {
  client::ControllerState st = full;
  st.private_usage = true;
  st.assocs.clear();
  for (const client::ControllerAssoc& a : full.assocs) {
    if (a.node.user == user) st.assocs.push_back(a);
  }
  return st;
}

WhatIfResult RerankView(const client::ControllerState& state,
                        const std::vector<client::ControllerJob>& jobs,
                        const std::vector<client::ControllerFactors>& sprio,
                        const WhatIfChanges& changes) {
  client::ControllerState changed;
  std::string why;
  EXPECT_TRUE(ApplyWhatIf(state, changes, k2205, &changed, &why)) << why;
  ExplainModel before, after;
  EXPECT_TRUE(BuildExplainModel(state, &before, &why)) << why;
  EXPECT_TRUE(BuildExplainModel(changed, &after, &why)) << why;
  return RunWhatIf(before, after, jobs, sprio, kNow, changes.age_shift_s);
}

// A weight or age change seen by user3 (its own association only, every
// job listed: PrivateData=usage alone) ranks every job as the whole tree
// does; the users table has user3's row only, with the whole tree's factor.
TEST(WhatIfTest, APlainUsersPartialViewRanksAsTheWholeTree) {
  for (bool classic : {false, true}) {
    SCOPED_TRACE(classic ? "classic" : "Fair Tree");
    Published p = Publish(classic);
    client::ControllerState view = ViewOf(p.state, "user3");
    ASSERT_TRUE(WhatIfViewIsPartial(view));
    ASSERT_FALSE(WhatIfViewIsPartial(p.state));
    WhatIfChanges c;
    c.settings = {"PriorityWeightFairshare=2000", "PriorityWeightAge=8000"};
    c.age_shift_s = 3600;
    WhatIfResult whole = RerankView(p.state, p.jobs, p.sprio, c);
    WhatIfResult part = RerankView(view, p.jobs, p.sprio, c);
    EXPECT_TRUE(part.baseline_matches) << part.baseline_mismatches.front();
    ASSERT_EQ(part.jobs.size(), whole.jobs.size());
    EXPECT_GT(whole.moved, 0u);
    for (size_t i = 0; i < part.jobs.size(); ++i) {
      EXPECT_EQ(part.jobs[i].job_id, whole.jobs[i].job_id);
      EXPECT_EQ(part.jobs[i].after, whole.jobs[i].after) << part.jobs[i].user;
      EXPECT_EQ(part.jobs[i].rank_after, whole.jobs[i].rank_after);
    }
    EXPECT_EQ(part.moved, whole.moved);
    EXPECT_DOUBLE_EQ(part.spearman, whole.spearman);
    ASSERT_EQ(part.users.size(), 1u);
    EXPECT_TRUE(part.accounts.empty());
    EXPECT_EQ(part.users[0].user, "user3");
    for (const WhatIfAssoc& a : whole.users) {
      if (a.user != "user3") continue;
      EXPECT_NEAR(part.users[0].fs_before, a.fs_before, 1e-12);
      EXPECT_NEAR(part.users[0].fs_after, a.fs_after, 1e-12);
      EXPECT_EQ(part.users[0].first_before, a.first_before);
      EXPECT_EQ(part.users[0].first_after, a.first_after);
    }
  }
}

// PrivateData=jobs too: the controller lists user3's own job only; it is
// ranked among the jobs listed.
TEST(WhatIfTest, UnderPrivateJobsOnlyTheListedJobsAreRanked) {
  Published p = Publish(false);
  client::ControllerState view = ViewOf(p.state, "user3");
  view.private_jobs = true;
  std::vector<client::ControllerJob> own;
  for (const client::ControllerJob& j : p.jobs) {
    if (j.user == "user3") own.push_back(j);
  }
  WhatIfChanges c;
  c.settings = {"PriorityWeightFairshare=0"};
  WhatIfResult r = RerankView(view, own, p.sprio, c);
  EXPECT_TRUE(r.baseline_matches);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].rank_before, 1u);
  EXPECT_LT(r.jobs[0].after, r.jobs[0].before);
}

// What the view cannot carry is refused, naming what is hidden.
TEST(WhatIfTest, APartialViewRefusesWhatDependsOnHiddenRows) {
  Published p = Publish(false);
  const client::ControllerState view = ViewOf(p.state, "user3");
  auto refused = [&](const WhatIfChanges& c) {
    client::ControllerState changed;
    std::string error;
    EXPECT_FALSE(ApplyWhatIf(view, c, k2205, &changed, &error));
    return error;
  };
  WhatIfChanges c;
  c.shares = {"c,user3=5"};
  std::string e = refused(c);
  EXPECT_NE(e.find("moves the fairshare of the whole tree through rows hidden from you"),
            std::string::npos) << e;
  EXPECT_NE(e.find("PrivateData=usage"), std::string::npos) << e;
  c = {};
  c.usage = {"e,user4=+10"};
  e = refused(c);
  EXPECT_NE(e.find("no association e,user4 you can see"), std::string::npos) << e;
  c = {};
  c.settings = {"PriorityFlags=NO_FAIR_TREE"};
  EXPECT_NE(refused(c).find("a change of the fairshare mode"), std::string::npos);
  c.settings = {"FairShareDampeningFactor=3"};
  EXPECT_NE(refused(c).find("FairShareDampeningFactor"), std::string::npos);
  c.settings = {"PriorityWeightAssoc=100"};  // 0 at the controller
  EXPECT_NE(refused(c).find("PriorityWeightAssoc from 0"), std::string::npos);
  c.settings = {"PriorityParameters=fairshare=ranged"};
  EXPECT_NE(refused(c).find("PriorityParameters"), std::string::npos);
  // The same changes are taken on the whole tree.
  client::ControllerState changed;
  std::string error;
  c.settings = {"FairShareDampeningFactor=3", "PriorityWeightAssoc=100"};
  c.shares = {"c,user3=5"};
  EXPECT_TRUE(ApplyWhatIf(p.state, c, k2205, &changed, &error)) << error;
}

}  // namespace
}  // namespace fairway
