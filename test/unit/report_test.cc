// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway report`'s model (tool/report_model.h): the tree, the buckets
// and the defined behaviours for time zones, missing roll-ups, deleted,
// reparented, Fairshare=parent and orphan associations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>

#include "local_time.h"
#include "report_model.h"

namespace fairway::report {
namespace {

constexpr uint32_t kParent = 0x7fffffffu;

// Runs each test in a time zone of its choosing, and restores the
// process's afterwards.
class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    had_tz_ = tz != nullptr;
    if (tz) saved_tz_ = tz;
    UseTimeZone("UTC");
  }
  void TearDown() override {
    if (had_tz_) {
      setenv("TZ", saved_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

  static int64_t At(const std::string& local) {
    int64_t t = 0;
    EXPECT_TRUE(ParseLocalTime(local, &t)) << local;
    return t;
  }

  // root -> A (3 shares) -> alice, bob (1 each); root -> B (1) -> carol.
  static std::vector<AssocRow> Tree() {
    return {
        {1, "root", "", "", "", 1, false},     {2, "a", "", "", "root", 3, false},
        {3, "b", "", "", "root", 1, false},    {4, "a", "alice", "", "", 1, false},
        {5, "a", "bob", "", "", 1, false},     {6, "b", "carol", "", "", 1, false},
    };
  }

  // One cluster row per day of [start, start + days), 100 CPUs.
  static std::vector<ClusterRow> Days(int64_t start, int days) {
    std::vector<ClusterRow> rows;
    for (int d = 0; d < days; ++d) {
      ClusterRow c;
      c.time_start = AddLocalDays(start, d);
      c.count = 100;
      c.alloc_secs = 1000;
      c.idle_secs = (AddLocalDays(start, d + 1) - c.time_start) * 100 - 1000;
      rows.push_back(c);
    }
    return rows;
  }

  static size_t Index(const Report& r, const std::string& acct, const std::string& user = "") {
    for (size_t i = 0; i < r.nodes().size(); ++i) {
      if (r.nodes()[i].acct == acct && r.nodes()[i].user == user && !r.nodes()[i].deleted) return i;
    }
    ADD_FAILURE() << "no node " << acct << "/" << user;
    return 0;
  }

  bool had_tz_ = false;
  std::string saved_tz_;
};

TEST_F(ReportTest, SharesAndDeliveredAreRatiosOfSubtreeSums) {
  Input in;
  in.assocs = Tree();
  in.by = Granularity::kDay;
  in.start = At("2026-03-02");
  in.end = At("2026-03-04");
  in.cluster = Days(in.start, 2);
  in.usage = {{4, in.start, 600}, {5, in.start, 200}, {6, in.start, 200},
              {4, AddLocalDays(in.start, 1), 100}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  ASSERT_EQ(r.buckets().size(), 2u);
  const size_t root = 0, a = Index(r, "a"), alice = Index(r, "a", "alice"), carol = Index(r, "b", "carol");
  EXPECT_EQ(r.nodes()[root].acct, "root");
  EXPECT_DOUBLE_EQ(r.nodes()[a].entitled_level, 0.75);
  EXPECT_DOUBLE_EQ(r.nodes()[a].entitled_machine, 0.75);
  EXPECT_DOUBLE_EQ(r.nodes()[alice].entitled_level, 0.5);
  EXPECT_DOUBLE_EQ(r.nodes()[alice].entitled_machine, 0.375);
  // Day 1: a = 800 of 1000.
  Cell c = r.At(a, 0);
  EXPECT_EQ(c.usage_secs, 800u);
  EXPECT_DOUBLE_EQ(c.delivered_parent, 0.8);
  EXPECT_DOUBLE_EQ(c.delivered_cluster, 0.8);
  EXPECT_DOUBLE_EQ(c.ratio, 0.8 / 0.75);
  EXPECT_NEAR(c.error, 0.05, 1e-12);
  c = r.At(alice, 0);
  EXPECT_DOUBLE_EQ(c.delivered_parent, 0.75);
  EXPECT_DOUBLE_EQ(c.level_ratio, 1.5);
  // Over the period: alice 700 of root 1100.
  c = r.Total(alice);
  EXPECT_EQ(c.usage_secs, 700u);
  EXPECT_DOUBLE_EQ(c.delivered_cluster, 700.0 / 1100.0);
  EXPECT_EQ(r.Total(root).usage_secs, 1100u);
  // carol is entitled to 0.25 of the machine and got 200 of 1100.
  EXPECT_DOUBLE_EQ(r.Total(carol).ratio, (200.0 / 1100.0) / 0.25);
  // Planned use off: no u.
  EXPECT_TRUE(std::isnan(c.plan_u));
}

TEST_F(ReportTest, TreeOrderPutsUsersBeforeSubAccountsByName) {
  Input in;
  in.assocs = Tree();
  in.assocs.push_back({7, "a1", "", "", "a", 1, false});
  in.start = At("2026-03-02");
  in.end = At("2026-03-03");
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  std::vector<std::string> order;
  for (const Node& n : r.nodes()) order.push_back(n.is_user() ? n.user : n.acct);
  EXPECT_EQ(order, (std::vector<std::string>{"root", "a", "alice", "bob", "a1", "b", "carol"}));
  EXPECT_EQ(r.nodes()[Index(r, "a1")].depth, 2);
}

TEST_F(ReportTest, MissingRollupIsLeftOutOfTheTotals) {
  Input in;
  in.assocs = Tree();
  in.start = At("2026-03-02");
  in.end = At("2026-03-05");
  in.cluster = Days(in.start, 3);
  in.cluster.erase(in.cluster.begin() + 1);  // day 2 not rolled up
  in.usage = {{4, in.start, 100}, {6, AddLocalDays(in.start, 2), 300}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  EXPECT_EQ(r.missing_buckets(), 1u);
  EXPECT_TRUE(r.buckets()[1].missing());
  EXPECT_TRUE(std::isnan(r.At(0, 1).delivered_cluster));
  EXPECT_EQ(r.Total(0).usage_secs, 400u);
  EXPECT_EQ(r.total_capacity_secs(), 2u * 86400u * 100u);
}

TEST_F(ReportTest, RowsInAMissingBucketDoNotCountInTotals) {
  Input in;
  in.assocs = Tree();
  in.start = At("2026-03-02");
  in.end = At("2026-03-04");
  in.cluster = Days(in.start, 1);  // day 2 has assoc rows but no cluster row
  in.usage = {{4, in.start, 100}, {4, AddLocalDays(in.start, 1), 900}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  EXPECT_EQ(r.At(Index(r, "a", "alice"), 1).usage_secs, 900u);  // still shown
  EXPECT_EQ(r.Total(Index(r, "a", "alice")).usage_secs, 100u);
}

TEST_F(ReportTest, WeeksRunMondayToMondayAndPartialWeeksShowCoverage) {
  Input in;
  in.assocs = Tree();
  in.by = Granularity::kWeek;
  in.start = At("2026-03-04");  // a Wednesday: the week starts on Monday 2026-03-02
  in.end = At("2026-03-16");
  in.cluster = Days(At("2026-03-02"), 10);  // the second week lacks its last 4 days
  in.usage = {{4, At("2026-03-03"), 50}, {4, At("2026-03-10"), 70}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  ASSERT_EQ(r.buckets().size(), 2u);
  EXPECT_EQ(r.buckets()[0].start, At("2026-03-02"));
  EXPECT_EQ(r.buckets()[1].end, At("2026-03-16"));
  EXPECT_DOUBLE_EQ(r.buckets()[0].coverage(), 1.0);
  EXPECT_DOUBLE_EQ(r.buckets()[1].coverage(), 3.0 / 7.0);
  EXPECT_FALSE(r.buckets()[1].missing());
  EXPECT_EQ(r.Total(0).usage_secs, 120u);
  EXPECT_EQ(r.misaligned_rows(), 0u);
}

TEST_F(ReportTest, DaysFollowLocalMidnightsAcrossDst) {
  UseTimeZone("America/New_York");  // DST ends on Sunday 2026-11-01
  const std::vector<Bucket> days = MakeBuckets(Granularity::kDay, At("2026-10-31"), At("2026-11-03"));
  ASSERT_EQ(days.size(), 3u);
  EXPECT_EQ(days[0].end - days[0].start, 24 * 3600);
  EXPECT_EQ(days[1].end - days[1].start, 25 * 3600);
  EXPECT_EQ(FormatLocal(days[2].start, true), "2026-11-02");
  const std::vector<Bucket> hours = MakeBuckets(Granularity::kHour, At("2026-11-01"), At("2026-11-02"));
  EXPECT_EQ(hours.size(), 25u);
}

TEST_F(ReportTest, RowsOfAnotherTimeZoneAreCountedAndFlagged) {
  UseTimeZone("America/New_York");
  Input in;
  in.assocs = Tree();
  in.start = At("2026-03-02");
  in.end = At("2026-03-04");
  // slurmdbd in UTC rolled up from UTC midnights, 5 hours before local ones.
  UseTimeZone("UTC");
  const int64_t utc_day2 = At("2026-03-03");
  UseTimeZone("America/New_York");
  ClusterRow c;
  c.time_start = utc_day2;
  c.alloc_secs = 10;
  in.cluster = {c};
  in.usage = {{4, utc_day2, 10}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  // 2026-03-03T00:00Z is 2026-03-02T19:00 in New York: the first day.
  EXPECT_EQ(r.At(0, 0).usage_secs, 10u);
  EXPECT_EQ(r.misaligned_rows(), 1u);  // the association's row
  EXPECT_TRUE(r.buckets()[1].missing());
}

TEST_F(ReportTest, HalfHourZoneHoursStartAtHalfPastInUnixTime) {
  UseTimeZone("Asia/Kolkata");
  const std::vector<Bucket> hours = MakeBuckets(Granularity::kHour, At("2026-03-02T10:15"), At("2026-03-02T12:00"));
  ASSERT_EQ(hours.size(), 2u);
  EXPECT_EQ(hours[0].start % 3600, 1800);
  EXPECT_EQ(FormatLocal(hours[0].start), "2026-03-02T10:00:00+0530");
}

TEST_F(ReportTest, DeletedAssociationHasNoShareButItsUsageCountsInItsParent) {
  Input in;
  in.assocs = Tree();
  in.assocs[4].deleted = true;  // bob
  in.start = At("2026-03-02");
  in.end = At("2026-03-03");
  in.cluster = Days(in.start, 1);
  in.usage = {{4, in.start, 100}, {5, in.start, 300}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  size_t bob = 0;
  for (size_t i = 0; i < r.nodes().size(); ++i) {
    if (r.nodes()[i].user == "bob") bob = i;
  }
  ASSERT_TRUE(r.nodes()[bob].deleted);
  EXPECT_EQ(r.nodes()[bob].entitled_machine, 0);
  EXPECT_TRUE(std::isnan(r.Total(bob).ratio));
  EXPECT_DOUBLE_EQ(r.Total(bob).error, 0.75);
  // alice is now alone among a's live users.
  EXPECT_DOUBLE_EQ(r.nodes()[Index(r, "a", "alice")].entitled_level, 1.0);
  EXPECT_EQ(r.Total(Index(r, "a")).usage_secs, 400u);
}

TEST_F(ReportTest, UserMovedToAnotherAccountKeepsItsOldUsageUnderTheOld) {
  Input in;
  in.assocs = Tree();
  in.assocs[3].deleted = true;                          // alice left a ...
  in.assocs.push_back({7, "b", "alice", "", "", 1, false});  // ... for b
  in.start = At("2026-03-02");
  in.end = At("2026-03-04");
  in.cluster = Days(in.start, 2);
  in.usage = {{4, in.start, 100}, {7, AddLocalDays(in.start, 1), 100}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  EXPECT_EQ(r.At(Index(r, "a"), 0).usage_secs, 100u);
  EXPECT_EQ(r.At(Index(r, "b"), 1).usage_secs, 100u);
  EXPECT_EQ(r.At(Index(r, "b"), 0).usage_secs, 0u);
  EXPECT_DOUBLE_EQ(r.nodes()[Index(r, "b", "alice")].entitled_level, 0.5);
}

TEST_F(ReportTest, ReparentedAccountCountsUnderItsNewParentThroughout) {
  Input in;
  in.assocs = Tree();
  in.assocs.push_back({7, "a1", "", "", "b", 1, false});  // was under a, now under b
  in.assocs.push_back({8, "a1", "dave", "", "", 1, false});
  in.start = At("2026-03-02");
  in.end = At("2026-03-04");
  in.cluster = Days(in.start, 2);
  in.usage = {{8, in.start, 50}, {8, AddLocalDays(in.start, 1), 50}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  EXPECT_EQ(r.At(Index(r, "b"), 0).usage_secs, 50u);
  EXPECT_EQ(r.At(Index(r, "a"), 0).usage_secs, 0u);
  EXPECT_EQ(r.nodes()[Index(r, "a1")].parent, static_cast<int32_t>(Index(r, "b")));
}

TEST_F(ReportTest, FairshareParentHasNoEntitlementOfItsOwn) {
  Input in;
  in.assocs = Tree();
  in.assocs[4].shares = kParent;                           // bob: Fairshare=parent
  in.assocs.push_back({7, "a1", "", "", "a", kParent, false});  // a1: Fairshare=parent
  in.assocs.push_back({8, "a1", "dave", "", "", 1, false});
  in.start = At("2026-03-02");
  in.end = At("2026-03-03");
  in.cluster = Days(in.start, 1);
  in.usage = {{5, in.start, 100}, {8, in.start, 100}, {4, in.start, 200}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  const Node& bob = r.nodes()[Index(r, "a", "bob")];
  EXPECT_TRUE(bob.uses_parent);
  EXPECT_TRUE(std::isnan(bob.entitled_machine));
  EXPECT_TRUE(std::isnan(r.Total(Index(r, "a", "bob")).ratio));
  // dave competes among a's children (a1 is "parent"): alice 1 + dave 1.
  const size_t dave = Index(r, "a1", "dave");
  EXPECT_EQ(r.nodes()[dave].fs_parent, static_cast<int32_t>(Index(r, "a")));
  EXPECT_DOUBLE_EQ(r.nodes()[dave].entitled_level, 0.5);
  EXPECT_DOUBLE_EQ(r.Total(dave).delivered_parent, 0.25);  // 100 of a's 400
}

TEST_F(ReportTest, OrphanIsListedApartAndNotSummedIntoTheRoot) {
  Input in;
  in.assocs = Tree();
  in.assocs.push_back({7, "gone", "erin", "", "", 1, false});  // account row missing
  in.start = At("2026-03-02");
  in.end = At("2026-03-03");
  in.cluster = Days(in.start, 1);
  in.usage = {{7, in.start, 100}, {4, in.start, 100}, {99, in.start, 5}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  const Node& erin = r.nodes().back();
  EXPECT_TRUE(erin.orphan);
  EXPECT_EQ(erin.entitled_machine, 0);
  EXPECT_EQ(r.Total(0).usage_secs, 100u);
  EXPECT_EQ(r.unknown_assoc_rows(), 1u);
}

TEST_F(ReportTest, PlannedUseMeasuresUsageAgainstThePlannedCapacity) {
  Input in;
  in.assocs = Tree();
  in.planned_use = true;
  in.start = At("2026-03-02");
  in.end = At("2026-03-03");
  in.cluster = Days(in.start, 1);  // 100 CPUs x 86400 s
  in.usage = {{6, in.start, 86400 * 50}};
  Report r;
  std::string error;
  ASSERT_TRUE(r.Build(in, &error)) << error;
  // carol's plan is 0.25 of 100 CPUs for a day; she used 50 CPU-days.
  EXPECT_DOUBLE_EQ(r.Total(Index(r, "b", "carol")).plan_u, 2.0);
  EXPECT_DOUBLE_EQ(r.Total(0).plan_u, 0.5);  // the root: utilisation
}

TEST_F(ReportTest, EmptyPeriodAndMissingRootAreErrors) {
  Input in;
  in.assocs = Tree();
  in.start = in.end = At("2026-03-02");
  Report r;
  std::string error;
  EXPECT_FALSE(r.Build(in, &error));
  EXPECT_NE(error.find("empty"), std::string::npos);
  in.end = At("2026-03-03");
  in.assocs.erase(in.assocs.begin());
  EXPECT_FALSE(r.Build(in, &error));
  EXPECT_NE(error.find("root"), std::string::npos);
}

TEST_F(ReportTest, LocalTimeParsesUnixSecondsAndDates) {
  int64_t t = 0;
  EXPECT_TRUE(ParseLocalTime("1700000000", &t));
  EXPECT_EQ(t, 1700000000);
  EXPECT_TRUE(ParseLocalTime("2026-03-02T01:30", &t));
  EXPECT_EQ(FormatLocal(t), "2026-03-02T01:30:00+0000");
  EXPECT_FALSE(ParseLocalTime("yesterday", &t));
  EXPECT_EQ(FormatLocal(LocalWeekStart(t), true), "2026-03-02");  // a Monday
}

}  // namespace
}  // namespace fairway::report
