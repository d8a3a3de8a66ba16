// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway usage` without a database: slurmdbd.conf parsing and the
// permission refusal, the audit comparison, the export scenario
// (the `job` keyword, stdin) and its fifo replay.
#include "usage_model.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "io/scenario_file.h"
#include "io/slurmdbd_conf_reader.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace fairway {
namespace {

using usage::SlurmdbdConf;

std::string TempFile(const std::string& text, mode_t mode) {
  char name[] = "/tmp/fairway-usage-test.XXXXXX";
  int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  chmod(name, mode);
  return name;
}

TEST(UsageConf, ParsesStorageKeysAndDefaults) {
  std::istringstream in(
      "# comment\nStorageType=accounting_storage/mysql\n storagehost = db1 \nStoragePort=3307\n"
      "StorageUser=slurm\nStoragePass=se=cr#et\nDbdPort=6819\n");
  SlurmdbdConf c;
  std::string error;
  ASSERT_TRUE(usage::ParseSlurmdbdConf(in, "x.conf", &c, &error)) << error;
  EXPECT_EQ(c.host, "db1");
  EXPECT_EQ(c.port, 3307u);
  EXPECT_EQ(c.user, "slurm");
  EXPECT_EQ(c.pass, "se=cr");  // '#' starts a comment, as in slurmdbd.conf
  EXPECT_EQ(c.loc, "slurm_acct_db");

  std::istringstream defaults("StorageUser=u\n");
  SlurmdbdConf d;
  ASSERT_TRUE(usage::ParseSlurmdbdConf(defaults, "y.conf", &d, &error));
  EXPECT_EQ(d.host, "localhost");
  EXPECT_EQ(d.port, 3306u);

  std::istringstream bad("StorageUser=u\nStoragePort=99999\n");
  SlurmdbdConf b;
  EXPECT_FALSE(usage::ParseSlurmdbdConf(bad, "z.conf", &b, &error));
  EXPECT_NE(error.find("z.conf:2: StoragePort '99999'"), std::string::npos) << error;
}

TEST(UsageConf, RefusesFilesOthersCanRead) {
  std::string path = TempFile("StorageUser=slurm\nStoragePass=pw\n", 0644);
  SlurmdbdConf c;
  std::string error;
  EXPECT_FALSE(usage::ReadSlurmdbdConf(path, &c, &error));
  EXPECT_NE(error.find(path + " has mode 0644"), std::string::npos) << error;
  EXPECT_EQ(error.find("pw"), std::string::npos) << "the password must not appear";
  chmod(path.c_str(), 0640);
  EXPECT_FALSE(usage::ReadSlurmdbdConf(path, &c, &error));
  EXPECT_NE(error.find("0640"), std::string::npos) << error;
  chmod(path.c_str(), 0600);
  ASSERT_TRUE(usage::ReadSlurmdbdConf(path, &c, &error)) << error;
  EXPECT_EQ(c.user, "slurm");
  EXPECT_EQ(c.path, path);
  chmod(path.c_str(), 0400);
  EXPECT_TRUE(usage::ReadSlurmdbdConf(path, &c, &error)) << error;
  unlink(path.c_str());
  EXPECT_FALSE(usage::ReadSlurmdbdConf(path, &c, &error));
  EXPECT_NE(error.find(path), std::string::npos);
}

TEST(UsageConf, DefaultPathFollowsSlurmConf) {
  EXPECT_EQ(usage::DefaultSlurmdbdConfPath("/x/etc/slurm.conf"), "/x/etc/slurmdbd.conf");
  EXPECT_EQ(usage::DefaultSlurmdbdConfPath("slurm.conf"), "./slurmdbd.conf");
  EXPECT_EQ(usage::DefaultSlurmdbdConfPath(nullptr), "/etc/slurm/slurmdbd.conf");
  EXPECT_EQ(usage::DefaultSlurmdbdConfPath(""), "/etc/slurm/slurmdbd.conf");
}

// root {a (3) {u1, u2}, b (1) {u3}}
AssocTree Tree() {
  std::vector<AssocNode> nodes(6);
  nodes[0].id = 1; nodes[0].acct = "root";
  nodes[1].id = 2; nodes[1].parent_id = 1; nodes[1].acct = "a"; nodes[1].shares_raw = 3;
  nodes[2].id = 3; nodes[2].parent_id = 1; nodes[2].acct = "b"; nodes[2].shares_raw = 1;
  nodes[3].id = 4; nodes[3].parent_id = 2; nodes[3].acct = "a"; nodes[3].user = "u1";
  nodes[4].id = 5; nodes[4].parent_id = 2; nodes[4].acct = "a"; nodes[4].user = "u2";
  nodes[5].id = 6; nodes[5].parent_id = 3; nodes[5].acct = "b"; nodes[5].user = "u3";
  AssocTree tree;
  std::string error;
  EXPECT_TRUE(tree.Build(nodes, false, &error)) << error;
  return tree;
}

TEST(UsageAudit, ToleranceIsTheLargerOfRelativeAndAbsolute) {
  AssocTree tree = Tree();
  const size_t n = tree.nodes().size();
  std::vector<long double> db(n, 0), ctl(n, 0);
  auto at = [&](uint32_t id) { return static_cast<size_t>(tree.Find(id)); };
  db[at(4)] = 1000; ctl[at(4)] = 1019;   // 1.9%: ok
  db[at(5)] = 1000; ctl[at(5)] = 1021;   // 2.1%: differs
  db[at(6)] = 3;    ctl[at(6)] = 7;      // 4 billing-seconds: ok (absolute 5)
  db[at(2)] = 2000; ctl[at(2)] = 2040;
  db[at(3)] = 100;  ctl[at(3)] = 110;    // 10 > max(2.2, 5): differs
  usage::AuditTolerance tol;             // 2%, 5
  std::vector<usage::AuditRow> rows = usage::CompareUsage(tree, db, ctl, {}, tol);
  ASSERT_EQ(rows.size(), n);
  EXPECT_TRUE(rows[at(4)].ok);
  EXPECT_FALSE(rows[at(5)].ok);
  EXPECT_TRUE(rows[at(6)].ok);
  EXPECT_TRUE(rows[at(2)].ok);
  EXPECT_FALSE(rows[at(3)].ok);
  EXPECT_NEAR(static_cast<double>(rows[at(5)].difference), 21, 1e-9);
  EXPECT_NEAR(static_cast<double>(rows[at(5)].allowed), 20.42, 1e-9);
  EXPECT_EQ(rows[at(5)].user, "u2");
  EXPECT_EQ(rows[at(5)].depth, 2);

  // A running job of b/u3 (billing 2) with a 60 s calc period: 120 more.
  std::vector<long double> running(n, 0);
  running[at(6)] = 2;
  running[at(3)] = 2;
  running[at(1)] = 2;
  ctl[at(3)] = 200;
  tol.calc_period_s = 60;
  rows = usage::CompareUsage(tree, db, ctl, running, tol);
  EXPECT_TRUE(rows[at(3)].ok);
  EXPECT_TRUE(rows[at(3)].running);
  EXPECT_FALSE(rows[at(2)].running);
}

usage::ExportJob Job(uint32_t id, int64_t submit, int64_t start, int64_t end, const std::string& assoc,
                     uint64_t cpus) {
  usage::ExportJob j;
  j.job_id = id;
  j.submit = submit;
  j.start = start;
  j.end = end;
  j.assoc = assoc;
  j.cpus = cpus;
  j.billing = static_cast<double>(cpus);
  j.partition = "debug";
  j.qos = "normal";
  return j;
}

TEST(UsageExport, ScenarioRoundTripsThroughTheParser) {
  AssocTree tree = Tree();
  usage::ExportInput in;
  in.cluster = "c1";
  in.cpus = 2;
  in.tree = &tree;
  in.now = 1000500;
  in.jobs = {Job(12, 1000010, 1000030, 1000090, "a/u1", 2), Job(11, 1000000, 1000000, 1000030, "b/u3", 1),
             Job(13, 1000020, 1000090, 0, "a/u2", 1)};
  std::ostringstream out;
  std::string error;
  ASSERT_TRUE(usage::WriteExportScenario(in, out, &error)) << error;
  const std::string text = out.str();
  EXPECT_NE(text.find("nodes 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("account a parent root shares 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("user a/u1 shares 1 account a\n"), std::string::npos) << text;
  EXPECT_NE(text.find("job 0 b/u3 1 30 start 0 id 11\n"), std::string::npos) << text;
  EXPECT_NE(text.find("job 20 a/u2 1 410 start 90 id 13"), std::string::npos) << text;

  std::istringstream again(text);
  sim::Scenario s;
  ASSERT_TRUE(ReadScenario(again, "<export>", "", &s, &error)) << error << "\n" << text;
  ASSERT_EQ(s.trace.size(), 3u);
  EXPECT_EQ(s.trace[1].user, "a/u1");
  EXPECT_EQ(s.trace[1].submit_s, 10);
  EXPECT_EQ(s.trace[1].nodes, 2u);
  EXPECT_EQ(s.trace[1].duration_s, 60);
  EXPECT_EQ(s.trace[1].recorded_start_s, 30);
  EXPECT_EQ(s.trace[1].id, 12);
  EXPECT_EQ(s.policies, std::vector<std::string>{"fifo"});

  std::ostringstream csv;
  usage::WriteExportTrace(in.jobs, csv);
  EXPECT_EQ(csv.str(),
            "submit,start,end,job,association,billing,cpus,partition,qos\n"
            "1000000,1000000,1000030,11,b/u3,1,1,debug,normal\n"
            "1000010,1000030,1000090,12,a/u1,2,2,debug,normal\n"
            "1000020,1000090,,13,a/u2,1,1,debug,normal\n");

  in.cpus = 1;
  EXPECT_FALSE(usage::WriteExportScenario(in, out, &error));
  EXPECT_NE(error.find("job 12 ran on 2 CPUs"), std::string::npos) << error;
  in.jobs.clear();
  EXPECT_FALSE(usage::WriteExportScenario(in, out, &error));
}

std::string ScenarioError(const std::string& text) {
  std::istringstream in(text);
  sim::Scenario s;
  std::string error;
  return ReadScenario(in, "s.scenario", "", &s, &error) ? "" : error;
}

TEST(UsageScenario, JobKeywordErrors) {
  const std::string head = "nodes 2\ndays 1\nuser a shares 1\n";
  EXPECT_EQ(ScenarioError(head + "job 0 a 1 60\n"), "");
  EXPECT_EQ(ScenarioError(head + "job 0 a 1 60 start 5 id 7\n"), "");
  EXPECT_NE(ScenarioError(head + "job 0 b 1 60\n").find("s.scenario:4: job: user 'b' is not defined above"),
            std::string::npos);
  EXPECT_NE(ScenarioError(head + "job 0 a 0 60\n").find("s.scenario:4: job nodes"), std::string::npos);
  EXPECT_NE(ScenarioError(head + "job 0 a 1 0\n").find("s.scenario:4: job duration"), std::string::npos);
  EXPECT_NE(ScenarioError(head + "job 0 a 1\n").find("s.scenario:4: job: expected"), std::string::npos);
  EXPECT_NE(ScenarioError(head + "job 0 a 1 60 foo 1\n").find("unknown field 'foo'"), std::string::npos);
  EXPECT_NE(ScenarioError(head + "job 0 a 3 60\n").find("more than the machine's"), std::string::npos);
  EXPECT_EQ(ScenarioError(head + "policies fifo classic\njob 0 a 1 60\n"), "");
}

TEST(UsageScenario, DashReadsStandardInput) {
  std::istringstream text("name piped\nnodes 1\ndays 1\nuser a shares 1\njob 5 a 1 60\n");
  std::streambuf* old = std::cin.rdbuf(text.rdbuf());
  sim::Scenario s;
  std::string error;
  bool ok = ReadScenarioFile("-", &s, &error);
  std::cin.rdbuf(old);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(s.name, "piped");
  EXPECT_EQ(s.source, "<stdin>");
  ASSERT_EQ(s.trace.size(), 1u);
  EXPECT_EQ(s.trace[0].submit_s, 5);
}

// Two CPUs. FIFO by hand: 1 (a, 1 cpu, 0..100) and 2 (b, 2 cpus) at t=0:
// 2 waits for 1 (no backfill), so 3 (c, 1 cpu, submitted at 10) waits too,
// although a CPU is free: 1 at 0, 2 at 100 (to 150), 3 at 150, 4 (a, at 20)
// at 150 on the other CPU.
TEST(UsageScenario, FifoStartsInSubmissionOrder) {
  std::istringstream text(
      "nodes 2\ndays 1\nuser a shares 1\nuser b shares 100\nuser c shares 1000\npolicies fifo\n"
      "job 0 a 1 100 id 1\njob 0 b 2 50 id 2\njob 10 c 1 30 id 3\njob 20 a 1 30 id 4\n");
  sim::Scenario s;
  std::string error;
  ASSERT_TRUE(ReadScenario(text, "fifo", "", &s, &error)) << error;
  sim::SimResult r;
  ASSERT_TRUE(sim::RunSimulation(s, "fifo", nullptr, &r, &error)) << error;
  std::ostringstream csv;
  sim::WriteJobsCsv(r, csv);
  EXPECT_EQ(csv.str(),
            "job,user,submit,start,end,recorded_start\n"
            "1,a,0,0,100,\n"
            "2,b,0,100,150,\n"
            "3,c,10,150,180,\n"
            "4,a,20,150,180,\n");
}

}  // namespace
}  // namespace fairway
