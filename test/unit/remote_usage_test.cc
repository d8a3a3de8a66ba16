// SPDX-License-Identifier: GPL-2.0-or-later
// Remote clusters' usage (src/remote_usage.h) and its PriorityParameters
// (fairshare_clusters, fairshare_sync): paths, charging once, decay, the
// fetch window, the state file.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "decay.h"
#include "params.h"
#include "remote_usage.h"
#include "usage_bootstrap.h"

namespace fairway {
namespace {

constexpr int64_t kHalfLife = 7 * 86400;

// root > a > b > alice; root > d > erin (and erin on partition gpu).
const std::vector<RemoteAssoc>* RemoteTree() {
  static const std::vector<RemoteAssoc> tree = {{10, "root", "", "", ""},      {11, "a", "", "", "root"},
          {12, "b", "", "", "a"},        {13, "b", "alice", "", ""},
          {14, "d", "", "", "root"},     {15, "d", "erin", "", ""},
          {16, "d", "erin", "gpu", ""},  {17, "lost", "", "", "nowhere"},
          {18, "lost", "zed", "", ""}};
  return &tree;
}

AssocTree LocalTree() {
  std::vector<AssocNode> nodes;
  auto add = [&nodes](uint32_t id, uint32_t parent, const char* acct, const char* user) {
    AssocNode n;
    n.id = id;
    n.parent_id = parent;
    n.acct = acct;
    n.user = user;
    n.usage_raw = 0;
    nodes.push_back(n);
  };
  add(1, 0, "root", "");
  add(2, 1, "a", "");
  add(3, 2, "b", "");
  add(4, 3, "b", "alice");
  add(5, 1, "d", "");
  AssocTree tree;
  std::string error;
  EXPECT_TRUE(tree.Build(nodes, true, &error)) << error;
  return tree;
}

RemoteJob Job(uint32_t id, uint32_t assoc, int64_t start, int64_t end, double billing = 2) {
  RemoteJob j;
  j.job_id = id;
  j.submit = start - 10;
  j.assoc_id = assoc;
  j.start = start;
  j.end = end;
  j.billing = billing;
  return j;
}

TEST(RemoteUsage, PathsFollowTheAccountChainAndSkipChainsNotReachingRoot) {
  const std::map<uint32_t, std::string> paths = RemotePaths(*RemoteTree());
  EXPECT_EQ(paths.at(10), "root");
  EXPECT_EQ(paths.at(12), "root/a/b");
  EXPECT_EQ(paths.at(13), "root/a/b|alice");
  EXPECT_EQ(paths.at(16), "root/d|erin|gpu");
  EXPECT_EQ(paths.count(17), 0u);
  EXPECT_EQ(paths.count(18), 0u);
  const AssocTree tree = LocalTree();
  EXPECT_EQ(LocalPath(tree, tree.Find(4)), "root/a/b|alice");
  EXPECT_EQ(LocalPath(tree, tree.root()), "root");
}

TEST(RemoteUsage, EndedJobsAreChargedOnceRunningOnesRecounted) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  std::vector<RemoteJob> jobs = {Job(1, 13, t0 - 600, t0 - 100), Job(2, 15, t0 - 300, 0)};
  RemoteSyncResult s = r.Sync("b", RemoteTree(), jobs, t0, f, kHalfLife);
  EXPECT_EQ(s.charged, 1u);
  EXPECT_EQ(s.running, 1u);
  JobUsageRecord one{13, t0 - 600, t0 - 100, 2};
  JobUsageRecord two{15, t0 - 300, 0, 2};
  EXPECT_EQ(r.clusters().at("b").ended.at("root/a/b|alice"), DecayedJobUsage(one, t0, f));
  EXPECT_EQ(r.clusters().at("b").running.at("root/d|erin"), DecayedJobUsage(two, t0, f));
  // The same answer again a minute later: nothing charged twice; job 2
  // now ended.
  jobs[1].end = t0 + 30;
  s = r.Sync("b", RemoteTree(), jobs, t0 + 60, f, kHalfLife);
  EXPECT_EQ(s.charged, 1u);
  EXPECT_EQ(s.repeated, 1u);
  EXPECT_TRUE(r.clusters().at("b").running.empty());
  two.end = t0 + 30;
  EXPECT_NEAR(static_cast<double>(r.clusters().at("b").ended.at("root/d|erin")),
              static_cast<double>(DecayedJobUsage(two, t0 + 60, f)), 1e-9);
  EXPECT_NEAR(static_cast<double>(r.clusters().at("b").ended.at("root/a/b|alice")),
              static_cast<double>(DecayedJobUsage(one, t0 + 60, f)), 1e-9);
}

TEST(RemoteUsage, FetchSinceCoversTheDecayWindowThenTheLastSyncAndOpenJobs) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  EXPECT_EQ(r.FetchSince("b", t0, kHalfLife), t0 - 10 * kHalfLife);
  EXPECT_EQ(r.FetchSince("b", t0, 400 * 86400), t0 - 365 * 86400);
  r.Sync("b", RemoteTree(), {Job(1, 13, t0 - 5 * 86400, 0)}, t0, f, kHalfLife);
  // The job seen running keeps the window open back to its start.
  EXPECT_EQ(r.FetchSince("b", t0 + 300, kHalfLife), t0 - 5 * 86400);
  r.Sync("b", RemoteTree(), {Job(1, 13, t0 - 5 * 86400, t0 + 100)}, t0 + 300, f, kHalfLife);
  EXPECT_EQ(r.FetchSince("b", t0 + 600, kHalfLife), t0 + 300 - 3600);
}

TEST(RemoteUsage, LateEndRecordOfAJobSeenRunningIsStillCharged) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  r.Sync("b", RemoteTree(), {Job(7, 13, t0 - 86400, 0)}, t0, f, kHalfLife);
  // Two days later slurmdbd learns it ended right after the first sync.
  const int64_t t1 = t0 + 2 * 86400;
  ASSERT_LE(r.FetchSince("b", t1, kHalfLife), t0 - 86400);
  const RemoteSyncResult s = r.Sync("b", RemoteTree(), {Job(7, 13, t0 - 86400, t0 + 60)}, t1, f, kHalfLife);
  EXPECT_EQ(s.charged, 1u);
  EXPECT_GT(r.clusters().at("b").ended.at("root/a/b|alice"), 0);
}

TEST(RemoteUsage, SiblingsThatNeverRanAndJobsWithoutAPathCountNothing) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  RemoteJob sibling = Job(3, 13, 0, 0);
  RemoteJob lost = Job(4, 18, 1000, 2000);
  const RemoteSyncResult s = r.Sync("b", RemoteTree(), {sibling, lost}, 5000, f, kHalfLife);
  EXPECT_EQ(s.charged + s.running, 0u);
  EXPECT_EQ(s.without_path, 1u);
}

TEST(RemoteUsage, TotalsDecayScaleAndSumClusters) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  r.Sync("b", RemoteTree(), {Job(1, 13, t0 - 600, t0 - 100)}, t0, f, kHalfLife);
  r.Sync("c", RemoteTree(), {Job(1, 13, t0 - 600, t0 - 100)}, t0, f, kHalfLife);
  const long double one = r.clusters().at("b").ended.at("root/a/b|alice");
  auto totals = r.Used({{"b", 1.0}, {"c", 0.5}}, t0 + kHalfLife, f).Sum();
  EXPECT_NEAR(static_cast<double>(totals.at("root/a/b|alice") / one), 1.5 * std::pow(f, kHalfLife), 1e-12);
  r.Keep({"b"});
  totals = r.Used({{"b", 1.0}, {"c", 0.5}}, t0, f).Sum();
  EXPECT_EQ(totals.at("root/a/b|alice"), one);
}

TEST(RemoteUsage, SubtreeUsageChargesAncestorsAndReportsUnmatchedPaths) {
  const AssocTree tree = LocalTree();
  std::vector<std::string> unmatched;
  const std::vector<long double> u =
      RemoteSubtreeUsage(tree, {{"root/a/b|alice", 10}, {"root/d|erin", 5}, {"root/d", 1}}, &unmatched);
  EXPECT_EQ(u[tree.Find(4)], 10);
  EXPECT_EQ(u[tree.Find(2)], 10);
  EXPECT_EQ(u[tree.Find(5)], 1);
  EXPECT_EQ(u[tree.root()], 11);
  EXPECT_EQ(unmatched, std::vector<std::string>{"root/d|erin"});
}

// The pass adds the other clusters' usage from a view (no path copied)
// with a local-path index it keeps; explain adds it from the file's maps.
// Both must give what the maps, summed per path, give, bit for bit: the
// same per-cluster values, the same sums per node, the same file.
TEST(RemoteUsage, ViewGivesTheMapsSumsAndFileBitForBit) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  std::mt19937_64 random(20261127);
  const uint32_t assocs[] = {12, 13, 15, 16, 18};  // 16: no local path; 18: none anywhere
  for (const char* cluster : {"b", "c", "d"}) {
    std::vector<RemoteJob> jobs;
    for (uint32_t id = 1; id <= 40; ++id) {
      const int64_t start = t0 - 3600 + static_cast<int64_t>(random() % 3000);
      const int64_t end = random() % 4 ? start + 1 + static_cast<int64_t>(random() % 500) : 0;
      jobs.push_back(Job(id, assocs[random() % 5], start, end, 1 + static_cast<double>(random() % 7)));
    }
    r.Sync(cluster, RemoteTree(), jobs, t0, f, kHalfLife);
  }
  const std::vector<std::pair<std::string, double>> clusters = {{"b", 1.0}, {"c", 0.25}, {"d", 3.0}};
  const int64_t now = t0 + 4321;
  RemotePlan plan;
  plan.wanted = false;
  // The maps, built as a sum per path from 0.
  std::map<std::string, std::map<std::string, long double>> naive;
  for (const auto& [name, scale] : clusters) {
    const RemoteClusterUsage& c = r.clusters().at(name);
    const long double factor = std::pow(static_cast<long double>(f), static_cast<long double>(now - c.as_of)) * scale;
    for (const auto* part : {&c.ended, &c.running}) {
      for (const auto& [path, usage] : *part) naive[name][path] += usage * factor;
    }
  }
  const RemoteUsed used = r.Used(clusters, now, f, plan);
  EXPECT_EQ(used.by_cluster, naive);
  const AssocTree tree = LocalTree();
  std::vector<std::string> unmatched_maps, unmatched_view;
  const std::vector<long double> from_maps = RemoteSubtreeUsage(tree, used.Sum(), &unmatched_maps);
  std::map<std::string, int64_t> synced_at;
  const ClustersView view = r.UsedView(clusters, now, f, &synced_at);
  const std::vector<long double> from_view =
      RemoteSubtreeUsage(tree, view, MakeLocalPathIndex(tree), &unmatched_view);
  EXPECT_EQ(from_view, from_maps);
  EXPECT_GT(from_view[tree.root()], 0);
  EXPECT_EQ(unmatched_view, unmatched_maps);
  EXPECT_FALSE(unmatched_view.empty());
  EXPECT_EQ(RemoteUsed::SerializeView(now, plan.IndexAt(now), synced_at, view, {}), used.Serialize());
  // What explain parses adds up the same.
  RemoteUsed back;
  std::string error;
  ASSERT_TRUE(RemoteUsed::Parse(used.Serialize(), &back, &error)) << error;
  EXPECT_EQ(RemoteSubtreeUsage(tree, back.Sum(), nullptr), from_view);
}

TEST(RemoteUsage, LocalPathSignatureFollowsWhatPathsDependOn) {
  const AssocTree tree = LocalTree();
  EXPECT_EQ(LocalPathSignature(tree), LocalPathSignature(LocalTree()));
  std::vector<AssocNode> nodes = tree.nodes();
  nodes[3].user = "alicf";
  AssocTree renamed;
  std::string error;
  ASSERT_TRUE(renamed.Build(nodes, true, &error)) << error;
  EXPECT_NE(LocalPathSignature(renamed), LocalPathSignature(tree));
  nodes = tree.nodes();
  nodes[2].parent_id = 1;  // b moved from a to root
  AssocTree moved;
  ASSERT_TRUE(moved.Build(nodes, true, &error)) << error;
  EXPECT_NE(LocalPathSignature(moved), LocalPathSignature(tree));
  EXPECT_EQ(MakeLocalPathIndex(moved).at("root/b|alice"), moved.Find(4));
}

TEST(RemoteUsage, UsageUnderAPathCountsItsSubtreeOnly) {
  const std::map<std::string, long double> u = {
      {"root/a", 1}, {"root/a/b|alice", 2}, {"root/ab", 4}, {"root/a|bob", 8}, {"root/d", 16}};
  EXPECT_EQ(RemoteUsageUnder(u, "root/a"), 11);
  EXPECT_EQ(RemoteUsageUnder(u, "root"), 31);
  EXPECT_EQ(RemoteUsageUnder(u, "root/x"), 0);
}

TEST(RemoteUsage, UsedKeepsEachClustersPartAndRoundTrips) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  r.Sync("b", RemoteTree(), {Job(1, 13, t0 - 600, t0 - 100)}, t0, f, kHalfLife);
  r.Sync("c", RemoteTree(), {Job(1, 15, t0 - 600, t0 - 100)}, t0, f, kHalfLife);
  const RemoteUsed used = r.Used({{"b", 1.0}, {"c", 2.0}, {"gone", 1.0}}, t0 + 10, f);
  EXPECT_EQ(used.synced_at.at("gone"), 0);
  EXPECT_EQ(used.synced_at.at("b"), t0);
  // b charged alice's path, c erin's (scaled 2): the sum keeps both.
  EXPECT_EQ(used.Sum().at("root/a/b|alice"), used.by_cluster.at("b").at("root/a/b|alice"));
  EXPECT_EQ(used.Sum().at("root/d|erin"), used.by_cluster.at("c").at("root/d|erin"));
  EXPECT_EQ(used.Sum().size(), 2u);
  RemoteUsed back;
  std::string error;
  ASSERT_TRUE(RemoteUsed::Parse(used.Serialize(), &back, &error)) << error;
  EXPECT_EQ(back.Serialize(), used.Serialize());
  EXPECT_EQ(back.by_cluster.at("c").at("root/d|erin"), used.by_cluster.at("c").at("root/d|erin"));
  std::string damaged = used.Serialize();
  damaged[10] ^= 1;
  EXPECT_FALSE(RemoteUsed::Parse(damaged, &back, &error));
}

// The remote ledgers hold what charge-as-you-go would have: the same H and
// c as the usage bootstrap's LedgerFromJobs over the same jobs, however
// many intervals later they are read.
TEST(RemoteUsage, PlanLedgersMatchChargeAsYouGo) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  RemotePlan plan;
  plan.interval_s = 3600;
  plan.per_interval_decay = PlannedUsePerIntervalDecay(3600, kHalfLife);
  const int64_t t0 = 1'800'000'000 / 3600 * 3600 + 1800;  // half past an hour
  // An ended job over two hours, one still running.
  std::vector<RemoteJob> jobs = {Job(1, 13, t0 - 5400, t0 - 600, 3), Job(2, 13, t0 - 1200, 0, 2)};
  r.Sync("b", RemoteTree(), jobs, t0, f, kHalfLife, plan);
  const int64_t later = t0 + 3 * 3600 + 60;
  const RemoteUsed used = r.Used({{"b", 1.0}}, later, f, plan);
  // LedgerFromJobs on a one-node tree for the path, the running job as
  // seen at the sync.
  std::vector<AssocNode> nodes(1);
  nodes[0].id = 1;
  nodes[0].acct = "root";
  AssocTree tree;
  std::string error;
  ASSERT_TRUE(tree.Build(nodes, true, &error)) << error;
  const PlannedUseLedger want = LedgerFromJobs(
      tree, {{1, t0 - 5400, t0 - 600, 3}, {1, t0 - 1200, t0, 2}}, later, 3600, plan.per_interval_decay);
  const PlannedUseEntry& got = used.plan_by_cluster.at("b").at("root/a/b|alice");
  EXPECT_EQ(used.plan_index, later / 3600);
  EXPECT_NEAR(static_cast<double>(got.history), static_cast<double>(want.entries.at(1).history),
              1e-9 * static_cast<double>(want.entries.at(1).history));
  EXPECT_EQ(got.open, 0);  // no usage after the sync: the open interval is empty
  // Added to the local ledger along the path.
  const AssocTree local = LocalTree();
  PlannedUseLedger ledger;
  ledger.entries[2].history = 5;
  AddRemotePlan(local, used.PlanSum(), &ledger);
  EXPECT_EQ(ledger.entries.at(4).history, got.history);
  EXPECT_EQ(ledger.entries.at(2).history, 5 + got.history);
  EXPECT_EQ(ledger.entries.at(1).history, got.history);
  EXPECT_EQ(ledger.entries.count(5), 0u);
}

TEST(RemoteUsage, StateRoundTripsAndDamageIsRefused) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1'800'000'000;
  RemotePlan plan;
  plan.interval_s = 3600;
  plan.per_interval_decay = 0.99;
  r.Sync("b", RemoteTree(), {Job(1, 13, t0 - 600, t0 - 100), Job(2, 15, t0 - 300, 0)}, t0, f, kHalfLife,
         plan);
  const std::string bytes = r.Serialize();
  RemoteUsage back;
  std::string error;
  ASSERT_TRUE(RemoteUsage::Parse(bytes, &back, &error)) << error;
  EXPECT_EQ(back.Serialize(), bytes);
  EXPECT_EQ(back.clusters().at("b").ended, r.clusters().at("b").ended);
  EXPECT_EQ(back.clusters().at("b").open.size(), 1u);
  EXPECT_EQ(back.clusters().at("b").plan_index, t0 / 3600);
  EXPECT_EQ(back.clusters().at("b").plan_ended.at("root/a/b|alice").open,
            r.clusters().at("b").plan_ended.at("root/a/b|alice").open);
  std::string damaged = bytes;
  damaged[damaged.size() / 2] ^= 1;
  EXPECT_FALSE(RemoteUsage::Parse(damaged, &back, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos);
  EXPECT_FALSE(RemoteUsage::Parse(bytes.substr(0, bytes.size() - 5), &back, &error));
  EXPECT_FALSE(RemoteUsage::Parse("FWPU 1\n", &back, &error));
  // A repeated sync after a restart charges nothing again.
  const RemoteSyncResult s =
      back.Sync("b", RemoteTree(), {Job(1, 13, t0 - 600, t0 - 100)}, t0 + 60, f, kHalfLife);
  EXPECT_EQ(s.charged, 0u);
  EXPECT_EQ(s.repeated, 1u);
}

TEST(RemoteUsage, KeepsAssociationPathsUntilAnHourOrANewerAssociation) {
  RemoteUsage r;
  const double f = DecayFactorPerSecond(kHalfLife);
  const int64_t t0 = 1700000000;
  const std::vector<RemoteJob> old_jobs = {Job(1, 13, t0 - 600, t0 - 100)};
  // None kept yet: the first sync needs them.
  EXPECT_TRUE(r.NeedsAssocs("b", old_jobs, t0));
  r.Sync("b", RemoteTree(), old_jobs, t0, f, kHalfLife);
  // Kept: a later sync of jobs of known associations goes without them,
  // and charges exactly what a sync given them would.
  const std::vector<RemoteJob> more = {Job(2, 15, t0 - 300, t0 + 30), Job(3, 13, t0, t0 + 50)};
  EXPECT_FALSE(r.NeedsAssocs("b", more, t0 + 60));
  RemoteUsage given = r;
  const RemoteSyncResult kept = r.Sync("b", nullptr, more, t0 + 60, f, kHalfLife);
  const RemoteSyncResult fresh = given.Sync("b", RemoteTree(), more, t0 + 60, f, kHalfLife);
  EXPECT_EQ(kept.charged, 2u);
  EXPECT_EQ(kept.charged_usage, fresh.charged_usage);
  EXPECT_EQ(r.clusters().at("b").ended, given.clusters().at("b").ended);
  // A deleted association (an id below the newest kept one, not among
  // them) has no path: no need to ask again.
  EXPECT_FALSE(r.NeedsAssocs("b", {Job(4, 9, t0, t0 + 70)}, t0 + 120));
  // An association newer than the kept ones: ask.
  EXPECT_TRUE(r.NeedsAssocs("b", {Job(5, 19, t0, t0 + 70)}, t0 + 120));
  // A job that never ran names no association that matters.
  RemoteJob sibling = Job(6, 19, 0, 0);
  EXPECT_FALSE(r.NeedsAssocs("b", {sibling}, t0 + 120));
  // An hour after they were read: ask again.
  EXPECT_TRUE(r.NeedsAssocs("b", more, t0 + kRemoteAssocRefreshS));
  // Another cluster keeps its own.
  EXPECT_TRUE(r.NeedsAssocs("c", old_jobs, t0 + 60));
  // Not saved: after a restart the first sync asks again.
  RemoteUsage back;
  std::string error;
  ASSERT_TRUE(RemoteUsage::Parse(r.Serialize(), &back, &error)) << error;
  EXPECT_TRUE(back.NeedsAssocs("b", more, t0 + 120));
}

TEST(RemoteClustersParams, ListRunsOverItemsWithoutEqualsAndTakesScales) {
  Params p;
  Diagnostics d = ParsePriorityParameters("fairshare_clusters=GPU:2.5,cloud,fairshare_sync=600", &p, "main");
  EXPECT_TRUE(d.empty());
  ASSERT_EQ(p.fairshare_clusters.size(), 2u);
  EXPECT_EQ(p.fairshare_clusters[0].name, "gpu");
  EXPECT_EQ(p.fairshare_clusters[0].scale, 2.5);
  EXPECT_EQ(p.fairshare_clusters[1].name, "cloud");
  EXPECT_EQ(p.fairshare_clusters[1].scale, 1);
  EXPECT_EQ(p.fairshare_sync_s, 600);
}

TEST(RemoteClustersParams, BadListsAreRefusedWholeNamingTheValue) {
  for (const char* text : {"fairshare_clusters=gpu:0", "fairshare_clusters=gpu:nan",
                           "fairshare_clusters=gpu,gpu", "fairshare_clusters=main",
                           "fairshare_clusters=a b", "fairshare_clusters=gpu:-1,cloud"}) {
    Params p;
    p.fairshare_clusters = {{"old", 1}};
    Diagnostics d = ParsePriorityParameters(text, &p, "main");
    ASSERT_EQ(d.size(), 1u) << text;
    EXPECT_NE(d[0].Format().find("fairshare_clusters"), std::string::npos) << d[0].Format();
    ASSERT_EQ(p.fairshare_clusters.size(), 1u) << text;
    EXPECT_EQ(p.fairshare_clusters[0].name, "old");
  }
  Params p;
  Diagnostics d = ParsePriorityParameters("fairshare_sync=soon", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].Format().find("fairshare_sync"), std::string::npos);
}

}  // namespace
}  // namespace fairway
