// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway explain` on the partial view PrivateData=usage gives a plain user.
// The controller's state is made by the core on the whole tree (what the
// plugin publishes in every association's usage record), then filtered as
// slurmctld filters it for a user (their own user associations only, or with
// a coordinator's accounts: slurm-22-05-8-1:src/common/assoc_mgr.c,
// assoc_mgr_info_get_pack_msg). The explanation from the filtered view must
// agree with the one from the whole tree wherever it claims to recompute.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "explain_model.h"
#include "explain_visible.h"
#include "test_support.h"

namespace fairway {
namespace {

// The controller's state for a tree file in `mode`, every association with
// the values the plugin writes back (fw_assocs_fairshare in
// plugins/priority/fairway/assocs.c: usage_efctv, level_fs, fs_factor).
client::ControllerState StateFor(const std::string& file, FairshareMode mode, uint32_t flags = 0) {
  client::ControllerState st;
  st.params.mode_override = mode;
  st.params.flags = flags;
  st.params.weight_fairshare = 10000;
  st.params.weight_assoc = 1000;
  st.params.weight_qos = 500;
  st.cluster_cpus = 8;
  st.node_count = 2;
  st.partitions.push_back({"debug", 1, 0, kNoVal, {}});
  st.qos.push_back({"normal", 0, 0.0});
  AssocTree tree = test::LoadTree(file, mode);
  FairshareResults fs = ComputeFairshare(tree, st.params, nullptr, 0);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    client::ControllerAssoc a;
    a.node = tree.node(i);
    a.level_shares = tree.links(i).level_shares;
    a.shares_norm = tree.links(i).shares_norm;
    a.usage_norm = fs.assocs[i].usage_norm;
    a.usage_efctv = fs.assocs[i].usage_efctv;
    a.level_fs = fs.assocs[i].level_fs;
    a.fs_factor = fs.assocs[i].fs_factor;
    st.assocs.push_back(a);
  }
  return st;
}

// What slurmctld sends `user` under PrivateData=usage: their own user
// associations and every association of the accounts they coordinate.
client::ControllerState ViewOf(const client::ControllerState& full, const std::string& user,
                               const std::set<std::string>& coordinated = {}) {
  client::ControllerState st = full;
  st.private_usage = true;
  st.assocs.clear();
  for (const client::ControllerAssoc& a : full.assocs) {
    if (a.node.user == user || coordinated.count(a.node.acct)) st.assocs.push_back(a);
  }
  return st;
}

int32_t Index(const client::ControllerState& st, const std::string& acct, const std::string& user) {
  for (size_t i = 0; i < st.assocs.size(); ++i) {
    if (st.assocs[i].node.acct == acct && st.assocs[i].node.user == user) return static_cast<int32_t>(i);
  }
  return -1;
}

client::ControllerJob JobOf(const client::ControllerState& st, const std::string& acct,
                            const std::string& user) {
  client::ControllerJob job;
  job.job_id = 42;
  job.assoc_id = st.assocs[Index(st, acct, user)].node.id;
  job.user = user;
  job.account = acct;
  job.partition = "debug";
  job.qos = "normal";
  job.pending = true;
  job.scalars.min_cpus = 1;  // total_cpus 0: pending
  job.scalars.min_nodes = 1;
  return job;
}

// sprio's row: the controller's weighted factors, which the whole tree gives.
client::ControllerFactors SprioRow(const ExplainModel& full, const client::ControllerJob& job) {
  std::vector<JobExplanation> rows = ExplainJob(full, job, {}, 1000);
  EXPECT_EQ(rows.size(), 1u);
  client::ControllerFactors f;
  f.job_id = job.job_id;
  f.partition = rows[0].partition;
  const PriorityFactors& w = rows[0].result.weighted;
  f.age = w.age;
  f.assoc = w.assoc;
  f.fairshare = w.fairshare;
  f.job_size = w.job_size;
  f.partition_factor = w.partition;
  f.qos = w.qos;
  f.site = w.site;
  f.nice = w.nice;
  return f;
}

ExplainModel Model(client::ControllerState st) {
  ExplainModel m;
  std::string error;
  EXPECT_TRUE(BuildExplainModel(std::move(st), &m, &error)) << error;
  return m;
}

TEST(ExplainVisible, AFullViewIsNotPartialAUserOrCoordinatorViewIs) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kClassic);
  EXPECT_FALSE(ViewIsPartial(full));
  EXPECT_TRUE(ViewIsPartial(ViewOf(full, "user1")));
  // A coordinator of c sees c and its users, but not a nor the root.
  client::ControllerState coord = ViewOf(full, "user1", {"c"});
  EXPECT_EQ(coord.assocs.size(), 4u);
  EXPECT_TRUE(ViewIsPartial(coord));
  // The root with a child whose parent is missing (a coordinator of root
  // only): still partial, never recomputed as if it were the whole tree.
  EXPECT_TRUE(ViewIsPartial(ViewOf(full, "user1", {"root"})));
}

TEST(ExplainVisible, PartialViewIsAModelUnderPrivateDataUsageAndAnErrorOtherwise) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kClassic);
  ExplainModel m = Model(ViewOf(full, "user1"));
  EXPECT_TRUE(m.partial);
  EXPECT_EQ(m.tree.size(), 0u);
  EXPECT_EQ(FindExplainAssoc(m, "b", "user1"), 0);
  EXPECT_EQ(FindExplainAssoc(m, "c", "user2"), -1);

  client::ControllerState broken = ViewOf(full, "user1");
  broken.private_usage = false;  // no PrivateData: a missing root is an error
  ExplainModel m2;
  std::string error;
  EXPECT_FALSE(BuildExplainModel(std::move(broken), &m2, &error));
  EXPECT_NE(error.find("root"), std::string::npos) << error;
}

// Classic and depth-oblivious: F = 2^(-UE/S/d) from the user's own row is
// the whole tree's factor.
TEST(ExplainVisible, ClassicFactorFromTheOwnRowEqualsTheWholeTreesFactor) {
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kDepthOblivious}) {
    client::ControllerState full = StateFor("classic_doc_example.csv", mode);
    ExplainModel whole = Model(full);
    for (const char* user : {"user1", "user2", "user3", "user4", "user5"}) {
      client::ControllerState view = ViewOf(full, user);
      ASSERT_EQ(view.assocs.size(), 1u);
      VisibleFairshare v = ExplainVisibleFairshare(view, 0);
      EXPECT_TRUE(v.factor_recomputed);
      EXPECT_FALSE(v.has_level);
      const int32_t i = whole.tree.Find(view.assocs[0].node.id);
      EXPECT_NEAR(v.factor, whole.fairshare.assocs[i].job_factor, 1e-12) << user;
      EXPECT_GT(v.factor, 0.0);
      EXPECT_NE(v.hidden.find("PrivateData=usage"), std::string::npos);
    }
  }
}

// Fair Tree: LevelFS = S/U recomputed from the row; F is the controller's
// (the rank needs every other association). The recomputation is checked
// against the published value: a wrong one is reported.
TEST(ExplainVisible, FairTreeRecomputesLevelFsAndTakesTheRankFromTheController) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kFairTree);
  ExplainModel whole = Model(full);
  client::ControllerState view = ViewOf(full, "user2");
  VisibleFairshare v = ExplainVisibleFairshare(view, 0);
  const int32_t i = whole.tree.Find(view.assocs[0].node.id);
  EXPECT_TRUE(v.has_level);
  EXPECT_TRUE(v.level_match);
  EXPECT_EQ(v.level, whole.fairshare.assocs[i].level_fs);
  EXPECT_FALSE(v.factor_recomputed);
  EXPECT_TRUE(v.factor_known);
  EXPECT_EQ(v.factor, whole.fairshare.assocs[i].job_factor);
  EXPECT_NE(v.hidden.find("rank"), std::string::npos);

  view.assocs[0].level_fs *= 1.5;  // the controller publishing something else
  EXPECT_FALSE(ExplainVisibleFairshare(view, 0).level_match);
  // ... which the job's explanation reports as a mismatch.
  client::ControllerJob job = JobOf(full, "c", "user2");
  std::vector<client::ControllerFactors> sprio = {SprioRow(whole, job)};
  std::vector<JobExplanation> rows = ExplainJob(Model(view), job, sprio, 1000);
  ASSERT_EQ(rows[0].mismatches.size(), 1u);
  EXPECT_EQ(rows[0].mismatches[0].rfind("LevelFS: recomputed", 0), 0u) << rows[0].mismatches[0];
}

TEST(ExplainVisible, RangedRecomputesTheLocalFactor) {
  client::ControllerState full = StateFor("ranged_three_accounts.csv", FairshareMode::kRanged);
  ExplainModel whole = Model(full);
  for (const client::ControllerAssoc& a : full.assocs) {
    if (!a.node.is_user()) continue;
    client::ControllerState view = ViewOf(full, a.node.user);
    const int32_t k = Index(view, a.node.acct, a.node.user);
    VisibleFairshare v = ExplainVisibleFairshare(view, k);
    const int32_t i = whole.tree.Find(a.node.id);
    EXPECT_TRUE(v.has_level);
    EXPECT_TRUE(v.level_match) << a.node.user;
    EXPECT_EQ(v.factor, whole.fairshare.assocs[i].job_factor);
  }
}

// The job: every factor the visible data allows is recomputed and equals
// sprio's; the sum and integer equal the whole tree's.
TEST(ExplainVisible, OwnJobFromThePartialViewReproducesThePriority) {
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kFairTree}) {
    client::ControllerState full = StateFor("classic_doc_example.csv", mode);
    ExplainModel whole = Model(full);
    client::ControllerJob job = JobOf(full, "c", "user2");
    std::vector<client::ControllerFactors> sprio = {SprioRow(whole, job)};
    ExplainModel part = Model(ViewOf(full, "user2"));
    std::vector<JobExplanation> rows = ExplainJob(part, job, sprio, 1000);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_TRUE(rows[0].from_controller.empty());  // no Priority set: nothing hidden
    EXPECT_TRUE(rows[0].mismatches.empty()) << rows[0].mismatches[0];
    EXPECT_TRUE(rows[0].priority_match);
    EXPECT_EQ(rows[0].result.priority, ExplainJob(whole, job, sprio, 1000)[0].result.priority);
    EXPECT_GT(rows[0].result.weighted.fairshare, 0.0);
    EXPECT_EQ(rows[0].visible.assoc, 0);

    // A controller whose fairshare differs is caught, not absorbed.
    sprio[0].fairshare += 50;
    rows = ExplainJob(part, job, sprio, 1000);
    ASSERT_EQ(rows[0].mismatches.size(), 1u);
    EXPECT_NE(rows[0].mismatches[0].find("fairshare"), std::string::npos);
    EXPECT_FALSE(rows[0].priority_match);
  }
}

// Association priorities set: normalising needs the largest, which is
// hidden; the factor comes from sprio and is named, the rest still checked.
TEST(ExplainVisible, HiddenMaximumPriorityTakesTheAssociationFactorFromTheController) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kFairTree);
  for (client::ControllerAssoc& a : full.assocs) a.node.priority = a.node.user.empty() ? 0 : 10;
  full.assocs[Index(full, "e", "user4")].node.priority = 40;
  ExplainModel whole = Model(full);
  client::ControllerJob job = JobOf(full, "c", "user2");
  std::vector<client::ControllerFactors> sprio = {SprioRow(whole, job)};
  EXPECT_EQ(sprio[0].assoc, 250.0);  // 10 / 40 * 1000

  std::vector<JobExplanation> rows = ExplainJob(Model(ViewOf(full, "user2")), job, sprio, 1000);
  EXPECT_EQ(rows[0].from_controller, std::vector<std::string>{"association"});
  EXPECT_EQ(rows[0].result.weighted.assoc, 250.0);
  EXPECT_TRUE(rows[0].priority_match);
  EXPECT_TRUE(rows[0].mismatches.empty());

  // NO_NORMAL_ASSOC: the Priority itself, visible, recomputed.
  client::ControllerState raw = full;
  raw.params.flags |= kFlagNoNormalAssoc;
  sprio = {SprioRow(Model(raw), job)};
  rows = ExplainJob(Model(ViewOf(raw, "user2")), job, sprio, 1000);
  EXPECT_TRUE(rows[0].from_controller.empty());
  EXPECT_EQ(rows[0].result.weighted.assoc, 10000.0);
  EXPECT_TRUE(rows[0].priority_match);
}

// A job whose association the user may not see (PrivateData=usage without
// jobs): the fairshare and association factors come from sprio, said so.
TEST(ExplainVisible, JobOfAHiddenAssociationTakesFairshareFromTheController) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kClassic);
  ExplainModel whole = Model(full);
  client::ControllerJob job = JobOf(full, "e", "user4");
  std::vector<client::ControllerFactors> sprio = {SprioRow(whole, job)};
  std::vector<JobExplanation> rows = ExplainJob(Model(ViewOf(full, "user2")), job, sprio, 1000);
  EXPECT_EQ(rows[0].visible.assoc, -1);
  // Its Priority is hidden too (PriorityWeightAssoc is set).
  EXPECT_EQ(rows[0].from_controller, (std::vector<std::string>{"fairshare", "association"}));
  EXPECT_EQ(rows[0].result.weighted.fairshare, sprio[0].fairshare);
  EXPECT_GT(rows[0].result.weighted.fairshare, 0.0);
  EXPECT_TRUE(rows[0].priority_match);
}

// Classic with a "parent" user: the factor is its account's, hidden from a
// plain user, visible to the account's coordinator.
TEST(ExplainVisible, ClassicParentUserNeedsItsAccount) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kClassic);
  int32_t u = Index(full, "c", "user3");
  full.assocs[u].node.shares_raw = kSharesUseParent;
  // Rebuild the published values for the changed tree.
  AssocTree tree;
  std::vector<AssocNode> nodes;
  for (const auto& a : full.assocs) nodes.push_back(a.node);
  std::string error;
  ASSERT_TRUE(tree.Build(nodes, false, &error)) << error;
  FairshareResults fs = ComputeFairshare(tree, full.params, nullptr, 0);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    full.assocs[i].level_shares = tree.links(i).level_shares;
    full.assocs[i].shares_norm = tree.links(i).shares_norm;
    full.assocs[i].usage_efctv = fs.assocs[i].usage_efctv;
  }
  client::ControllerState plain = ViewOf(full, "user3");
  VisibleFairshare v = ExplainVisibleFairshare(plain, 0);
  EXPECT_FALSE(v.factor_known);
  EXPECT_EQ(v.fs_assoc, -1);

  client::ControllerState coord = ViewOf(full, "user3", {"c"});
  v = ExplainVisibleFairshare(coord, Index(coord, "c", "user3"));
  EXPECT_TRUE(v.factor_recomputed);
  EXPECT_EQ(v.fs_assoc, Index(coord, "c", ""));
  EXPECT_NEAR(v.factor, fs.assocs[tree.Find(full.assocs[u].node.id)].job_factor, 1e-12);
}

}  // namespace
// Not the partial view: a job with several QOS (--qos=a,b, 24.11 and later)
// is explained per (partition, QOS), partition-major, each pair with its
// QOS's own factor and checked against sprio's row naming that QOS.
TEST(ExplainJob, SeveralQosGiveOneRowPerPartitionAndQos) {
  client::ControllerState full = StateFor("classic_doc_example.csv", FairshareMode::kFairTree);
  full.partitions.push_back({"high", 2, 0, kNoVal, {}});
  full.qos = {{"normal", 0, 0.0}, {"low", 10, 0.1}, {"high", 100, 1.0}};
  ExplainModel whole = Model(full);
  client::ControllerJob job = JobOf(full, "c", "user2");
  job.partition = "debug,high";
  job.qos = "high,low";
  std::vector<client::ControllerFactors> sprio;
  for (const std::string part : {"debug", "high"}) {
    for (const std::string qos : {"high", "low"}) {
      client::ControllerJob one = job;
      one.partition = part;
      one.qos = qos;
      client::ControllerFactors row = SprioRow(whole, one);
      row.qos_name = qos;
      sprio.push_back(row);
    }
  }
  std::vector<JobExplanation> rows = ExplainJob(whole, job, sprio, 1000);
  ASSERT_EQ(rows.size(), 4u);
  const char* expected[4][2] = {{"debug", "high"}, {"debug", "low"}, {"high", "high"}, {"high", "low"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].partition, expected[i][0]);
    EXPECT_EQ(rows[i].qos, expected[i][1]);
    ASSERT_NE(rows[i].controller, nullptr);
    EXPECT_EQ(rows[i].controller->qos_name, rows[i].qos);
    EXPECT_TRUE(rows[i].mismatches.empty()) << rows[i].mismatches[0];
    EXPECT_TRUE(rows[i].priority_match);
    EXPECT_DOUBLE_EQ(rows[i].result.weighted.qos, rows[i].qos == "high" ? 500.0 : 50.0);
  }
  // A controller that gave the low pair the high QOS's factor is caught.
  sprio[1].qos = sprio[0].qos;
  rows = ExplainJob(whole, job, sprio, 1000);
  ASSERT_EQ(rows[1].mismatches.size(), 1u);
  EXPECT_NE(rows[1].mismatches[0].find("QOS"), std::string::npos);
  // One QOS: one row per partition, matched by partition alone (22.05's
  // rows name no QOS).
  job.qos = "high";
  for (auto& row : sprio) row.qos_name.clear();
  EXPECT_EQ(ExplainJob(whole, job, sprio, 1000).size(), 2u);
}

}  // namespace fairway
