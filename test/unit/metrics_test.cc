// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway metrics`' text (tool/metrics.h): every family declared once,
// the controller's values per association, sshare's FairShare rule by
// mode and release, the queue's counts, and the OpenMetrics syntax.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sstream>
#include <string>
#include <vector>

#include "fairshare.h"
#include "metrics.h"
#include "metrics_server.h"
#include "slurm_values.h"

namespace fairway {
namespace {

constexpr uint32_t k2205 = (22u << 16) | (5u << 8);
constexpr uint32_t k2511 = (25u << 16) | (11u << 8);

client::ControllerAssoc Assoc(uint32_t id, uint32_t parent, const std::string& acct,
                              const std::string& user, uint32_t shares, double norm,
                              long double raw, long double efctv, double fs, long double level) {
  client::ControllerAssoc a;
  a.node.id = id;
  a.node.parent_id = parent;
  a.node.acct = acct;
  a.node.user = user;
  a.node.shares_raw = shares;
  a.node.usage_raw = raw;
  a.shares_norm = norm;
  a.usage_norm = efctv;
  a.usage_efctv = efctv;
  a.fs_factor = fs;
  a.level_fs = level;
  return a;
}

client::ControllerState State(uint32_t flags) {
  client::ControllerState s;
  s.params.flags = flags;
  s.params.damp_factor = 1;
  s.tres_names = {"cpu", "mem", "node"};
  s.assocs.push_back(Assoc(1, 0, "root", "", kNoVal, 1.0, 1000, 1.0, 0, kNoVal));
  s.assocs.push_back(Assoc(2, 1, "phys\"ics", "", 3, 0.75, 600, 0.6, 0, 1.25));
  s.assocs.push_back(Assoc(3, 2, "phys\"ics", "alice", 1, 0.375, 600, 0.6, 0.5, 0.625));
  // Fairshare=parent: no RawShares and no LevelFS of its own.
  s.assocs.push_back(Assoc(4, 2, "phys\"ics", "bob", kSharesUseParent, 0.75, 0, 0, 1.0, 0));
  // A user whose effective usage the controller has not computed.
  s.assocs.push_back(Assoc(5, 1, "root", "carol", 1, 0.25, 400, kNoVal, 0.25, INFINITY));
  return s;
}

client::ControllerJob Job(uint32_t id, uint32_t assoc, bool pending, uint32_t state,
                          uint32_t priority, std::vector<uint64_t> req,
                          std::vector<uint64_t> alloc = {}) {
  client::ControllerJob j;
  j.job_id = id;
  j.assoc_id = assoc;
  j.pending = pending;
  j.job_state = state;
  j.priority = priority;
  j.tres_req = std::move(req);
  j.tres_alloc = std::move(alloc);
  return j;
}

// name{labels} -> value, and each family's TYPE lines; checks the syntax
// on the way (every sample's family declared before it, one HELP and one
// TYPE per family, # EOF last).
struct Parsed {
  std::map<std::string, std::string> samples;
  std::map<std::string, int> types, helps;
};

Parsed Parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    last = line;
    if (line == "# EOF") continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream f(line.substr(7));
      std::string name, type;
      f >> name >> type;
      EXPECT_EQ(type, "gauge") << line;
      ++p.types[name];
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) {
      ++p.helps[line.substr(7, line.find(' ', 7) - 7)];
      continue;
    }
    size_t brace = line.find('{');
    if (brace == std::string::npos && line.find(' ') != std::string::npos) {
      // A sample without labels (the pass statistics): "name value".
      const std::string name = line.substr(0, line.find(' '));
      EXPECT_EQ(p.types.count(name), 1u) << "undeclared family: " << line;
      p.samples[name] = line.substr(line.find(' ') + 1);
      continue;
    }
    size_t close = line.rfind("} ");
    EXPECT_NE(brace, std::string::npos) << line;
    EXPECT_NE(close, std::string::npos) << line;
    if (brace == std::string::npos || close == std::string::npos) continue;
    EXPECT_EQ(p.types.count(line.substr(0, brace)), 1u) << "undeclared family: " << line;
    p.samples[line.substr(0, close + 1)] = line.substr(close + 2);
  }
  EXPECT_EQ(last, "# EOF");
  for (const auto& [name, n] : p.types) {
    EXPECT_EQ(n, 1) << name;
    EXPECT_EQ(p.helps[name], 1) << name;
  }
  return p;
}

const char* kAlice = "{account=\"phys\\\"ics\",user=\"alice\",partition=\"\"}";
const char* kBob = "{account=\"phys\\\"ics\",user=\"bob\",partition=\"\"}";
const char* kPhysics = "{account=\"phys\\\"ics\",user=\"\",partition=\"\"}";
const char* kCarol = "{account=\"root\",user=\"carol\",partition=\"\"}";
const char* kRoot = "{account=\"root\",user=\"\",partition=\"\"}";

TEST(MetricsTest, FairTreeShowsTheControllersValues) {
  Parsed p = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205));
  EXPECT_EQ(p.samples[std::string("slurm_assoc_shares") + kAlice], "1");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_shares_norm") + kAlice], "0.375");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_usage_raw") + kAlice], "600");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_usage_effective") + kAlice], "0.59999999999999998");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_level_fs") + kAlice], "0.625");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_fairshare") + kAlice], "0.5");
  // LevelFS inf is +Inf; an uncomputed EffectvUsage has no sample.
  EXPECT_EQ(p.samples[std::string("slurm_assoc_level_fs") + kCarol], "+Inf");
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_usage_effective") + kCarol), 0u);
  // Fairshare=parent: no RawShares, no LevelFS; Fair Tree: no FairShare for
  // accounts; the root has no RawShares (sshare's blank) but its NormShares.
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_shares") + kBob), 0u);
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_level_fs") + kBob), 0u);
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_fairshare") + kPhysics), 0u);
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_shares") + kRoot), 0u);
  EXPECT_EQ(p.samples[std::string("slurm_assoc_usage_raw") + kRoot], "1000");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_shares_norm") + kRoot], "1");
}

TEST(MetricsTest, ClassicFairShareIsComputedBefore2511AndStoredFrom2511) {
  client::ControllerState s = State(0);  // NO_FAIR_TREE
  EXPECT_FALSE(FairShareIsStored(s, k2205));
  EXPECT_TRUE(FairShareIsStored(s, k2511));
  EXPECT_TRUE(FairShareIsStored(State(kFlagFairTree), k2205));
  Parsed before = Parse(RenderMetrics(s, {}, k2205));
  double alice = CalcFsFactor(0.6L, 0.375L, 1);
  EXPECT_NEAR(std::stod(before.samples[std::string("slurm_assoc_fairshare") + kAlice]), alice,
              1e-15);
  // Accounts too, as sshare computes it for every row.
  EXPECT_NEAR(std::stod(before.samples[std::string("slurm_assoc_fairshare") + kPhysics]),
              CalcFsFactor(0.6L, 0.75L, 1), 1e-15);
  EXPECT_EQ(before.samples.count(std::string("slurm_assoc_fairshare") + kCarol), 0u);
  EXPECT_NEAR(std::stod(before.samples[std::string("slurm_assoc_fairshare") + kRoot]),
              CalcFsFactor(1.0L, 1.0L, 1), 1e-15);
  // The core's full-precision effective usage, when given, wins over the
  // controller's 6 decimals.
  std::vector<long double> efctv(s.assocs.size(), 0.6L);
  efctv[2] = 0.6000004L;
  Parsed precise = Parse(RenderMetrics(s, {}, k2205, &efctv));
  EXPECT_NEAR(std::stod(precise.samples[std::string("slurm_assoc_fairshare") + kAlice]),
              CalcFsFactor(0.6000004L, 0.375L, 1), 1e-15);
  Parsed after = Parse(RenderMetrics(s, {}, k2511));
  EXPECT_EQ(after.samples[std::string("slurm_assoc_fairshare") + kAlice], "0.5");
  EXPECT_EQ(after.samples[std::string("slurm_assoc_fairshare") + kCarol], "0.25");
  EXPECT_EQ(after.samples.count(std::string("slurm_assoc_fairshare") + kPhysics), 0u);
}

TEST(MetricsTest, QueuePerAssociation) {
  std::vector<client::ControllerJob> jobs = {
      Job(10, 3, true, 0, 500, {2, 1000, 1}),
      Job(11, 3, true, 0, 900, {1, 500, 1}),
      Job(12, 3, true, 0, 0, {4, 100, 1}),           // held: counted, never first
      Job(13, 3, false, 1, 700, {2, 1000, 1}, {2, 1000, 1}),  // running
      Job(14, 3, false, 3, 700, {2, 1000, 1}, {2, 1000, 1}),  // completed: not counted
  };
  Parsed p = Parse(RenderMetrics(State(kFlagFairTree), jobs, k2205));
  const std::string cpu = "{account=\"phys\\\"ics\",user=\"alice\",partition=\"\",tres=\"cpu\"}";
  const std::string mem = "{account=\"phys\\\"ics\",user=\"alice\",partition=\"\",tres=\"mem\"}";
  EXPECT_EQ(p.samples[std::string("slurm_assoc_jobs_pending") + kAlice], "3");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_jobs_running") + kAlice], "1");
  EXPECT_EQ(p.samples["slurm_assoc_tres_pending" + cpu], "7");
  EXPECT_EQ(p.samples["slurm_assoc_tres_pending" + mem], "1600");
  EXPECT_EQ(p.samples["slurm_assoc_tres_running" + cpu], "2");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_first_pending_priority") + kAlice], "900");
  // Every association has its counts, 0 without jobs, and no first job.
  EXPECT_EQ(p.samples[std::string("slurm_assoc_jobs_pending") + kBob], "0");
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_first_pending_priority") + kBob), 0u);
}

// A real OpenMetrics parser (the Prometheus client library's, Debian's
// python3-prometheus-client, scripts/install-deps) reads the whole text,
// and finds as many samples as it holds lines.
TEST(MetricsTest, PrometheusClientParsesIt) {
  if (std::system("/usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' "
                  "> /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no python3-prometheus-client";
  }
  std::vector<client::ControllerJob> jobs = {Job(10, 3, true, 0, 500, {2, 1000, 1}),
                                             Job(13, 5, false, 1, 700, {2, 1000, 1}, {2, 1000, 1})};
  PassStatsReading pass;
  pass.read = true;
  pass.stats.pass_end = 1764230000;
  pass.stats.duration_ms = 12.5;
  pass.stats.cpu_ms = 3.25;
  pass.stats.jobs_charged = 1;
  pass.stats.job_records = 2;
  pass.stats.job_write_lock_holds = 1;
  pass.stats.job_write_lock_held_ms = 0.5;
  pass.stats.job_write_lock_longest_ms = 0.5;
  DeliveredReading delivered;
  delivered.window_s = 30 * 86400;
  delivered.rows = {{"root", "", "", 1, 1, 1}, {"a", "alice", "", 0.5, 0.375, 0.5 / 0.375},
                    {"a", "bob", "", NAN, 0, NAN}};
  const std::string text = RenderMetrics(State(kFlagFairTree), jobs, k2205, nullptr, &pass, &delivered);
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  Parsed p = Parse(text);
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/fairway-metrics-test-" +
                           std::to_string(::getpid()) + ".txt";
  std::ofstream(path) << text;
  const std::string check =
      "/usr/bin/python3 -c 'import sys\n"
      "from prometheus_client.openmetrics.parser import text_string_to_metric_families as f\n"
      "n = sum(len(m.samples) for m in f(open(sys.argv[1]).read()))\n"
      "sys.exit(0 if n == int(sys.argv[2]) else 1)' " +
      path + " " + std::to_string(p.samples.size());
  EXPECT_EQ(std::system(check.c_str()), 0) << text;
  std::remove(path.c_str());
  EXPECT_GT(p.samples.size(), 20u);
  EXPECT_EQ(lines, p.samples.size() + 2 * p.types.size() + 1);
}

// The plugin's last pass: every family when read, only the availability
// gauge (0) when not; without a reading, none at all.
TEST(MetricsTest, PassStatistics) {
  PassStatsReading pass;
  pass.read = true;
  pass.stats.pass_end = 1764230000;
  pass.stats.duration_ms = 1500;
  pass.stats.jobs_computed = 40;
  pass.stats.jobs_stored = 7;
  pass.stats.jobs_recomputed = 2;
  pass.stats.job_write_lock_held_ms = 2.5;
  Parsed p = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205, nullptr, &pass));
  EXPECT_EQ(p.samples["fairway_pass_stats_available"], "1");
  EXPECT_EQ(p.samples["fairway_pass_last_timestamp_seconds"], "1764230000");
  EXPECT_EQ(p.samples["fairway_pass_duration_seconds"], "1.5");
  EXPECT_EQ(p.samples["fairway_pass_jobs_computed"], "40");
  EXPECT_EQ(p.samples["fairway_pass_jobs_stored"], "7");
  EXPECT_EQ(p.samples["fairway_pass_jobs_recomputed"], "2");
  EXPECT_EQ(p.samples["fairway_pass_job_write_lock_held_seconds"], "0.0025000000000000001");
  // Optional values the file did not have: no sample.
  EXPECT_EQ(p.samples.count("fairway_pass_cpu_seconds"), 0u);
  EXPECT_EQ(p.samples.count("fairway_pass_jobs_charged"), 0u);

  PassStatsReading missing;
  missing.why = "/x/fairway_pass_stats: no such file";
  Parsed q = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205, nullptr, &missing));
  EXPECT_EQ(q.samples["fairway_pass_stats_available"], "0");
  EXPECT_EQ(q.samples.count("fairway_pass_duration_seconds"), 0u);
  EXPECT_EQ(q.types.count("fairway_pass_duration_seconds"), 0u);

  Parsed none = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205));
  EXPECT_EQ(none.types.count("fairway_pass_stats_available"), 0u);
}

// Delivered against entitled (fairway report's totals): one sample per
// defined value, none for NaN.
TEST(MetricsTest, DeliveredAgainstEntitled) {
  DeliveredReading d;
  d.window_s = 7 * 86400;
  d.rows = {{"phys\"ics", "alice", "", 0.5, 0.375, 0.5 / 0.375}, {"a", "bob", "gpu", NAN, 0.25, NAN}};
  Parsed p = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205, nullptr, nullptr, &d));
  EXPECT_EQ(p.samples["fairway_delivered_window_seconds"], "604800");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_delivered_share") + kAlice], "0.5");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_entitled_share") + kAlice], "0.375");
  EXPECT_EQ(p.samples[std::string("slurm_assoc_delivered_entitled_ratio") + kAlice], "1.3333333333333333");
  const std::string bob = "{account=\"a\",user=\"bob\",partition=\"gpu\"}";
  EXPECT_EQ(p.samples[std::string("slurm_assoc_entitled_share") + bob], "0.25");
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_delivered_share") + bob), 0u);
  EXPECT_EQ(p.samples.count(std::string("slurm_assoc_delivered_entitled_ratio") + bob), 0u);
  Parsed none = Parse(RenderMetrics(State(kFlagFairTree), {}, k2205));
  EXPECT_EQ(none.types.count("slurm_assoc_delivered_share"), 0u);
}

// One HTTP/1.0 exchange with the server on 127.0.0.1:port.
std::string Fetch(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return "";
  }
  ::send(fd, request.data(), request.size(), 0);
  std::string reply;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

TEST(MetricsTest, ServesMetricsAtEachScrape) {
  std::string error;
  int fd = ListenOn("127.0.0.1:0", &error);
  ASSERT_GE(fd, 0) << error;
  const int port = BoundPort(fd);
  std::atomic<bool> stop{false};
  std::atomic<int> scrapes{0};
  std::atomic<bool> down{false};
  std::thread server([&]() {
    ServeMetrics(fd,
                 [&]() -> MetricsBody {
                   ++scrapes;
                   if (down) return {false, "cannot reach slurmctld"};
                   return {true, RenderMetrics(State(kFlagFairTree), {}, k2205)};
                 },
                 &stop);
  });
  std::string ok = Fetch(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("Content-Type: application/openmetrics-text; version=1.0.0"), std::string::npos);
  const std::string body = ok.substr(ok.find("\r\n\r\n") + 4);
  EXPECT_EQ(body, RenderMetrics(State(kFlagFairTree), {}, k2205));
  EXPECT_EQ(Fetch(port, "GET / HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_EQ(Fetch(port, "POST /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 405", 0), 0u);
  down = true;
  std::string unavailable = Fetch(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
  EXPECT_EQ(unavailable.rfind("HTTP/1.0 503", 0), 0u) << unavailable;
  EXPECT_NE(unavailable.find("cannot reach slurmctld"), std::string::npos);
  EXPECT_EQ(scrapes.load(), 2);  // the controller is read per scrape of /metrics only
  stop = true;
  server.join();
}

TEST(MetricsTest, ListenRejectsBadAddresses) {
  std::string error;
  EXPECT_LT(ListenOn("9817", &error), 0);
  EXPECT_NE(error.find("ADDR:PORT"), std::string::npos);
  EXPECT_LT(ListenOn("127.0.0.1:99999", &error), 0);
  EXPECT_NE(error.find("0 to 65535"), std::string::npos);
  EXPECT_LT(ListenOn("localhost:9817", &error), 0);
  EXPECT_NE(error.find("not an IPv4 address"), std::string::npos);
}

// Every family the shipped Grafana dashboard queries is one RenderMetrics
// writes (a renamed family would leave its panel empty).
TEST(MetricsTest, GrafanaDashboardQueriesExistingFamilies) {
  std::ifstream file(std::string(FAIRWAY_TEST_DATA) + "/../../../etc/grafana/fairway-fairshare.json");
  ASSERT_TRUE(file.good());
  std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<client::ControllerJob> jobs = {
      Job(10, 3, true, 0, 500, {2, 1000, 1}),
      Job(13, 3, false, 1, 700, {2, 1000, 1}, {2, 1000, 1})};
  // Every optional family present: pass statistics and delivered shares.
  PassStatsReading pass;
  pass.read = true;
  pass.stats.job_write_lock_held_ms = 0.5;
  DeliveredReading delivered;
  delivered.rows = {{"a", "", "", 0.5, 0.25, 2}};
  Parsed p = Parse(RenderMetrics(State(kFlagFairTree), jobs, k2205, nullptr, &pass, &delivered));
  std::set<std::string> queried;
  const std::regex family("(slurm_assoc|fairway)_[a-z_]+");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), family); it != std::sregex_iterator();
       ++it) {
    queried.insert(it->str());
  }
  EXPECT_GE(queried.size(), 6u);
  for (const std::string& name : queried) EXPECT_EQ(p.types.count(name), 1u) << name;
}

}  // namespace
}  // namespace fairway
