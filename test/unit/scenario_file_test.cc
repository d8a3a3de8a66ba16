// SPDX-License-Identifier: GPL-2.0-or-later
#include "io/scenario_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "test_support.h"

namespace fairway {
namespace {

// Parses text; returns the error ("" on success).
std::string ParseError(const std::string& text) {
  std::istringstream in(text);
  sim::Scenario s;
  std::string error;
  if (ReadScenario(in, "s.scenario", test::DataPath(""), &s, &error)) return "";
  return error;
}

const char* kHead = "nodes 10\ndays 2\nuser a rate 5\n";  // lines 1-3

TEST(ScenarioFile, GoodFileUsesEveryKeyword) {
  sim::Scenario s;
  std::string error;
  ASSERT_TRUE(ReadScenarioFile(test::DataPath("scenario_good.scenario"), &s, &error)) << error;
  EXPECT_EQ(s.name, "good");
  EXPECT_EQ(s.nodes, 10u);
  EXPECT_DOUBLE_EQ(s.billing_per_node, 2);
  EXPECT_EQ(s.days, 4);
  EXPECT_EQ(s.interval_s, 43200);
  EXPECT_EQ(s.job_nodes, 2u);
  EXPECT_EQ(s.job_duration_s, 21600);
  EXPECT_DOUBLE_EQ(s.half_life_s, 2 * 86400);
  EXPECT_DOUBLE_EQ(s.decay_per_interval, std::pow(2.0, -0.25));
  EXPECT_EQ(s.weight_fairshare, 100000u);
  EXPECT_EQ(s.policies, (std::vector<std::string>{"exp_decay", "planned_use"}));
  ASSERT_EQ(s.accounts.size(), 2u);
  EXPECT_EQ(s.accounts[1].parent, "phys");
  ASSERT_EQ(s.users.size(), 3u);
  EXPECT_EQ(s.users[0].account, "phys");
  EXPECT_EQ(s.users[2].account, "");
  ASSERT_EQ(s.patterns.size(), 2u);
  EXPECT_EQ(s.patterns[0].every_s, 43200);
  EXPECT_EQ(s.patterns[0].to_s, 2 * 86400);
  EXPECT_EQ(s.patterns[1].day_step, 2);
  EXPECT_EQ(s.patterns[1].from_s, 86400);
  EXPECT_EQ(s.patterns[1].nodes, 1u);
  EXPECT_EQ(s.patterns[1].duration_s, 3600);
  ASSERT_EQ(s.trace.size(), 2u);
  EXPECT_EQ(s.trace[1].submit_s, 7200);
  EXPECT_EQ(s.trace[1].nodes, 10u);
}

TEST(ScenarioFile, DefaultsAndRates) {
  std::istringstream in(std::string(kHead) + "user b rate 2.5\nsubmit a every 1h\n");
  sim::Scenario s;
  std::string error;
  ASSERT_TRUE(ReadScenario(in, "x", "", &s, &error)) << error;
  EXPECT_EQ(s.policies.size(), 6u);
  EXPECT_EQ(s.users[0].shares, 5000u);  // fractional rates: shares = rate x 1000
  EXPECT_EQ(s.users[1].shares, 2500u);
  EXPECT_DOUBLE_EQ(s.half_life_s, 604800);
}

TEST(ScenarioFile, DecayExpressions) {
  EXPECT_DOUBLE_EQ(*ParseDecayExpression("10^(-1/15)"), std::pow(10.0, -1.0 / 15));
  EXPECT_DOUBLE_EQ(*ParseDecayExpression("2^-0.5"), std::pow(2.0, -0.5));
  EXPECT_DOUBLE_EQ(*ParseDecayExpression("0.9"), 0.9);
  EXPECT_FALSE(ParseDecayExpression("10^(1/0)"));
  EXPECT_FALSE(ParseDecayExpression("x^2"));
  EXPECT_EQ(ParseScenarioDuration("40m"), 2400);
  EXPECT_EQ(ParseScenarioDuration("1.5h"), 5400);
  EXPECT_EQ(ParseScenarioDuration("3200s"), 3200);
  EXPECT_FALSE(ParseScenarioDuration("12"));
  EXPECT_FALSE(ParseScenarioDuration("3w"));
}

struct BadCase {
  std::string extra;   // appended after kHead (lines 1-3), so it starts on line 4
  std::string expect;  // part of the message
};

TEST(ScenarioFile, ErrorsNameFileAndLine) {
  const BadCase cases[] = {
      {"bogus 1\n", "s.scenario:4: unknown keyword 'bogus'"},
      {"\n# comment\nnodes ten\n", "s.scenario:6: nodes: 'ten'"},
      {"days 1 2\n", "s.scenario:4: 'days' takes 1 value"},
      {"user a rate 3\n", "s.scenario:4: user: 'a' is already defined"},
      {"user b rate 3 shares 2\n", "s.scenario:4: user: give exactly one"},
      {"user b shares 2\n", "s.scenario:4: user: do not mix"},
      {"user b rate 1 account nowhere\n", "s.scenario:4: user: account 'nowhere'"},
      {"account x parent y\n", "s.scenario:4: account: parent 'y'"},
      {"submit z every 1h\n", "s.scenario:4: submit: user 'z'"},
      {"submit a every 12\n", "s.scenario:4: submit every: '12'"},
      {"submit a every 1h from 5 to 2\n", "s.scenario:4: submit: 'to' must be after"},
      {"submit a every 1h when 3\n", "s.scenario:4: submit: unknown field 'when'"},
      {"submit a every 1h day_step 2 from 0.5\n", "s.scenario:4: submit: with day_step"},
      {"policies fair_tree fastest\n", "s.scenario:4: policies: unknown policy 'fastest'"},
      {"decay 1.5\n", "s.scenario:4: decay:"},
      {"half_life 2d\ndecay 0.5\n", "s.scenario:5: decay: half_life was already given on line 4"},
      {"trace missing.csv\n", "s.scenario:4: trace: cannot open"},
      {"submit a every 1h nodes 11\n", "s.scenario:4: submit: nodes exceeds"},
      {"", "s.scenario: no 'submit' or 'trace' lines"},
  };
  for (const BadCase& c : cases) {
    std::string error = ParseError(std::string(kHead) + c.extra);
    EXPECT_NE(error.find(c.expect), std::string::npos) << "input: " << c.extra << "\nerror: " << error;
  }
  EXPECT_NE(ParseError("days 2\nuser a rate 1\nsubmit a every 1h\n").find("missing 'nodes'"), std::string::npos);
}

TEST(ScenarioFile, TraceErrorsNameTheTraceLine) {
  sim::Scenario s;
  std::string error;
  std::istringstream in(std::string(kHead) + "trace scenario_good.scenario\n");
  EXPECT_FALSE(ReadScenario(in, "s.scenario", test::DataPath(""), &s, &error));
  EXPECT_NE(error.find("scenario_good.scenario:2: expected the header"), std::string::npos) << error;
}

}  // namespace
}  // namespace fairway
