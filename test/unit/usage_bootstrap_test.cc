// SPDX-License-Identifier: GPL-2.0-or-later
// Rebuilding usage and the planned-use ledger from job history.
#include <gtest/gtest.h>

#include <cmath>

#include "decay.h"
#include "params.h"
#include "usage_bootstrap.h"

namespace fairway {
namespace {

AssocTree SmallTree() {
  AssocTree tree;
  std::string error;
  EXPECT_TRUE(tree.Build({{1, 0, "root", "", "", 1, 0},
                          {2, 1, "a", "", "", 1, 0},
                          {3, 2, "a", "u1", "", 1, 0},
                          {4, 1, "b", "", "", 1, 0},
                          {5, 4, "b", "u2", "", 1, 0}},
                         true, &error))
      << error;
  return tree;
}

TEST(UsageBootstrap, WithoutDecayUsageIsBillingTimesElapsed) {
  JobUsageRecord job{3, 1000, 1600, 4.0};
  EXPECT_EQ(DecayedJobUsage(job, 5000, 1.0), 2400.0L);
  // A running job counts up to now; a job ending after now stops at now.
  EXPECT_EQ(DecayedJobUsage({3, 1000, 0, 2.0}, 1500, 1.0), 1000.0L);
  EXPECT_EQ(DecayedJobUsage({3, 1000, 9000, 2.0}, 1500, 1.0), 1000.0L);
  // Never started, ended before it started, zero or non-finite billing: 0.
  EXPECT_EQ(DecayedJobUsage({3, 0, 0, 2.0}, 1500, 1.0), 0.0L);
  EXPECT_EQ(DecayedJobUsage({3, 2000, 1000, 2.0}, 5000, 1.0), 0.0L);
  EXPECT_EQ(DecayedJobUsage({3, 1000, 2000, 0.0}, 5000, 1.0), 0.0L);
  EXPECT_EQ(DecayedJobUsage({3, 1000, 2000, NAN}, 5000, 1.0), 0.0L);
}

TEST(UsageBootstrap, DecayedIntegralMatchesClosedForm) {
  const double f = DecayFactorPerSecond(3600);  // one-hour half-life
  // One billing unit for one hour that ended one hour ago:
  // integral_{-2h}^{-1h} f^(-t) dt = (f^3600 - f^7200) / -ln f.
  JobUsageRecord job{3, 0 + 1, 3600 + 1, 1.0};
  const int64_t now = 7200 + 1;
  long double expected = (std::pow(static_cast<long double>(f), 3600.0L) -
                          std::pow(static_cast<long double>(f), 7200.0L)) /
                         -std::log(static_cast<long double>(f));
  EXPECT_NEAR(static_cast<double>(DecayedJobUsage(job, now, f)), static_cast<double>(expected), 1e-6);
  // About half of the undecayed 3600 s weight at one half-life's distance,
  // a little more than a quarter of it: between 0.25 and 0.5 of 3600.
  double u = static_cast<double>(DecayedJobUsage(job, now, f));
  EXPECT_GT(u, 0.25 * 3600);
  EXPECT_LT(u, 0.5 * 3600);
}

TEST(UsageBootstrap, DecayedUsageIsCloseToPerSecondCharging) {
  // Charging second by second and decaying (what the decay thread does in
  // the limit of short passes) gives the integral up to a fraction of a
  // second's usage.
  const double f = DecayFactorPerSecond(600);
  const int64_t start = 100, end = 700, now = 1000;
  long double charged = 0;
  for (int64_t t = start; t < end; ++t) charged += 2.0L * std::pow(static_cast<long double>(f), now - t - 0.5L);
  long double rebuilt = DecayedJobUsage({3, start, end, 2.0}, now, f);
  EXPECT_NEAR(static_cast<double>(rebuilt), static_cast<double>(charged), 1e-3 * static_cast<double>(charged));
}

TEST(UsageBootstrap, UsageIsSummedIntoEveryAncestor) {
  AssocTree tree = SmallTree();
  std::map<uint32_t, long double> own =
      DecayedUsageByAssoc({{3, 0 + 10, 110, 1.0}, {5, 10, 60, 2.0}, {3, 200, 300, 1.0}}, 1000, 1.0);
  EXPECT_EQ(own[3], 200.0L);
  EXPECT_EQ(own[5], 100.0L);
  std::vector<long double> sums = SubtreeUsage(tree, own);
  EXPECT_EQ(sums[tree.Find(1)], 300.0L);  // root
  EXPECT_EQ(sums[tree.Find(2)], 200.0L);  // a
  EXPECT_EQ(sums[tree.Find(4)], 100.0L);  // b
  EXPECT_EQ(sums[tree.Find(3)], 200.0L);
}

TEST(UsageBootstrap, LedgerSplitsJobsAtIntervalBoundaries) {
  AssocTree tree = SmallTree();
  const int64_t interval = 100;
  const double D = 0.5;
  // u1 runs [150, 380) with 1 billing unit; now = 420 (interval 4 open).
  // Interval 1: 50, interval 2: 100, interval 3: 80; open (4): nothing.
  PlannedUseLedger ledger = LedgerFromJobs(tree, {{3, 150, 380, 1.0}}, 420, interval, D);
  EXPECT_EQ(ledger.interval_index, 4);
  const PlannedUseEntry& u1 = ledger.entries.at(3);
  // H = s(3) + D s(2) + D^2 s(1) = 80 + 50 + 12.5.
  EXPECT_NEAR(static_cast<double>(u1.history), 142.5, 1e-9);
  EXPECT_EQ(u1.open, 0.0L);
  // Ancestors carry the same amounts; the other branch nothing.
  EXPECT_NEAR(static_cast<double>(ledger.entries.at(2).history), 142.5, 1e-9);
  EXPECT_NEAR(static_cast<double>(ledger.entries.at(1).history), 142.5, 1e-9);
  EXPECT_EQ(ledger.entries.count(5), 0u);
}

TEST(UsageBootstrap, LedgerEqualsChargingAsYouGo) {
  // The same job charged interval by interval through the ledger's own
  // Roll/ChargePath gives the same H and c.
  AssocTree tree = SmallTree();
  const int64_t interval = 60;
  const double D = 0.8;
  const int64_t start = 30, end = 275, now = 290;
  PlannedUseLedger live;
  live.Roll(0, interval, D);
  for (int64_t t = start; t < end; ++t) {
    live.Roll(t, interval, D);
    live.ChargePath(tree, tree.Find(5), 3.0L);
  }
  live.Roll(now, interval, D);
  PlannedUseLedger rebuilt = LedgerFromJobs(tree, {{5, start, end, 3.0}}, now, interval, D);
  ASSERT_EQ(live.interval_index, rebuilt.interval_index);
  for (uint32_t id : {5u, 4u, 1u}) {
    EXPECT_NEAR(static_cast<double>(live.entries.at(id).history),
                static_cast<double>(rebuilt.entries.at(id).history), 1e-6) << id;
    EXPECT_NEAR(static_cast<double>(live.entries.at(id).open),
                static_cast<double>(rebuilt.entries.at(id).open), 1e-6) << id;
  }
}

TEST(UsageBootstrap, ParameterIsParsed) {
  Params p;
  EXPECT_EQ(p.usage_bootstrap, UsageBootstrap::kAuto);
  EXPECT_TRUE(ParsePriorityParameters("usage_bootstrap=force", &p).empty());
  EXPECT_EQ(p.usage_bootstrap, UsageBootstrap::kForce);
  EXPECT_TRUE(ParsePriorityParameters("usage_bootstrap=off", &p).empty());
  EXPECT_EQ(p.usage_bootstrap, UsageBootstrap::kOff);
  Diagnostics d = ParsePriorityParameters("usage_bootstrap=sometimes", &p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].Format().find("usage_bootstrap"), std::string::npos);
  EXPECT_NE(d[0].Format().find("sometimes"), std::string::npos);
  EXPECT_EQ(p.usage_bootstrap, UsageBootstrap::kOff);  // kept
}

}  // namespace
}  // namespace fairway
