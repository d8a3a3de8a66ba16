// SPDX-License-Identifier: GPL-2.0-or-later
// Planned use (fairshare-modes.md, "Planned use"): the ledger, the usage
// index, the factor along the path, and the ledger's state-file format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "planned_use.h"
#include "test_support.h"

namespace fairway {
namespace {

using test::FindAssoc;
using test::LoadTree;

constexpr int64_t kDay = 86400;
constexpr double kCapacity = 600;  // billing units per second

Params PlannedParams(int64_t half_life_s = 7 * kDay) {
  Params p;
  p.mode_override = FairshareMode::kPlannedUse;
  p.planned_use_interval_s = kDay;
  p.decay_half_life_s = half_life_s;
  p.planned_use_capacity = kCapacity;
  return p;
}

// root {A (1) {x, y, b (1 each)}, B (1) {w (1)}, z0 (0 shares, a user)}:
// machine shares A 1/2, x y b 1/6, B w 1/2, z0 0; R = share * 600.
enum Idx : int32_t { kRoot, kA, kX, kY, kB, kAcctB, kW, kZ0 };
AssocTree PlanTree() {
  AssocTree tree;
  std::string error;
  EXPECT_TRUE(tree.Build({{1, 0, "root", "", "", 1, 0},
                          {2, 1, "a", "", "", 1, 0},
                          {3, 2, "a", "x", "", 1, 0},
                          {4, 2, "a", "y", "", 1, 0},
                          {5, 2, "a", "b", "", 1, 0},
                          {6, 1, "bb", "", "", 1, 0},
                          {7, 6, "bb", "w", "", 1, 0},
                          {8, 1, "root", "z0", "", 0, 0}},
                         true, &error))
      << error;
  return tree;
}

FairshareResults Compute(const AssocTree& tree, const PlannedUseLedger& ledger,
                         const Params& params = PlannedParams()) {
  return ComputeFairshare(tree, params, &ledger, kCapacity);
}

double U(const FairshareResults& r, int32_t i) { return static_cast<double>(r.assocs[i].usage_efctv); }

TEST(PlannedUse, PerIntervalDecay) {
  EXPECT_EQ(PlannedUsePerIntervalDecay(86400, 86400), 0.5);
  EXPECT_EQ(PlannedUsePerIntervalDecay(2 * 86400, 86400), 0.25);
  EXPECT_EQ(PlannedUsePerIntervalDecay(86400, 0), 1.0);  // no decay
  EXPECT_EQ(PlannedUsePerIntervalDecay(0, 86400), 1.0);
  EXPECT_DOUBLE_EQ(PlannedUsePerIntervalDecay(3600, 7 * 86400), std::exp2(-1.0 / 168));
  // The simulator's D = 10^(-1/15) is the half-life 15 log10(2) days.
  EXPECT_NEAR(PlannedUsePerIntervalDecay(86400, std::llround(15 * std::log10(2.0) * 86400)),
              std::pow(10.0, -1.0 / 15), 1e-6);
}

TEST(PlannedUse, MachineShareIsSlurmsTraditionalNormalisation) {
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kPlannedUse}) {
    AssocTree tree = LoadTree("classic_doc_example.csv", mode);
    AssocTree classic = LoadTree("classic_doc_example.csv", FairshareMode::kClassic);
    for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
      EXPECT_EQ(MachineShare(tree, i), classic.links(i).shares_norm) << i;
    }
    EXPECT_DOUBLE_EQ(MachineShare(tree, FindAssoc(tree, "b", "user1")), 0.3);
    EXPECT_DOUBLE_EQ(MachineShare(tree, FindAssoc(tree, "c", "user2")), 0.05);
    EXPECT_DOUBLE_EQ(MachineShare(tree, FindAssoc(tree, "f", "user5")), 0.35);
    EXPECT_EQ(MachineShare(tree, FindAssoc(tree, "root", "root")), 1.0);  // "parent" of root
    EXPECT_EQ(MachineShare(tree, tree.root()), 1.0);
  }
  AssocTree tree = PlanTree();
  EXPECT_DOUBLE_EQ(MachineShare(tree, kX), 1.0 / 6);
  EXPECT_EQ(MachineShare(tree, kW), 0.5);
  EXPECT_EQ(MachineShare(tree, kZ0), 0.0);
  EXPECT_EQ(MachineShare(tree, -1), 0.0);
}

TEST(PlannedUse, ParentAssociationsUseTheirFsParentsShare) {
  AssocTree tree;
  std::string error;
  ASSERT_TRUE(tree.Build({{1, 0, "root", "", "", 1, 0},
                          {2, 1, "a", "", "", 3, 0},
                          {3, 2, "sub", "", "", kSharesUseParent, 0},
                          {4, 3, "sub", "s1", "", 1, 0},
                          {5, 2, "a", "pu", "", kSharesUseParent, 0},
                          {6, 2, "a", "u", "", 3, 0},
                          {7, 1, "b", "", "", 1, 0}},
                         true, &error))
      << error;
  EXPECT_EQ(MachineShare(tree, 1), 0.75);
  EXPECT_EQ(MachineShare(tree, 2), 0.75);  // sub
  EXPECT_EQ(MachineShare(tree, 4), 0.75);  // pu
  EXPECT_DOUBLE_EQ(MachineShare(tree, 3), 0.75 * 0.25);  // s1: 1 of a's level 4
  EXPECT_DOUBLE_EQ(MachineShare(tree, 5), 0.75 * 0.75);
}

// A user who charges exactly R * dt into every interval: after charging
// interval n (still open), c = R dt and H = R dt (1 + D + ... + D^(n-1)), so
// u = (1 - D)/(R dt) * (R dt + D R dt (1 - D^n)/(1 - D)) = 1 - D^(n+1) -> 1.
TEST(PlannedUse, SteadyUserAtPlannedRateConvergesToOne) {
  AssocTree tree = PlanTree();
  const Params params = PlannedParams();
  const double D = PlannedUsePerIntervalDecay(kDay, params.decay_half_life_s);
  const long double R = kCapacity / 6.0;
  PlannedUseLedger ledger;
  FairshareResults r;
  for (int n = 0; n < 400; ++n) {
    ledger.Roll(1700000000 + n * kDay, kDay, D);
    ledger.ChargePath(tree, kX, R * kDay);
    r = Compute(tree, ledger, params);
    const double expected = 1 - std::pow(static_cast<long double>(D), n + 1);
    ASSERT_NEAR(U(r, kX), expected, 1e-12) << n;
    ASSERT_NEAR(U(r, kA), expected / 3, 1e-12) << n;  // A's plan is 3 times x's
    ASSERT_EQ(r.assocs[kX].fs_factor, 1.0) << n;
    ASSERT_EQ(r.assocs[kX].job_factor, 1.0) << n;
  }
  EXPECT_NEAR(U(r, kX), 1.0, 1e-6);
  EXPECT_LE(U(r, kX), 1.0);
  EXPECT_DOUBLE_EQ(r.assocs[kX].planned_rate, 100.0);
  EXPECT_DOUBLE_EQ(r.assocs[kA].planned_rate, 300.0);
  EXPECT_EQ(r.assocs[kRoot].planned_rate, kCapacity);
  EXPECT_EQ(r.assocs[kX].level_fs, r.assocs[kX].usage_efctv);
  // x did all the usage: usage_norm comes from the tree's usage (none here).
  EXPECT_EQ(r.assocs[kX].usage_norm, 0.0L);
  EXPECT_EQ(r.assocs[kRoot].usage_norm, kNoValLd);
}

// x at half its rate, y at its rate, b at `burst` times its rate, w at its rate.
FairshareResults RunBurst(const AssocTree& tree, double burst) {
  const Params params = PlannedParams();
  const double D = PlannedUsePerIntervalDecay(kDay, params.decay_half_life_s);
  PlannedUseLedger ledger;
  for (int n = 0; n < 200; ++n) {
    ledger.Roll(n * kDay, kDay, D);
    ledger.ChargePath(tree, kX, 0.5 * 100 * kDay);
    ledger.ChargePath(tree, kY, 100.0 * kDay);
    ledger.ChargePath(tree, kB, burst * 100 * kDay);
    ledger.ChargePath(tree, kW, 300.0 * kDay);
  }
  return Compute(tree, ledger, params);
}

TEST(PlannedUse, BurstingUserNeverLowersUsersWithinTheirRate) {
  AssocTree tree = PlanTree();
  for (double burst : {1.0, 1.2, 1.4, 3.0, 10.0, 1000.0}) {
    SCOPED_TRACE(burst);
    FairshareResults r = RunBurst(tree, burst);
    // Siblings within their rate keep F = 1 whatever b does.
    EXPECT_EQ(r.assocs[kX].fs_factor, 1.0);
    EXPECT_EQ(r.assocs[kY].fs_factor, 1.0);
    // Users in other accounts are untouched.
    EXPECT_EQ(r.assocs[kW].fs_factor, 1.0);
    EXPECT_EQ(r.assocs[kW].job_factor, 1.0);
    EXPECT_EQ(r.assocs[kAcctB].job_factor, 1.0);
    if (burst > 1) {
      EXPECT_NEAR(r.assocs[kB].fs_factor, 1 / burst, 1e-6);
      EXPECT_LE(r.assocs[kB].job_factor, r.assocs[kB].fs_factor);
    }
    // While the account stays within its plan, its other users are free.
    if ((0.5 + 1 + burst) / 3 < 1) {
      EXPECT_EQ(r.assocs[kA].fs_factor, 1.0);
      EXPECT_EQ(r.assocs[kX].job_factor, 1.0);
      EXPECT_EQ(r.assocs[kY].job_factor, 1.0);
    }
  }
}

TEST(PlannedUse, AccountBeyondItsPlanHoldsBackAllItsUsers) {
  AssocTree tree = PlanTree();
  FairshareResults r = RunBurst(tree, 10.0);
  const double u_a = (0.5 + 1 + 10) / 3;
  EXPECT_NEAR(U(r, kA), u_a, 1e-6);
  EXPECT_NEAR(r.assocs[kA].fs_factor, 1 / u_a, 1e-6);
  for (int32_t i : {kX, kY}) {
    EXPECT_EQ(r.assocs[i].fs_factor, 1.0) << i;
    EXPECT_EQ(r.assocs[i].job_factor, r.assocs[kA].fs_factor) << i;
  }
  EXPECT_EQ(r.assocs[kB].job_factor, r.assocs[kB].fs_factor);  // its own F is lower
  EXPECT_LT(r.assocs[kB].fs_factor, r.assocs[kA].fs_factor);
  EXPECT_EQ(r.assocs[kW].job_factor, 1.0);
  // The root's index is the cluster's utilisation; it never holds anyone back.
  EXPECT_EQ(r.assocs[kRoot].job_factor, 1.0);
}

TEST(PlannedUse, ZeroRate) {
  AssocTree tree = PlanTree();
  PlannedUseLedger ledger;
  FairshareResults r = Compute(tree, ledger);
  EXPECT_EQ(U(r, kZ0), 0.0);  // no plan, no usage
  EXPECT_EQ(r.assocs[kZ0].fs_factor, 1.0);
  ledger.ChargePath(tree, kZ0, 1);
  r = Compute(tree, ledger);
  EXPECT_TRUE(std::isinf(r.assocs[kZ0].usage_efctv));
  EXPECT_EQ(r.assocs[kZ0].fs_factor, 0.0);
  EXPECT_EQ(r.assocs[kZ0].job_factor, 0.0);
  EXPECT_EQ(r.assocs[kZ0].planned_rate, 0.0);
  // No capacity: every rate is zero; only associations with usage drop to 0.
  FairshareResults none;
  ComputePlannedUse(tree, ledger, PlannedParams(), 0, &none);
  EXPECT_EQ(none.assocs[kX].job_factor, 1.0);
  EXPECT_EQ(none.assocs[kZ0].job_factor, 0.0);
  for (const AssocFairshare& a : none.assocs) EXPECT_FALSE(std::isnan(a.fs_factor));
}

TEST(PlannedUse, WithoutDecayTheIndexIsTheTotalOverOneIntervalsPlan) {
  AssocTree tree = PlanTree();
  PlannedUseLedger ledger;
  for (int n = 0; n < 3; ++n) {
    ledger.Roll(n * kDay, kDay, 1.0);
    ledger.ChargePath(tree, kX, 100.0 * kDay);
  }
  FairshareResults r = Compute(tree, ledger, PlannedParams(0));
  EXPECT_NEAR(U(r, kX), 3.0, 1e-12);
  EXPECT_NEAR(r.assocs[kX].fs_factor, 1.0 / 3, 1e-12);
}

TEST(PlannedUse, ComputeFairshareUsesAnEmptyLedger) {
  AssocTree tree = PlanTree();
  FairshareResults r = ComputeFairshare(tree, PlannedParams(), nullptr, 0);
  EXPECT_EQ(r.mode, FairshareMode::kPlannedUse);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    EXPECT_EQ(r.assocs[i].job_factor, 1.0) << i;
    EXPECT_EQ(r.assocs[i].usage_efctv, 0.0L) << i;
  }
  EXPECT_DOUBLE_EQ(r.assocs[kX].planned_rate, 100.0);
}

// ---- the ledger ---------------------------------------------------------------

PlannedUseLedger SampleLedger() {
  PlannedUseLedger l;
  l.interval_index = 19700;
  l.entries[3] = {1.0L / 3, 0};
  l.entries[7] = {1e30L + 0.5L, 2.5L};  // not representable as a double
  l.entries[4000000000u] = {0, 1e-300L};
  return l;
}

void ExpectSameLedger(const PlannedUseLedger& a, const PlannedUseLedger& b) {
  EXPECT_EQ(a.interval_index, b.interval_index);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (auto ia = a.entries.begin(), ib = b.entries.begin(); ia != a.entries.end(); ++ia, ++ib) {
    EXPECT_EQ(ia->first, ib->first);
    EXPECT_EQ(ia->second.history, ib->second.history) << ia->first;
    EXPECT_EQ(ia->second.open, ib->second.open) << ia->first;
  }
}

TEST(PlannedUseLedger, FirstRollOnlySetsTheIndex) {
  PlannedUseLedger l;
  l.Charge(1, 10);
  l.Roll(5 * kDay + 7, kDay, 0.5);
  EXPECT_EQ(l.interval_index, 5);
  EXPECT_EQ(l.entries[1].open, 10.0L);
  EXPECT_EQ(l.entries[1].history, 0.0L);
  l.Roll(6 * kDay, kDay, 0.5);
  EXPECT_EQ(l.entries[1].open, 0.0L);
  EXPECT_EQ(l.entries[1].history, 10.0L);
}

TEST(PlannedUseLedger, RollAcrossSeveralBoundariesEqualsOneByOne) {
  const double D = PlannedUsePerIntervalDecay(kDay, 7 * kDay);
  for (int jump : {1, 2, 3, 7, 100, 4097}) {
    SCOPED_TRACE(jump);
    PlannedUseLedger at_once = SampleLedger(), one_by_one = SampleLedger();
    at_once.Roll(19700 * kDay + jump * kDay + 1234, kDay, D);
    for (int k = 1; k <= jump; ++k) one_by_one.Roll(19700 * kDay + k * kDay + 1234, kDay, D);
    ExpectSameLedger(at_once, one_by_one);
    EXPECT_EQ(at_once.interval_index, 19700 + jump);
  }
  // Far beyond the exact range: powl, close to the closed form.
  PlannedUseLedger l = SampleLedger();
  l.Roll((19700 + 10001) * kDay, kDay, 0.9999);
  const long double expected = 2.5L + 0.9999L * (1e30L + 0.5L);
  EXPECT_NEAR(static_cast<double>(l.entries[7].history / (expected * powl(0.9999L, 10000))), 1.0,
              1e-12);
  EXPECT_EQ(l.entries[7].open, 0.0L);
}

TEST(PlannedUseLedger, ClockGoingBackwardsClosesNothing) {
  PlannedUseLedger l = SampleLedger();
  const PlannedUseLedger before = l;
  l.Roll(19700 * kDay - 3 * kDay, kDay, 0.5);
  ExpectSameLedger(l, before);
  l.Roll(19700 * kDay + kDay - 1, kDay, 0.5);  // still the open interval
  ExpectSameLedger(l, before);
  l.Roll(19700 * kDay, kDay, 0.5);
  ExpectSameLedger(l, before);
  l.Roll(19701 * kDay, kDay, 0.5);  // forward again: one boundary
  EXPECT_EQ(l.interval_index, 19701);
  EXPECT_EQ(l.entries[7].history, 2.5L + 0.5L * (1e30L + 0.5L));
}

TEST(PlannedUseLedger, ChargeAndChargePath) {
  AssocTree tree;
  std::string error;
  ASSERT_TRUE(tree.Build({{10, 0, "root", "", "", 1, 0},
                          {20, 10, "p", "", "", kSharesUseParent, 0},
                          {30, 20, "p", "q", "", 1, 0},
                          {40, 10, "o", "", "", 1, 0}},
                         true, &error))
      << error;
  PlannedUseLedger l;
  l.ChargePath(tree, 2, 5);
  l.ChargePath(tree, 2, 1.5L);
  l.ChargePath(tree, 3, 2);
  EXPECT_EQ(l.entries[30].open, 6.5L);
  EXPECT_EQ(l.entries[20].open, 6.5L);  // the "parent" account on the path
  EXPECT_EQ(l.entries[10].open, 8.5L);  // and the root
  EXPECT_EQ(l.entries[40].open, 2.0L);
  // Nothing that is not a positive finite amount is charged.
  for (long double bad : {0.0L, -1.0L, std::numeric_limits<long double>::infinity(),
                          std::numeric_limits<long double>::quiet_NaN()}) {
    l.Charge(30, bad);
    l.ChargePath(tree, 2, bad);
  }
  EXPECT_EQ(l.entries[30].open, 6.5L);
  EXPECT_EQ(l.entries.size(), 4u);
  l.ChargePath(tree, -1, 3);  // out of range: ignored
  l.ChargePath(tree, 99, 3);
  EXPECT_EQ(l.entries[10].open, 8.5L);
}

// ---- the state file ----------------------------------------------------------

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Seal(const std::string& body) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a64(body)));
  return body + "checksum " + hex + "\n";
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(PlannedUseLedgerFile, RoundTrip) {
  const PlannedUseLedger ledger = SampleLedger();
  const std::string bytes = SerializeLedger(ledger);
  EXPECT_EQ(bytes.compare(0, 7, "FWPU 1\n"), 0);
  PlannedUseLedger parsed;
  std::string error;
  ASSERT_TRUE(ParseLedger(bytes, &parsed, &error)) << error;
  ExpectSameLedger(parsed, ledger);
  EXPECT_EQ(SerializeLedger(parsed), bytes);

  PlannedUseLedger empty;
  ASSERT_TRUE(ParseLedger(SerializeLedger(empty), &parsed, &error)) << error;
  EXPECT_EQ(parsed.interval_index, -1);
  EXPECT_TRUE(parsed.entries.empty());
}

TEST(PlannedUseLedgerFile, FormatIsAsDocumented) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);  // FNV-1a 64 reference values
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  PlannedUseLedger l;
  l.interval_index = 42;
  l.entries[5] = {1.0L, 0.5L};
  const std::string expected = Seal(
      "FWPU 1\ninterval 42\nentries 1\n"
      "5 3ff0000000000000 0000000000000000 3fe0000000000000 0000000000000000\n");
  EXPECT_EQ(SerializeLedger(l), expected);
  // 1/3 as long double keeps its extra bits in the low double.
  l.entries[5].history = 1.0L / 3;
  PlannedUseLedger back;
  std::string error;
  ASSERT_TRUE(ParseLedger(SerializeLedger(l), &back, &error)) << error;
  EXPECT_EQ(back.entries[5].history, 1.0L / 3);
}

TEST(PlannedUseLedgerFile, EveryTruncationIsRejected) {
  const std::string bytes = SerializeLedger(SampleLedger());
  for (size_t len = 0; len < bytes.size(); ++len) {
    PlannedUseLedger l;
    l.interval_index = 777;
    std::string error;
    ASSERT_FALSE(ParseLedger(bytes.substr(0, len), &l, &error)) << len;
    EXPECT_TRUE(Contains(error, "truncated")) << len << ": " << error;
    EXPECT_EQ(l.interval_index, 777) << len;  // untouched on failure
    EXPECT_TRUE(l.entries.empty());
  }
}

TEST(PlannedUseLedgerFile, EveryBitFlipIsRejected) {
  const std::string bytes = SerializeLedger(SampleLedger());
  size_t rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      PlannedUseLedger l;
      std::string error;
      ASSERT_FALSE(ParseLedger(flipped, &l, &error)) << "byte " << i << " bit " << bit;
      EXPECT_FALSE(error.empty());
      ++rejected;
    }
  }
  EXPECT_EQ(rejected, bytes.size() * 8);
}

TEST(PlannedUseLedgerFile, RejectionReasons) {
  const std::string good = SerializeLedger(SampleLedger());
  auto reason = [](const std::string& bytes) {
    PlannedUseLedger l;
    std::string error;
    EXPECT_FALSE(ParseLedger(bytes, &l, &error));
    return error;
  };
  std::string s = good;
  s[0] = 'X';
  EXPECT_TRUE(Contains(reason(s), "bad magic")) << reason(s);
  EXPECT_TRUE(Contains(reason("hello world\n"), "bad magic"));
  s = good;
  s[5] = '2';
  EXPECT_TRUE(Contains(reason(s), "unsupported version '2'")) << reason(s);
  EXPECT_TRUE(Contains(reason(Seal("FWPU 10\ninterval 1\nentries 0\n")), "version"));
  EXPECT_TRUE(Contains(reason(good + "x"), "trailing")) << reason(good + "x");
  EXPECT_TRUE(Contains(reason(good + "\n"), "trailing"));
  s = good;
  s[good.find("interval ") + 9] ^= 1;  // '1' -> '0': still well-formed
  EXPECT_TRUE(Contains(reason(s), "checksum mismatch")) << reason(s);

  // Values the ledger must never hold, written by a buggy writer.
  for (long double bad : {std::numeric_limits<long double>::infinity(),
                          std::numeric_limits<long double>::quiet_NaN()}) {
    PlannedUseLedger l;
    l.entries[9].open = bad;
    EXPECT_TRUE(Contains(reason(SerializeLedger(l)), "not finite")) << reason(SerializeLedger(l));
  }
  PlannedUseLedger neg;
  neg.entries[9].history = -1;
  EXPECT_TRUE(Contains(reason(SerializeLedger(neg)), "negative"));
  const std::string zero = "0000000000000000";
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 1\n1 8000000000000000 " + zero +
                                   " " + zero + " " + zero + "\n")),
                       "negative"));  // -0.0

  // Structure, with a valid checksum.
  const std::string entry_tail = " " + zero + " " + zero + " " + zero + " " + zero + "\n";
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 2\n1" + entry_tail)),
                       "entry count"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 2\n2" + entry_tail + "1" +
                                   entry_tail)),
                       "ascending"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 2\n2" + entry_tail + "2" +
                                   entry_tail)),
                       "ascending"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 01\nentries 0\n")), "interval"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval -2\nentries 0\n")), "interval"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\nentries 0\n")), "interval"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 0\n1 3FF0000000000000 " + zero +
                                   " " + zero + " " + zero + "\n")),
                       "hex"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 1\n1  " + zero + " " + zero +
                                   " " + zero + " " + zero + "\n")),
                       "malformed entry"));
  EXPECT_TRUE(Contains(reason(Seal("FWPU 1\ninterval 1\nentries 1\n4294967296" + entry_tail)),
                       "malformed entry"));
  // A well-formed handmade file is accepted.
  PlannedUseLedger l;
  std::string error;
  EXPECT_TRUE(ParseLedger(Seal("FWPU 1\ninterval 1\nentries 1\n4294967295" + entry_tail), &l,
                          &error))
      << error;
  EXPECT_EQ(l.entries.count(4294967295u), 1u);
}

}  // namespace

// A ledger restored from its file holds the charges up to its save: a slice
// that starts earlier (usage charged from an older assoc_usage) counts only
// after it.
TEST(PlannedUse, ChargeAfterTheLedgersSave) {
  EXPECT_EQ(PlannedUseChargeAfter(60.0L, 100, 160, 0), 60.0L);    // nothing restored
  EXPECT_EQ(PlannedUseChargeAfter(60.0L, 100, 160, 100), 60.0L);  // saved at the slice start
  EXPECT_EQ(PlannedUseChargeAfter(60.0L, 100, 160, 130), 30.0L);  // half already held
  EXPECT_EQ(PlannedUseChargeAfter(60.0L, 100, 160, 160), 0.0L);   // all of it held
  EXPECT_EQ(PlannedUseChargeAfter(60.0L, 100, 160, 200), 0.0L);
}

}  // namespace fairway
