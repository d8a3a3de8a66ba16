// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: the `fairway simulate` scenario parser (ReadScenario) and
// its two value parsers. It must never crash; an accepted scenario must be
// one the simulator can run (machine, users, jobs, a decay factor in (0, 1],
// a finite non-negative half-life, shares within Slurm's range).
//
// Input: the scenario text, optionally followed by a line "@@TRACE@@" and
// the content of a job trace CSV. The trace is written to a private
// temporary directory as t.csv; a "trace" line naming any other file makes
// the input uninteresting (the target never reads files it did not write).
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/scenario_file.h"
#include "text_util.h"

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "scenario_fuzz: invariant violated: %s\n", what);
  std::abort();
}

// A private directory for t.csv, removed at exit. Held by a pointer that
// is never freed, so that the exit handler cannot outlive it.
const std::string& TempDir() {
  static const std::string* dir = [] {
    char tmpl[] = "/tmp/fairway_scenario_fuzz.XXXXXX";
    const char* d = mkdtemp(tmpl);
    if (!d) Die("mkdtemp");
    auto* s = new std::string(d);
    std::atexit([] {
      std::remove((TempDir() + "/t.csv").c_str());
      rmdir(TempDir().c_str());
    });
    return s;
  }();
  return *dir;
}

// The same tokenisation as the parser: text before '#', split on spaces.
bool OnlyOurTrace(const std::string& text) {
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    size_t hash = raw.find('#');
    std::istringstream words(hash == std::string::npos ? raw : raw.substr(0, hash));
    std::vector<std::string> w;
    std::string x;
    while (words >> x) w.push_back(x);
    if (w.empty() || fairway::ToLower(w[0]) != "trace") continue;
    if (w.size() != 2 || w[1] != "t.csv") return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  std::string scenario_text = input, trace_text;
  const std::string marker = "\n@@TRACE@@\n";
  size_t m = input.find(marker);
  if (m != std::string::npos) {
    scenario_text = input.substr(0, m);
    trace_text = input.substr(m + marker.size());
  }
  if (!OnlyOurTrace(scenario_text)) return 0;
  {
    std::ofstream out(TempDir() + "/t.csv", std::ios::binary | std::ios::trunc);
    out << trace_text;
  }

  std::istringstream in(scenario_text);
  fairway::sim::Scenario s;
  std::string error;
  const bool ok = fairway::ReadScenario(in, "fuzz.scenario", TempDir(), &s, &error);
  if (!ok) {
    if (error.empty()) Die("a rejected scenario has a reason");
  } else {
    if (s.nodes == 0 || s.days <= 0) Die("nodes and days set");
    if (s.users.empty()) Die("users present");
    if (s.patterns.empty() && s.trace.empty()) Die("jobs present");
    if (s.policies.empty()) Die("policies filled in");
    if (!(s.decay_per_interval > 0) || !(s.decay_per_interval <= 1)) Die("decay in (0, 1]");
    if (!std::isfinite(s.half_life_s) || !(s.half_life_s >= 0)) Die("half-life finite, >= 0");
    if (!std::isfinite(s.billing_per_node) || !(s.billing_per_node > 0)) Die("billing > 0");
    if (s.interval_s <= 0 || s.job_duration_s <= 0 || s.step_s < 0) Die("durations");
    if (s.job_nodes > s.nodes) Die("job_nodes <= nodes");
    if (s.damp == 0) Die("damp >= 1");
    for (const auto& u : s.users) {
      if (u.shares > 0x7ffffffe) Die("user shares within range");
      if (u.rate_nodes > 0 && u.shares == 0 && u.rate_nodes >= 0.0005) Die("rate gives shares");
    }
    for (const auto& a : s.accounts) {
      if (a.shares > 0x7ffffffe) Die("account shares within range");
    }
    for (const auto& p : s.patterns) {
      if (p.every_s <= 0) Die("every > 0");
      if (p.from_s < 0) Die("from >= 0");
      if (p.to_s >= 0 && p.to_s <= p.from_s) Die("to after from");
      if (p.nodes > s.nodes) Die("pattern nodes <= machine");
    }
    for (const auto& j : s.trace) {
      if (j.nodes == 0 || j.nodes > s.nodes || j.duration_s <= 0) Die("trace job sane");
    }
  }

  // The value parsers on the raw bytes.
  std::optional<int64_t> d = fairway::ParseScenarioDuration(scenario_text);
  if (d && *d < 0) Die("duration >= 0");
  std::optional<double> f = fairway::ParseDecayExpression(scenario_text);
  // A power is checked to be finite; a bare number is returned as strtod
  // reads it ("nan", "inf" included) and the caller's range check rejects it.
  if (f && scenario_text.find('^') != std::string::npos && !std::isfinite(*f)) {
    Die("decay expression (a power) finite");
  }
  return 0;
}
