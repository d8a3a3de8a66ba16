// SPDX-License-Identifier: GPL-2.0-or-later
// One slice of job usage, as _apply_new_usage computes it (
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#include <gtest/gtest.h>

#include <cmath>

#include "slurm_values.h"
#include "usage_charge.h"

namespace fairway {
namespace {

// A running job: started at 1000 with a 60-minute limit (limit ends at
// 4600, also its expected end), charged for [2000, 2002].
JobChargeInput RunningJob() {
  JobChargeInput in;
  in.start_time = 1000;
  in.start_period = 2000;
  in.end_period = 2002;
  in.time_limit_min = 60;
  in.end_time_exp = 4600;
  in.billable_tres = 4;
  return in;
}

TEST(UsageCharge, PlainSliceWithExactDecay) {
  // factor 0.5, run_delta 2: run_decay = 2 * 0.5^2 = 0.5 (exact in binary);
  // billing 4: real_decay = 2, real_nodecay = 8; tres_time_delta = run_delta.
  JobCharge c = ComputeJobCharge(RunningJob(), 0.5, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 2.0);
  EXPECT_EQ(c.run_decay_s, 0.5);
  EXPECT_EQ(c.run_nodecay_s, 2.0);
  EXPECT_EQ(c.real_decay, 2.0);
  EXPECT_EQ(c.real_nodecay, 8.0);
  EXPECT_EQ(c.tres_time_delta_s, 2u);
  EXPECT_TRUE(c.tres_run_delta.empty());  // no TRES allocation
  EXPECT_TRUE(c.tres_run_decay.empty());
  EXPECT_TRUE(c.tres_run_nodecay.empty());
}

TEST(UsageCharge, WholeSliceIsDiscountedAsIfUsedAtItsStart) {
  // Default 7-day half-life over a 300 s slice: 300 * f^300 with
  // f = 1 - 0.693/604800 (as in _apply_new_usage).
  JobChargeInput in = RunningJob();
  in.end_period = in.start_period + 300;
  const double f = 1.0 - 0.693 / 604800.0;
  JobCharge c = ComputeJobCharge(in, f, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 300.0);
  EXPECT_NEAR(c.run_decay_s, 300.0 * std::exp(300.0 * std::log(f)), 1e-9);
  EXPECT_LT(c.run_decay_s, 300.0);
  EXPECT_GT(c.run_decay_s, 299.89);  // 300 * (1 - 300*0.693/604800) ~= 299.8969
  EXPECT_NEAR(c.real_decay, 4 * c.run_decay_s, 1e-9);
  EXPECT_EQ(c.real_nodecay, 1200.0);
}

TEST(UsageCharge, NoDecayFactorChargesEverything) {
  JobChargeInput in = RunningJob();
  in.end_period = in.start_period + 600;
  JobCharge c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_decay_s, 600.0);
  EXPECT_EQ(c.real_decay, 2400.0);
  EXPECT_EQ(c.real_nodecay, 2400.0);
}

TEST(UsageCharge, StartPeriodBeforeJobStartClampsToJobStart) {
  JobChargeInput in = RunningJob();
  in.start_period = 100;  // last decay pass long before the job started at 1000
  in.end_period = 1300;
  JobCharge c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 300.0);  // 1300 - 1000, not 1300 - 100
  EXPECT_EQ(c.tres_time_delta_s, 300u);
}

TEST(UsageCharge, JobEndChargeStopsAtEndTime) {
  JobChargeInput in = RunningJob();
  in.end_time = 2100;
  in.end_period = 2500;
  JobCharge c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 500.0);  // periodic pass: end_time ignored
  in.adjust_for_end = true;
  c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 100.0);  // 2100 - 2000
  in.end_time = 0;                  // unknown end: no clamp
  c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 500.0);
  in.end_time = 3000;  // end after end_period: end_period stays
  c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 500.0);
}

TEST(UsageCharge, NegativeSliceChargesNothing) {
  JobChargeInput in = RunningJob();
  in.start_period = 3000;
  in.end_period = 2500;
  in.tres_alloc = {2};
  JobCharge c = ComputeJobCharge(in, 0.9, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 0.0);
  EXPECT_EQ(c.run_decay_s, 0.0);
  EXPECT_EQ(c.run_nodecay_s, 0.0);
  EXPECT_EQ(c.real_decay, 0.0);
  EXPECT_EQ(c.real_nodecay, 0.0);
  EXPECT_EQ(c.tres_time_delta_s, 0u);
  ASSERT_EQ(c.tres_run_decay.size(), 1u);
  EXPECT_EQ(c.tres_run_decay[0], 0.0L);
  EXPECT_EQ(c.tres_run_delta[0], 0u);
}

TEST(UsageCharge, QosUsageFactorScalesEveryCharge) {
  JobChargeInput in = RunningJob();
  in.has_qos = true;
  in.qos_usage_factor = 2.0;
  in.tres_alloc = {3};
  JobCharge c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  // Unscaled: run_decay 0.5, run_nodecay 2, real 2 / 8, tres_time_delta 2.
  EXPECT_EQ(c.run_delta_s, 2.0);  // the slice itself is not scaled
  EXPECT_EQ(c.run_decay_s, 1.0);
  EXPECT_EQ(c.run_nodecay_s, 4.0);
  EXPECT_EQ(c.real_decay, 4.0);
  EXPECT_EQ(c.real_nodecay, 16.0);
  EXPECT_EQ(c.tres_time_delta_s, 4u);
  EXPECT_EQ(c.tres_run_delta[0], 12u);     // 4 * 3
  EXPECT_EQ(c.tres_run_decay[0], 3.0L);    // 1 * 3
  EXPECT_EQ(c.tres_run_nodecay[0], 12.0L); // 4 * 3
}

TEST(UsageCharge, QosUsageFactorZeroChargesNothingButNegativeOrNoQosIsIgnored) {
  JobChargeInput in = RunningJob();
  in.has_qos = true;
  in.qos_usage_factor = 0.0;
  JobCharge c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 2.0);
  EXPECT_EQ(c.run_decay_s, 0.0);
  EXPECT_EQ(c.run_nodecay_s, 0.0);
  EXPECT_EQ(c.real_decay, 0.0);
  EXPECT_EQ(c.real_nodecay, 0.0);
  EXPECT_EQ(c.tres_time_delta_s, 0u);

  in.qos_usage_factor = -1;  // unset
  c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  EXPECT_EQ(c.real_decay, 2.0);
  EXPECT_EQ(c.tres_time_delta_s, 2u);

  in.has_qos = false;  // factor present but no QOS: ignored
  in.qos_usage_factor = 3.0;
  c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  EXPECT_EQ(c.real_decay, 2.0);
  EXPECT_EQ(c.tres_time_delta_s, 2u);
}

TEST(UsageCharge, ScaledTresTimeDeltaIsTruncated) {
  // uint64 *= double truncates: 7 * 0.5 = 3.5 -> 3; 301 * 1.5 = 451.5 -> 451.
  JobChargeInput in = RunningJob();
  in.has_qos = true;
  in.qos_usage_factor = 0.5;
  in.end_period = in.start_period + 7;
  JobCharge c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.tres_time_delta_s, 3u);
  EXPECT_EQ(c.run_nodecay_s, 3.5);  // the double charges are not truncated
  in.qos_usage_factor = 1.5;
  in.end_period = in.start_period + 301;
  c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.tres_time_delta_s, 451u);
  EXPECT_EQ(c.run_nodecay_s, 451.5);
}

// ---- tres_time_delta: the time-limit rule --------------------------------------------

// Job started at 0 with a 10-minute limit: run-seconds were reserved to 600.
JobChargeInput TenMinuteJob(int64_t from, int64_t to) {
  JobChargeInput in;
  in.start_time = 0;
  in.time_limit_min = 10;
  in.end_time_exp = 600;
  in.start_period = from;
  in.end_period = to;
  in.billable_tres = 1;
  return in;
}

TEST(UsageCharge, NothingReleasedBeyondTheTimeLimit) {
  JobCharge c = ComputeJobCharge(TenMinuteJob(600, 700), 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 100.0);  // usage is still charged
  EXPECT_EQ(c.tres_time_delta_s, 0u);
  c = ComputeJobCharge(TenMinuteJob(700, 800), 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.tres_time_delta_s, 0u);
  JobChargeInput in = TenMinuteJob(650, 700);
  in.finished_or_completing = true;  // even when finished
  EXPECT_EQ(ComputeJobCharge(in, 1.0, kNoConsumeVal64).tres_time_delta_s, 0u);
}

TEST(UsageCharge, FinishedJobReleasesTheRemainderToItsLimit) {
  JobChargeInput in = TenMinuteJob(200, 300);
  in.finished_or_completing = true;
  JobCharge c = ComputeJobCharge(in, 1.0, kNoConsumeVal64);
  EXPECT_EQ(c.run_delta_s, 100.0);
  EXPECT_EQ(c.tres_time_delta_s, 400u);  // 600 - 200
}

TEST(UsageCharge, SliceBeyondExpectedEndReleasesOnlyUpToIt) {
  JobChargeInput in = TenMinuteJob(200, 300);
  in.end_time_exp = 250;
  EXPECT_EQ(ComputeJobCharge(in, 1.0, kNoConsumeVal64).tres_time_delta_s, 50u);  // 250 - 200
  in.end_time_exp = 150;  // expected end already passed: nothing (not negative)
  EXPECT_EQ(ComputeJobCharge(in, 1.0, kNoConsumeVal64).tres_time_delta_s, 0u);
  in.end_time_exp = 200;  // exactly at the slice start: 0
  EXPECT_EQ(ComputeJobCharge(in, 1.0, kNoConsumeVal64).tres_time_delta_s, 0u);
  in.end_time_exp = 300;  // end_period == end_time_exp: the plain run_delta
  EXPECT_EQ(ComputeJobCharge(in, 1.0, kNoConsumeVal64).tres_time_delta_s, 100u);
}

// ---- per-TRES arrays ---------------------------------------------------------------

TEST(UsageCharge, PerTresArraysSkipZeroAndNoConsume) {
  JobChargeInput in = RunningJob();
  in.tres_alloc = {4, 0, kNoConsumeVal64, 2};
  JobCharge c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  // tres_time_delta 2, run_decay 0.5, run_nodecay 2.
  ASSERT_EQ(c.tres_run_delta.size(), 4u);
  ASSERT_EQ(c.tres_run_decay.size(), 4u);
  ASSERT_EQ(c.tres_run_nodecay.size(), 4u);
  EXPECT_EQ(c.tres_run_delta[0], 8u);
  EXPECT_EQ(c.tres_run_delta[1], 0u);
  EXPECT_EQ(c.tres_run_delta[2], 0u);
  EXPECT_EQ(c.tres_run_delta[3], 4u);
  EXPECT_EQ(c.tres_run_decay[0], 2.0L);
  EXPECT_EQ(c.tres_run_decay[1], 0.0L);
  EXPECT_EQ(c.tres_run_decay[2], 0.0L);
  EXPECT_EQ(c.tres_run_decay[3], 1.0L);
  EXPECT_EQ(c.tres_run_nodecay[0], 8.0L);
  EXPECT_EQ(c.tres_run_nodecay[2], 0.0L);
  EXPECT_EQ(c.tres_run_nodecay[3], 4.0L);
}

TEST(UsageCharge, NoConsumeMarkerIsTheOnePassedIn) {
  // The marker is a parameter: a count equal to it is skipped, the
  // standard NO_CONSUME value is then an ordinary (huge) count.
  JobChargeInput in = RunningJob();
  in.tres_alloc = {5, 7};
  JobCharge c = ComputeJobCharge(in, 1.0, 7);
  EXPECT_EQ(c.tres_run_delta[0], 10u);
  EXPECT_EQ(c.tres_run_delta[1], 0u);
}

TEST(UsageCharge, BillingDoesNotAffectPerTresOrRunSeconds) {
  JobChargeInput in = RunningJob();
  in.tres_alloc = {4};
  in.billable_tres = 0;  // e.g. a zero-weight partition
  JobCharge c = ComputeJobCharge(in, 0.5, kNoConsumeVal64);
  EXPECT_EQ(c.real_decay, 0.0);
  EXPECT_EQ(c.real_nodecay, 0.0);
  EXPECT_EQ(c.run_decay_s, 0.5);
  EXPECT_EQ(c.tres_run_decay[0], 2.0L);
}

}  // namespace
}  // namespace fairway
