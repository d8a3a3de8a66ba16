// SPDX-License-Identifier: GPL-2.0-or-later
// The C interface's configuration, decay, reset, recovery, ledger, charge
// and bootstrap functions against the core functions they stand for, and
// the plugin's log messages word for word.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "api_test_support.h"
#include "decay.h"
#include "params.h"
#include "planned_use.h"
#include "state_recovery.h"
#include "tres_counts.h"
#include "usage_bootstrap.h"
#include "usage_charge.h"

namespace fairway::test {
namespace {

constexpr int64_t kNow = 1700000000;

std::string Take(char* text) {
  std::string s = text ? text : "";
  std::free(text);
  return s;
}

// ---- configuration -------------------------------------------------------

TEST(ApiConfig, SettingsFollowTheInput) {
  Logged().clear();
  fw_config_input_t in = DefaultInput();
  const double weights[] = {0, 2.5, 0, 0, 7};
  in.weight_tres = weights;
  in.tres_cnt = 5;
  in.weight_tres_text = "mem=2.5,billing=7";
  in.priority_parameters = "fairshare=planned_use,planned_use_capacity=100";
  in.reset_period = 3;  // WEEKLY
  ConfigHolder c(in, true);
  const fw_settings_t& s = c.settings();
  EXPECT_EQ(s.mode, FW_MODE_PLANNED_USE);
  EXPECT_TRUE(s.fair_tree_shares);
  EXPECT_TRUE(s.calc_fairshare);
  EXPECT_EQ(s.weight_fairshare, 10000u);
  EXPECT_EQ(s.flags, in.flags);
  EXPECT_EQ(s.reset_period, 3);
  EXPECT_EQ(s.decay_half_life_s, 604800);
  EXPECT_EQ(s.calc_period_s, 300);
  EXPECT_DOUBLE_EQ(s.decay_per_second, DecayFactorPerSecond(604800));
  ASSERT_EQ(s.tres_cnt, 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.tres_weights[i], weights[i]);
  EXPECT_EQ(s.usage_bootstrap, FW_BOOTSTRAP_AUTO);
  ASSERT_EQ(LinesAt(FW_LOG_INFO).size(), 1u);
  EXPECT_EQ(LinesAt(FW_LOG_INFO)[0],
            "fairshare mode planned_use; weights age=1000 assoc=10 fairshare=10000 jobsize=100 "
            "partition=1000 qos=500 tres=mem=2.5,billing=7; half-life 604800s; calc period 300s; "
            "changes looked for every 2s");
  EXPECT_TRUE(LinesAt(FW_LOG_ERROR).empty());
}

TEST(ApiConfig, ClassicFlagsGiveClassicSettings) {
  fw_config_input_t in = DefaultInput();
  in.flags = 0;
  ConfigHolder classic(in);
  EXPECT_EQ(classic.settings().mode, FW_MODE_CLASSIC);
  EXPECT_FALSE(classic.settings().fair_tree_shares);
  in.flags = 1u << 3;  // DEPTH_OBLIVIOUS
  ConfigHolder oblivious(in);
  EXPECT_EQ(oblivious.settings().mode, FW_MODE_DEPTH_OBLIVIOUS);
  in.priority_parameters = "fairshare=ranged,usage_bootstrap=off";
  ConfigHolder ranged(in);
  EXPECT_EQ(ranged.settings().mode, FW_MODE_RANGED);
  EXPECT_TRUE(ranged.settings().fair_tree_shares);
  EXPECT_EQ(ranged.settings().usage_bootstrap, FW_BOOTSTRAP_OFF);
}

TEST(ApiConfig, ProblemsAreLoggedAsThePluginLoggedThem) {
  Logged().clear();
  fw_config_input_t in = DefaultInput();
  in.damp_factor = 0;
  in.weight_tres_text = "cpu=x";
  in.tres_cnt = 4;  // slurm_get_tres_weight_array refused it: weight_tres NULL
  in.priority_parameters = "fairshare=bogus";
  in.with_slurmdbd = false;
  in.weight_qos = 0xffffffffu;
  ConfigHolder c(in);
  Params expected_params;
  const Diagnostics diagnostics = ParsePriorityParameters("fairshare=bogus", &expected_params);
  ASSERT_EQ(diagnostics.size(), 1u);
  const std::vector<std::string> errors = LinesAt(FW_LOG_ERROR);
  const std::vector<std::string> expected = {
      "PriorityWeightTRES: cannot use 'cpu=x' (TRES factors disabled)",
      "FairShareDampeningFactor: 0 would divide by zero (using 1)",
      diagnostics[0].Format(),
      "PriorityWeightAge can only be used with SlurmDBD, ignoring",
      "PriorityWeightFairshare can only be used with SlurmDBD, ignoring",
      // QOS 2^32 - 1 + job size 100 + partition 1000 + assoc 10; age and
      // fairshare are 0 already (no slurmdbd).
      "the sum of the PriorityWeight* values (4294968405) exceeds 2^32 - 1: priorities above "
      "4294967295 are clamped",
  };
  EXPECT_EQ(errors, expected);
  EXPECT_TRUE(LinesAt(FW_LOG_INFO).empty());  // no summary asked for
  const fw_settings_t& s = c.settings();
  EXPECT_FALSE(s.calc_fairshare);
  EXPECT_EQ(s.weight_fairshare, 0u);
  EXPECT_EQ(s.tres_cnt, 0u);
  EXPECT_EQ(s.tres_weights, nullptr);
  EXPECT_EQ(s.mode, FW_MODE_FAIR_TREE);  // the bad key keeps the flags' mode
}

TEST(ApiConfig, ReferencesKeepTheConfigurationAlive) {
  fw_config_input_t in = DefaultInput();
  fw_config_t* config = fw_config_create(&in, CaptureLog, false);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(fw_config_ref(config), config);
  fw_config_unref(config);
  EXPECT_EQ(fw_settings(config)->weight_fairshare, 10000u);  // still held once
  fw_config_unref(config);  // freed (the leak checker of make check-asan sees it)
  fw_config_t* none = fw_config_create(nullptr, nullptr, false);
  ASSERT_NE(none, nullptr);  // never NULL
  fw_config_unref(none);
}

TEST(ApiConfig, PrioLinesOnlyWithDebugFlagPriority) {
  fw_config_input_t in = DefaultInput();
  fw_charge_input_t job{};
  job.job_id = 7;
  job.start_period = kNow - 100;
  job.end_period = kNow;
  job.start_time = kNow - 1000;
  job.time_limit_min = 60;
  job.end_time_exp = kNow + 10000;
  job.billable_tres = 2;
  fw_charge_t out{};
  {
    Logged().clear();
    ConfigHolder quiet(in);
    fw_charge_job(quiet.get(), &job, nullptr, &out);
    EXPECT_TRUE(Logged().empty());
  }
  in.prio_debug = true;
  Logged().clear();
  ConfigHolder loud(in);
  fw_charge_job(loud.get(), &job, nullptr, &out);
  ASSERT_EQ(LinesAt(FW_LOG_PRIO).size(), 1u);
  char expected[200];
  std::snprintf(expected, sizeof expected, "job 7 charged 100 s x 2.00 billing = %.2f (decayed)",
                out.real_decay);
  EXPECT_EQ(LinesAt(FW_LOG_PRIO)[0], expected);
}

// ---- decay and reset ----------------------------------------------------

TEST(ApiDecay, DecayOverIsTheCoresDecay) {
  fw_config_input_t in = DefaultInput();
  in.decay_half_life_s = 3600;
  ConfigHolder c(in);
  EXPECT_DOUBLE_EQ(fw_decay_over(c.get(), 1234), DecayOver(DecayFactorPerSecond(3600), 1234));
  EXPECT_LT(fw_decay_over(c.get(), 3600), 0.51);
  EXPECT_EQ(fw_decay_over(c.get(), 0), 1.0);
  EXPECT_EQ(fw_decay_over(c.get(), -5), 1.0);
  in.decay_half_life_s = 0;
  ConfigHolder none(in);
  EXPECT_EQ(fw_decay_over(none.get(), 100000), 1.0);
}

TEST(ApiDecay, ResetNowAppliesOnceThenNone) {
  fw_reset_state_t state{static_cast<uint16_t>(ResetPeriod::kNow), 0, 0};
  EXPECT_TRUE(fw_reset_due(&state, kNow));
  EXPECT_EQ(state.period, static_cast<uint16_t>(ResetPeriod::kNone));
  EXPECT_EQ(state.last_reset, kNow);
  EXPECT_FALSE(fw_reset_due(&state, kNow + 1000));
}

TEST(ApiDecay, DailyResetAtItsBoundary) {
  const int64_t last = LastResetBoundary(ResetPeriod::kDaily, kNow);
  fw_reset_state_t state{static_cast<uint16_t>(ResetPeriod::kDaily), last, 0};
  const int64_t next = NextResetTime(ResetPeriod::kDaily, last, kNow);
  ASSERT_GT(next, kNow);
  EXPECT_FALSE(fw_reset_due(&state, kNow));
  EXPECT_EQ(state.next_reset, next);
  EXPECT_EQ(state.last_reset, last);
  EXPECT_TRUE(fw_reset_due(&state, next + 5));
  EXPECT_EQ(state.last_reset, next);
  EXPECT_EQ(state.next_reset, NextResetTime(ResetPeriod::kDaily, next, next + 5));
  EXPECT_FALSE(fw_reset_due(&state, next + 10));
  fw_reset_state_t none{0, 0, 0};
  EXPECT_FALSE(fw_reset_due(&none, kNow));
  EXPECT_EQ(fw_last_reset_boundary(static_cast<uint16_t>(ResetPeriod::kMonthly), kNow),
            LastResetBoundary(ResetPeriod::kMonthly, kNow));
  EXPECT_EQ(fw_last_reset_boundary(0, kNow), 0);
}

// ---- recovery -----------------------------------------------------------

fw_file_t FileOf(const std::string& bytes) {
  return fw_file_t{FW_FILE_OK, bytes.data(), bytes.size(), nullptr};
}

// The usage file: a header (version, saved_at) and no record.
std::string UsageHeader(uint16_t version, int64_t saved_at) {
  std::string b;
  b.push_back(static_cast<char>(version >> 8));
  b.push_back(static_cast<char>(version & 0xff));
  for (int i = 7; i >= 0; --i) b.push_back(static_cast<char>((saved_at >> (8 * i)) & 0xff));
  return b;
}

void ExpectSameDecision(const RecoveryDecision& expected, const fw_recovery_t& got) {
  EXPECT_EQ(got.charge_from, expected.charge_from);
  EXPECT_EQ(got.last_reset, expected.last_reset);
  EXPECT_EQ(got.rebuild_usage, expected.rebuild_usage);
  EXPECT_EQ(got.error, expected.error);
  EXPECT_EQ(got.message ? std::string(got.message) : std::string(), expected.message);
}

TEST(ApiRecovery, DecisionIsDecideRecoverys) {
  const std::string clock = SerializeDecayClock(kNow - 100, kNow - 5000);
  const std::string old_clock = SerializeDecayClock(kNow - 400, kNow - 5000);
  const std::string usage = UsageHeader(9728, kNow - 150);
  const fw_file_t c = FileOf(clock), o = FileOf(old_clock), u = FileOf(usage);
  const fw_file_t missing{FW_FILE_MISSING, nullptr, 0, nullptr};
  struct Case {
    const fw_file_t* clock;
    const fw_file_t* usage;
  } cases[] = {{&c, &u}, {&c, &missing}, {&missing, &u}, {&missing, &missing}};
  for (const Case& k : cases) {
    fw_recovery_t got{};
    fw_decide_recovery(k.clock, &o, k.usage, 9216, 9728, kNow, 300, 0, &got);
    RecoveryInput in;
    if (k.clock->state == FW_FILE_OK) in.clock = ParseDecayClock(clock);
    in.clock_old = ParseDecayClock(old_clock);
    if (k.usage->state == FW_FILE_OK) in.usage = ParseAssocUsage(usage, 9216, 9728);
    in.now = kNow;
    in.calc_period_s = 300;
    ExpectSameDecision(DecideRecovery(in), got);
    EXPECT_FALSE(got.clock_damaged);
    std::free(got.message);
  }
}

TEST(ApiRecovery, DamagedOrImplausibleClockIsSetAside) {
  const std::string usage = UsageHeader(9728, kNow - 150);
  const fw_file_t u = FileOf(usage);
  const fw_file_t damaged{FW_FILE_DAMAGED, nullptr, 0, "file is 3 bytes, expected 16"};
  fw_recovery_t got{};
  fw_decide_recovery(&damaged, nullptr, &u, 9216, 9728, kNow, 300, 2, &got);
  EXPECT_TRUE(got.clock_damaged);
  EXPECT_TRUE(got.error);
  ASSERT_NE(got.message, nullptr);
  EXPECT_NE(std::string(got.message).find("file is 3 bytes, expected 16"), std::string::npos);
  RecoveryInput in;
  in.clock.state = FileState::kDamaged;
  in.clock.why = "file is 3 bytes, expected 16";
  in.usage = ParseAssocUsage(usage, 9216, 9728);
  in.now = kNow;
  in.configured_last_reset = LastResetBoundary(ResetPeriod::kDaily, kNow);
  ExpectSameDecision(DecideRecovery(in), got);
  std::free(got.message);

  const std::string ancient = SerializeDecayClock(5, 0);  // 1970: damage
  const fw_file_t a = FileOf(ancient);
  fw_decide_recovery(&a, nullptr, &u, 9216, 9728, kNow, 300, 0, &got);
  EXPECT_TRUE(got.clock_damaged);
  std::free(got.message);
}

TEST(ApiRecovery, SerializedClockIsMultifactorsFormat) {
  unsigned char bytes[FW_DECAY_CLOCK_BYTES];
  fw_serialize_decay_clock(kNow, kNow - 86400, bytes);
  const std::string expected = SerializeDecayClock(kNow, kNow - 86400);
  ASSERT_EQ(expected.size(), static_cast<size_t>(FW_DECAY_CLOCK_BYTES));
  EXPECT_EQ(std::memcmp(bytes, expected.data(), FW_DECAY_CLOCK_BYTES), 0);
  const DecayClock back = ParseDecayClock(std::string(reinterpret_cast<char*>(bytes), 16));
  EXPECT_EQ(back.last_ran, kNow);
  EXPECT_EQ(back.last_reset, kNow - 86400);
}

// ---- ledger and charges ---------------------------------------------------

PlannedUseLedger Contents(const fw_ledger_t* ledger) {
  size_t length = 0;
  char* bytes = fw_ledger_serialize(ledger, &length);
  PlannedUseLedger out;
  std::string why;
  EXPECT_TRUE(ParseLedger(std::string(bytes, length), &out, &why)) << why;
  std::free(bytes);
  return out;
}

fw_charge_input_t RunningJob(const uint32_t* path, uint32_t path_length) {
  fw_charge_input_t job{};
  job.job_id = 42;
  job.start_time = kNow - 3600;
  job.start_period = kNow - 600;
  job.end_period = kNow;
  job.end_time_exp = kNow + 3600;
  job.time_limit_min = 120;
  job.billable_tres = 4;
  job.has_qos = true;
  job.qos_usage_factor = 0.5;
  job.assoc_path = path;
  job.assoc_path_length = path_length;
  return job;
}

TEST(ApiLedger, AccrueChargesThePathAndRoundTrips) {
  fw_config_input_t in = DefaultInput();
  in.priority_parameters = "fairshare=planned_use";
  ConfigHolder c(in);
  fw_ledger_t* ledger = fw_ledger_create();
  fw_ledger_roll(ledger, c.get(), kNow - 86400 * 3);
  const uint32_t path[] = {30, 20, 1};
  const fw_charge_input_t job = RunningJob(path, 3);
  fw_charge_t charge{};
  fw_charge_job(c.get(), &job, ledger, &charge);
  EXPECT_EQ(fw_ledger_entries(ledger), 3u);
  const PlannedUseLedger held = Contents(ledger);
  for (uint32_t id : path) {
    ASSERT_EQ(held.entries.count(id), 1u) << id;
    // The slice's undiscounted billing-seconds: 600 s x 4 x 0.5.
    EXPECT_EQ(held.entries.at(id).open, static_cast<long double>(charge.real_nodecay));
  }
  EXPECT_DOUBLE_EQ(charge.real_nodecay, 600.0 * 4 * 0.5);
  // Round trip: the same bytes again.
  size_t length = 0;
  char* bytes = fw_ledger_serialize(ledger, &length);
  fw_ledger_t* copy = fw_ledger_create();
  char* why = nullptr;
  ASSERT_TRUE(fw_ledger_parse(copy, bytes, length, 0, &why));
  EXPECT_EQ(why, nullptr);
  size_t copy_length = 0;
  char* copy_bytes = fw_ledger_serialize(copy, &copy_length);
  EXPECT_EQ(std::string(bytes, length), std::string(copy_bytes, copy_length));
  // Garbage is refused with a reason and leaves the ledger as it was.
  EXPECT_FALSE(fw_ledger_parse(copy, "FWPU 9\n", 7, 0, &why));
  EXPECT_FALSE(Take(why).empty());
  EXPECT_EQ(fw_ledger_entries(copy), 3u);
  // Rolling closes the interval: as the core's Roll.
  PlannedUseLedger expected = Contents(ledger);
  const Params& p = [] {
    static Params params;
    params.mode_override = FairshareMode::kPlannedUse;
    return params;
  }();
  expected.Roll(kNow, p.planned_use_interval_s,
                PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
  fw_ledger_roll(ledger, c.get(), kNow);
  EXPECT_EQ(SerializeLedger(Contents(ledger)), SerializeLedger(expected));
  std::free(bytes);
  std::free(copy_bytes);
  fw_ledger_destroy(copy);
  fw_ledger_destroy(ledger);
}

TEST(ApiLedger, RestoredLedgerIsNotChargedTwice) {
  fw_config_input_t in = DefaultInput();
  in.priority_parameters = "fairshare=planned_use";
  ConfigHolder c(in);
  const uint32_t path[] = {30, 1};
  const fw_charge_input_t job = RunningJob(path, 2);
  // The file was written 200 s into the slice: only the last 400 s count.
  fw_ledger_t* ledger = fw_ledger_create();
  const std::string empty = SerializeLedger(PlannedUseLedger());
  char* why = nullptr;
  ASSERT_TRUE(fw_ledger_parse(ledger, empty.data(), empty.size(), kNow - 400, &why));
  fw_charge_t charge{};
  fw_charge_job(c.get(), &job, ledger, &charge);
  const long double expected =
      PlannedUseChargeAfter(charge.real_nodecay, kNow - 600, kNow, kNow - 400);
  EXPECT_EQ(Contents(ledger).entries.at(30).open, expected);
  EXPECT_NEAR(static_cast<double>(expected), charge.real_nodecay * 400 / 600, 1e-9);
  fw_ledger_destroy(ledger);
}

TEST(ApiLedger, StartModeChargesTheTimeLimitOnce) {
  fw_config_input_t in = DefaultInput();
  in.priority_parameters = "fairshare=planned_use,planned_use_charge=start";
  ConfigHolder c(in);
  fw_ledger_t* ledger = fw_ledger_create();
  const uint32_t path[] = {30, 1};
  fw_charge_input_t job = RunningJob(path, 2);
  job.start_period = 0;  // its first slice: charged from its start
  fw_charge_t charge{};
  fw_charge_job(c.get(), &job, ledger, &charge);
  const long double limit_charge = 4.0L * 120 * 60.0L * 0.5;
  EXPECT_EQ(Contents(ledger).entries.at(30).open, limit_charge);
  job.start_period = kNow;  // a later slice: nothing more
  job.end_period = kNow + 300;
  fw_charge_job(c.get(), &job, ledger, &charge);
  EXPECT_EQ(Contents(ledger).entries.at(1).open, limit_charge);
  fw_charge_input_t unlimited = RunningJob(path, 2);
  unlimited.start_period = 0;
  unlimited.time_limit_min = 0xffffffffu;  // INFINITE: nothing to plan
  fw_charge_job(c.get(), &unlimited, ledger, &charge);
  EXPECT_EQ(Contents(ledger).entries.at(1).open, limit_charge);
  fw_ledger_destroy(ledger);
}

TEST(ApiLedger, OtherModesLeaveTheLedgerAlone) {
  ConfigHolder c(DefaultInput());
  fw_ledger_t* ledger = fw_ledger_create();
  const uint32_t path[] = {30, 1};
  const fw_charge_input_t job = RunningJob(path, 2);
  fw_charge_t charge{};
  fw_charge_job(c.get(), &job, ledger, &charge);
  EXPECT_EQ(fw_ledger_entries(ledger), 0u);
  EXPECT_GT(charge.real_decay, 0);
  fw_ledger_destroy(ledger);
}

TEST(ApiCharge, ChargeIsComputeJobCharge) {
  ConfigHolder c(DefaultInput());
  const uint64_t alloc[] = {8, 16384, 0, kNoConsumeVal64, 2};
  for (bool finished : {false, true}) {
    fw_charge_input_t job = RunningJob(nullptr, 0);
    job.tres_alloc = alloc;
    job.tres_cnt = 5;
    job.finished_or_completing = finished;
    job.adjust_for_end = finished;
    job.end_time = finished ? kNow - 60 : 0;
    uint64_t release[5];
    long double decay[5], nodecay[5];
    fw_charge_t out{};
    out.tres_run_release = release;
    out.tres_usage_decay = decay;
    out.tres_usage_nodecay = nodecay;
    fw_charge_job(c.get(), &job, nullptr, &out);
    JobChargeInput in;
    in.start_period = job.start_period;
    in.end_period = job.end_period;
    in.adjust_for_end = job.adjust_for_end;
    in.start_time = job.start_time;
    in.end_time = job.end_time;
    in.end_time_exp = job.end_time_exp;
    in.time_limit_min = job.time_limit_min;
    in.finished_or_completing = finished;
    in.billable_tres = job.billable_tres;
    in.has_qos = true;
    in.qos_usage_factor = 0.5;
    in.tres_alloc.assign(alloc, alloc + 5);
    const JobCharge expected =
        ComputeJobCharge(in, DecayFactorPerSecond(604800), kNoConsumeVal64);
    EXPECT_EQ(out.run_delta_s, expected.run_delta_s);
    EXPECT_EQ(out.run_decay_s, expected.run_decay_s);
    EXPECT_EQ(out.run_nodecay_s, expected.run_nodecay_s);
    EXPECT_EQ(out.real_decay, expected.real_decay);
    EXPECT_EQ(out.real_nodecay, expected.real_nodecay);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(release[i], expected.tres_run_delta[i]) << i;
      EXPECT_EQ(decay[i], expected.tres_run_decay[i]) << i;
      EXPECT_EQ(nodecay[i], expected.tres_run_nodecay[i]) << i;
    }
    EXPECT_EQ(release[3], 0u);  // NO_CONSUME
    EXPECT_GT(release[0], 0u);
  }
}

// A pass that a change triggers early (issue 47) charges from the last
// pass to its own clock, not a whole PriorityCalcPeriod: split anywhere, the
// slices charge exactly the elapsed seconds once, undiscounted usage adds up
// exactly, and the decay of the parts composes to the decay of the whole.
TEST(ApiCharge, AnEarlyPassChargesTheElapsedTimeExactly) {
  fw_config_input_t in = DefaultInput();
  in.decay_half_life_s = 3600;
  ConfigHolder c(in);
  const int64_t last = kNow - 300;  // the previous pass
  auto charge = [&](int64_t from, int64_t to) {
    fw_charge_input_t job = RunningJob(nullptr, 0);
    job.start_period = from;
    job.end_period = to;
    fw_charge_t out{};
    fw_charge_job(c.get(), &job, nullptr, &out);
    return out;
  };
  const fw_charge_t whole = charge(last, kNow);
  EXPECT_EQ(whole.run_delta_s, 300);
  for (int64_t early : {1, 2, 7, 150, 299}) {
    const fw_charge_t a = charge(last, last + early);
    const fw_charge_t b = charge(last + early, kNow);
    EXPECT_EQ(a.run_delta_s, early);
    EXPECT_EQ(a.run_delta_s + b.run_delta_s, whole.run_delta_s) << early;
    EXPECT_EQ(a.run_nodecay_s + b.run_nodecay_s, whole.run_nodecay_s) << early;
    EXPECT_DOUBLE_EQ(a.real_nodecay + b.real_nodecay, whole.real_nodecay) << early;
    EXPECT_NEAR(fw_decay_over(c.get(), early) * fw_decay_over(c.get(), 300 - early),
                fw_decay_over(c.get(), 300), 1e-15)
        << early;
  }
  // The same second twice charges nothing (the thread waits for the clock).
  EXPECT_EQ(charge(kNow, kNow).run_delta_s, 0);
}

void NoteUnderflow(void* arg, uint32_t index, uint64_t release, uint64_t remaining) {
  static_cast<std::vector<std::vector<uint64_t>>*>(arg)->push_back({index, release, remaining});
}

TEST(ApiCharge, TresRunReleaseFloorsAtZeroAndSkipsEnergy) {
  long double usage[4] = {1, 2, 3, 4};
  uint64_t run_secs[4] = {10, 5, 100, 7};
  const long double add[4] = {0.5, 0.5, 0.5, 0.5};
  const uint64_t release[4] = {3, 8, 50, 2};
  std::vector<std::vector<uint64_t>> underflows;
  fw_apply_tres_run(usage, run_secs, add, release, 4, 2, NoteUnderflow, &underflows);
  EXPECT_EQ(run_secs[0], 7u);
  EXPECT_EQ(run_secs[1], 0u);    // 8 > 5: floored
  EXPECT_EQ(run_secs[2], 100u);  // the skipped (energy) index
  EXPECT_EQ(run_secs[3], 5u);
  EXPECT_EQ(usage[0], 1.5L);
  EXPECT_EQ(usage[2], 3.0L);
  EXPECT_EQ(usage[3], 4.5L);
  ASSERT_EQ(underflows.size(), 1u);
  EXPECT_EQ(underflows[0], (std::vector<uint64_t>{1, 8, 5}));
  // Release only (the restart release): usage untouched.
  fw_apply_tres_run(usage, run_secs, nullptr, release, 4, 2, nullptr, nullptr);
  EXPECT_EQ(usage[0], 1.5L);
  EXPECT_EQ(run_secs[0], 4u);
}

TEST(ApiCharge, RestartReleaseIsWhatWasUsedBeforeTheLastPass) {
  const uint64_t alloc[] = {2, kNoConsumeVal64, 4};
  uint64_t release[3];
  fw_restart_release(alloc, 3, 1000, 1100, true, 0.5, release);
  EXPECT_EQ(release[0], 100u);  // 2 x 100 s x 0.5
  EXPECT_EQ(release[1], 0u);    // NO_CONSUME
  EXPECT_EQ(release[2], 200u);
  fw_restart_release(alloc, 3, 1000, 1100, true, -1, release);  // factor unset
  EXPECT_EQ(release[0], 200u);
  fw_restart_release(alloc, 3, 1000, 1100, false, 0.5, release);  // no QOS
  EXPECT_EQ(release[2], 400u);
  uint64_t core[3];
  RestartRelease(alloc, 3, 1000, 1100, false, 0.5, kNoConsumeVal64, core);
  EXPECT_EQ(std::vector<uint64_t>(core, core + 3), std::vector<uint64_t>(release, release + 3));
}

// ---- bootstrap ------------------------------------------------------------

fw_assoc_input_t Assoc(const void* key, uint32_t id, uint32_t parent, const char* acct,
                       const char* user, long double usage = 0) {
  fw_assoc_input_t a{};
  a.key = key;
  a.id = id;
  a.parent_id = parent;
  a.acct = acct;
  a.user = user;
  a.shares_raw = 1;
  a.usage_raw = usage;
  return a;
}

TEST(ApiBootstrap, WantedAndSince) {
  fw_config_input_t in = DefaultInput();
  in.decay_half_life_s = 1000;
  ConfigHolder automatic(in);
  EXPECT_TRUE(fw_bootstrap_wanted(automatic.get(), true));
  EXPECT_FALSE(fw_bootstrap_wanted(automatic.get(), false));
  EXPECT_EQ(fw_bootstrap_since(automatic.get(), 0, kNow), kNow - 10000);
  EXPECT_EQ(fw_bootstrap_since(automatic.get(), kNow - 500, kNow), kNow - 500);
  in.priority_parameters = "usage_bootstrap=force";
  in.decay_half_life_s = 0;
  ConfigHolder forced(in);
  EXPECT_TRUE(fw_bootstrap_wanted(forced.get(), false));
  EXPECT_EQ(fw_bootstrap_since(forced.get(), 0, kNow), 1);  // all history
  in.priority_parameters = "usage_bootstrap=off";
  ConfigHolder off(in);
  EXPECT_FALSE(fw_bootstrap_wanted(off.get(), true));
  in.priority_parameters = "usage_bootstrap=force";
  in.with_slurmdbd = false;
  ConfigHolder no_dbd(in);
  EXPECT_FALSE(fw_bootstrap_wanted(no_dbd.get(), true));
}

TEST(ApiBootstrap, RebuildsUsageAsTheCoreDoes) {
  fw_config_input_t in = DefaultInput();
  in.decay_half_life_s = 7200;
  in.priority_parameters = "fairshare=planned_use";
  ConfigHolder c(in);
  int k[6];
  // root {A {u1, u2}}, then the whole list again (duplicates dropped).
  const fw_assoc_input_t assocs[] = {
      Assoc(&k[0], 1, 0, "root", nullptr), Assoc(&k[1], 2, 1, "a", nullptr),
      Assoc(&k[2], 3, 2, "a", "u1"),       Assoc(&k[3], 4, 2, "a", "u2"),
      [&] { fw_assoc_input_t a = Assoc(&k[2], 3, 2, "a", "u1"); a.listed_only = true; return a; }(),
  };
  const fw_db_job_t jobs[] = {
      {3, kNow - 7200, kNow - 3600, "1=4,5=6"},
      {4, kNow - 1800, 0, "1=2,3=100,5=2"},
      {4, kNow - 100, 0, "not tres"},  // unreadable: skipped and counted
      {0, kNow - 100, 0, "1=1"},       // no association: skipped
  };
  const uint32_t tres_ids[] = {1, 3, 5};  // cpu, energy, billing
  long double usage[5], tres_usage[15];
  fw_ledger_t* ledger = fw_ledger_create();
  Logged().clear();
  ASSERT_EQ(fw_bootstrap_usage(c.get(), assocs, 5, jobs, 4, tres_ids, 3, 3, false, 1, kNow,
                               true, ledger, usage, tres_usage),
            FW_BOOTSTRAP_REBUILT);
  // The core on the same records.
  AssocTree tree;
  std::vector<AssocNode> nodes(4);
  const char* users[] = {"", "", "u1", "u2"};
  for (int i = 0; i < 4; ++i) {
    nodes[i].id = assocs[i].id;
    nodes[i].parent_id = assocs[i].parent_id;
    nodes[i].acct = assocs[i].acct;
    nodes[i].user = users[i];
  }
  std::string error;
  ASSERT_TRUE(tree.Build(nodes, true, &error)) << error;
  std::vector<JobUsageRecord> records = {{3, kNow - 7200, kNow - 3600, 6},
                                         {4, kNow - 1800, 0, 2}};
  const double f = DecayFactorPerSecond(7200);
  const std::vector<long double> expected = SubtreeUsage(tree, DecayedUsageByAssoc(records, kNow, f));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(usage[i], expected[i]) << i;
  EXPECT_EQ(usage[4], usage[2]);  // the duplicate row holds its first entry's
  EXPECT_GT(usage[0], 0);
  records[0].billing = 4;
  records[1].billing = 2;
  const std::vector<long double> cpu = SubtreeUsage(tree, DecayedUsageByAssoc(records, kNow, f));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(tres_usage[i * 3 + 0], cpu[i]) << i;
    EXPECT_EQ(tres_usage[i * 3 + 1], 0) << i;  // energy is never rebuilt
  }
  PlannedUseLedger expected_ledger;
  expected_ledger = LedgerFromJobs(tree, {{3, kNow - 7200, kNow - 3600, 6}, {4, kNow - 1800, 0, 2}},
                                   kNow, 86400, PlannedUsePerIntervalDecay(86400, 7200));
  EXPECT_EQ(SerializeLedger(Contents(ledger)), SerializeLedger(expected_ledger));
  const std::vector<std::string> errors = LinesAt(FW_LOG_ERROR);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "usage bootstrap: 1 job records with an unreadable tres_alloc were skipped");
  char line[400];
  std::snprintf(line, sizeof line,
                "usage bootstrap: rebuilt the usage of 4 associations from 2 jobs in slurmdbd "
                "since 1 (all history) (cluster usage %.0Lf billing-seconds), now that slurmdbd "
                "answers",
                expected[0]);
  EXPECT_EQ(errors[1], line);
  EXPECT_EQ(LinesAt(FW_LOG_INFO),
            std::vector<std::string>{"usage bootstrap: planned-use ledger rebuilt from the same jobs"});

  // Usage there and not forced: nothing overwritten; a ledger with entries
  // is kept unless forced.
  fw_assoc_input_t used[4];
  std::copy(assocs, assocs + 4, used);
  used[2].usage_raw = 5;
  long double untouched[4] = {-1, -1, -1, -1};
  Logged().clear();
  EXPECT_EQ(fw_bootstrap_usage(c.get(), used, 4, jobs, 2, nullptr, 0, 3, false, 1, kNow, false,
                               ledger, untouched, nullptr),
            FW_BOOTSTRAP_NOT_NEEDED);
  EXPECT_EQ(untouched[2], -1);
  EXPECT_EQ(LinesAt(FW_LOG_INFO),
            std::vector<std::string>{"usage bootstrap: slurmctld already has usage; nothing "
                                     "overwritten (usage_bootstrap=force rebuilds it anyway)"});
  const fw_db_job_t one[] = {{3, kNow - 100, 0, "1=1,5=1"}};
  const std::string before = SerializeLedger(Contents(ledger));
  EXPECT_EQ(fw_bootstrap_usage(c.get(), assocs, 4, one, 1, nullptr, 0, 3, false, 1, kNow, false,
                               ledger, untouched, nullptr),
            FW_BOOTSTRAP_REBUILT);
  EXPECT_EQ(SerializeLedger(Contents(ledger)), before);  // kept: it has entries
  EXPECT_EQ(fw_bootstrap_usage(c.get(), assocs, 4, one, 1, nullptr, 0, 3, true, 1, kNow, false,
                               ledger, untouched, nullptr),
            FW_BOOTSTRAP_REBUILT);
  EXPECT_NE(SerializeLedger(Contents(ledger)), before);  // forced: replaced
  // No tree: said, nothing rebuilt.
  Logged().clear();
  EXPECT_EQ(fw_bootstrap_usage(c.get(), assocs, 0, one, 1, nullptr, 0, 3, true, 1, kNow, false,
                               ledger, untouched, nullptr),
            FW_BOOTSTRAP_NOT_NEEDED);
  EXPECT_EQ(LinesAt(FW_LOG_ERROR),
            std::vector<std::string>{"usage bootstrap: no association tree; skipped"});
  fw_ledger_destroy(ledger);
}

}  // namespace
}  // namespace fairway::test
