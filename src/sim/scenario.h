// SPDX-License-Identifier: GPL-2.0-or-later
// A simulation scenario for `fairway simulate` (doc/simulate.md): the
// machine, the users and their allocations, the account tree, how jobs are
// submitted, and which policies to compare. Plain data, read by
// src/io/scenario_file and run by src/sim/simulator. Times are seconds from
// the start of the simulation; rates are in nodes.
#ifndef FAIRWAY_SIM_SCENARIO_H_
#define FAIRWAY_SIM_SCENARIO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace fairway::sim {

struct ScenarioAccount {
  std::string name;
  std::string parent;   // empty = root
  uint32_t shares = 1;  // raw Fairshare
  int line = 0;
};

struct ScenarioUser {
  std::string name;
  std::string account;     // empty = directly under root
  double rate_nodes = 0;   // planned rate as written (0 when given as shares)
  uint32_t shares = 0;     // raw Fairshare (derived from the rate when given as rate)
  int line = 0;
};

// "submit USER every E [from A] [to B] [day_step N] [nodes N] [duration D]".
// Without day_step: jobs at from, from+E, ... while < to. With day_step N:
// on days from_day, from_day+N, ... (< to), jobs at the day's start, +E, ...
// for that whole day.
struct SubmitPattern {
  std::string user;
  int64_t every_s = 0;
  int64_t from_s = 0;
  int64_t to_s = -1;        // -1 = end of the simulation
  int day_step = 0;         // 0 = every E all along
  uint32_t nodes = 0;       // 0 = the scenario's job_nodes
  int64_t duration_s = 0;   // 0 = the scenario's job_duration
  int line = 0;
};

// One job of an explicit trace (CSV: submit,user,nodes,duration), or of a
// "job SUBMIT USER NODES DURATION [start S] [id N]" line.
struct TraceJob {
  int64_t submit_s = 0;
  std::string user;
  uint32_t nodes = 1;
  int64_t duration_s = 0;
  int64_t recorded_start_s = -1;  // "start S": when it really started (-1 = unknown)
  int64_t id = -1;                // "id N": the job's id for jobs.csv (-1 = none)
};

struct Scenario {
  std::string source;               // file the scenario came from
  std::string name = "scenario";
  uint32_t nodes = 0;
  double billing_per_node = 1;
  int days = 0;
  int64_t step_s = 0;               // 0 = start jobs at event times; else only at multiples
  int64_t interval_s = 86400;       // Δt of exp_decay and planned_use
  double decay_per_interval = 0;    // D; set by "decay" or derived from half_life
  double half_life_s = 604800;      // usage half-life (derived from D when "decay" is given)
  uint32_t job_nodes = 1;
  int64_t job_duration_s = 86400;
  uint32_t weight_fairshare = 0;    // 0 = compare the factors themselves
  uint16_t damp = 1;                // FairShareDampeningFactor
  std::vector<std::string> policies;
  std::vector<ScenarioAccount> accounts;
  std::vector<ScenarioUser> users;
  std::vector<SubmitPattern> patterns;
  std::vector<TraceJob> trace;

  int64_t duration_s() const { return int64_t{days} * 86400; }
};

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_SCENARIO_H_
