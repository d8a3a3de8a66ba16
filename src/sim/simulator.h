// SPDX-License-Identifier: GPL-2.0-or-later
// The discrete-event simulator of `fairway simulate` (doc/simulate.md):
// jobs arrive as the scenario says; whenever enough nodes are free, the
// pending job with the best priority starts (ties: earliest submission, then
// job order); no backfill: when the best job does not fit, nothing else
// starts. Usage is charged at job start. Deterministic: the same scenario
// and policy always give the same result. Pure (no files, no clock).
#ifndef FAIRWAY_SIM_SIMULATOR_H_
#define FAIRWAY_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scenario.h"

namespace fairway::sim {

struct SimJob {
  int64_t submit_s = 0;
  int user = 0;
  uint32_t nodes = 1;
  int64_t duration_s = 0;
  int64_t start_s = -1;  // -1 = never started
  int64_t id = -1;       // TraceJob::id; -1 for pattern jobs
  int64_t recorded_start_s = -1;
};

// The scenario's jobs, sorted by submission time (ties: patterns and trace
// lines in file order).
std::vector<SimJob> GenerateJobs(const Scenario& scenario);

struct UserOutcome {
  std::string name;
  double rate_nodes = 0;                // planned rate W
  std::vector<double> daily_node_days;  // node-days run in each day
  std::vector<bool> waited;             // had a job pending at some time that day
  int64_t submitted = 0, started = 0;
  double total_wait_s = 0, max_wait_s = 0;

  // Days with a job waiting but no job of the user running at all.
  int StarvedDays() const;
  double TotalNodeDays() const;
  double MeanWaitHours() const { return started ? total_wait_s / started / 3600 : 0; }
};

struct SimResult {
  std::string policy;
  int days = 0;
  std::vector<UserOutcome> users;  // in Scenario::users order
  int64_t jobs = 0;
  int64_t scheduling_passes = 0;
  std::vector<SimJob> job_records;  // every job with its simulated start (jobs.csv)
};

// Runs one policy. progress (may be empty) gets the fraction of simulated
// time done, at most about 200 times. False with *error when the policy
// cannot be built.
bool RunSimulation(const Scenario& scenario, const std::string& policy,
                   const std::function<void(double)>& progress, SimResult* result,
                   std::string* error);

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_SIMULATOR_H_
