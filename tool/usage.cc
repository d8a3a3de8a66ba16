// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway usage audit|export` (doc/accounting.md).
#include "usage.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "local_time.h"
#include "slurmdbd/db_client.h"
#include "decay.h"
#include "fairshare.h"
#include "slurmctld/rpc_client.h"
#include "text_util.h"
#include "usage_bootstrap.h"
#include "usage_model.h"

namespace fairway {

namespace {

constexpr int kBeyondTolerance = 1;
constexpr int kError = 3;
constexpr int64_t kMaxWindow = 365 * 86400;  // as the plugin's usage bootstrap

struct CommonOptions {
  std::string slurmdbd_conf;
  std::string cluster;
};

struct AuditOptions {
  CommonOptions common;
  double tolerance_pct = 2;
  double abs = 5;
  double since_days = -1;
  bool parsable = false;
  bool json = false;
};

struct ExportOptions {
  CommonOptions common;
  double since_days = 30;
  std::string start;
  std::string out;
  std::string trace;
  uint32_t cpus = 0;
  std::string name = "export";
};

// Everything both subcommands need: the controller's tree and parameters,
// and a read-only connection to slurmdbd's database.
struct Sources {
  client::ControllerState state;
  AssocTree tree;
  std::string cluster;
  client::DbClient db;
};

bool Open(const char* cmd, const CommonOptions& o, Sources* s) {
  std::string error;
  const std::string path =
      o.slurmdbd_conf.empty() ? usage::DefaultSlurmdbdConfPath(std::getenv("SLURM_CONF")) : o.slurmdbd_conf;
  usage::SlurmdbdConf conf;
  if (!usage::ReadSlurmdbdConf(path, &conf, &error)) {
    std::fprintf(stderr, "fairway usage %s: %s\n", cmd, error.c_str());
    return false;
  }
  if (!client::LoadControllerState(&s->state, &error)) {
    std::fprintf(stderr, "fairway usage %s: %s\n", cmd, error.c_str());
    return false;
  }
  std::vector<AssocNode> nodes;
  for (const client::ControllerAssoc& a : s->state.assocs) nodes.push_back(a.node);
  if (!s->tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(s->state.params.Mode()), &error)) {
    std::fprintf(stderr, "fairway usage %s: the controller's association tree: %s\n", cmd, error.c_str());
    return false;
  }
  s->cluster = o.cluster.empty() ? s->state.cluster_name : o.cluster;
  if (s->cluster.empty()) {
    std::fprintf(stderr, "fairway usage %s: the controller reports no ClusterName: give --cluster\n", cmd);
    return false;
  }
  if (!s->db.Connect(conf, &error)) {
    std::fprintf(stderr, "fairway usage %s: %s\n", cmd, error.c_str());
    return false;
  }
  return true;
}

void ReportSkipped(const char* cmd, const std::vector<client::DbSkipped>& skipped) {
  for (size_t i = 0; i < skipped.size() && i < 20; ++i) {
    std::fprintf(stderr, "fairway usage %s: warning: job %s skipped: %s\n", cmd, skipped[i].job.c_str(),
                 skipped[i].what.c_str());
  }
  if (skipped.size() > 20) {
    std::fprintf(stderr, "fairway usage %s: warning: %zu more malformed job rows skipped\n", cmd,
                 skipped.size() - 20);
  }
  if (!skipped.empty()) {
    std::fprintf(stderr, "fairway usage %s: warning: %zu malformed job row%s skipped in all\n", cmd,
                 skipped.size(), skipped.size() == 1 ? "" : "s");
  }
}

std::string Num(long double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1Lf", v);
  return buf;
}

std::string TimeText(int64_t t) {
  if (t <= 0) return "the beginning";
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

int RunAudit(const AuditOptions& o) {
  Sources s;
  if (!Open("audit", o.common, &s)) return kError;
  const int64_t now = std::time(nullptr);
  const int64_t half_life = s.state.params.decay_half_life_s;
  int64_t since = 0;
  if (o.since_days >= 0) {
    since = now - std::llround(o.since_days * 86400);
  } else if (half_life > 0) {
    // Older jobs weigh under 0.1% after ten half-lives (as the bootstrap).
    since = now - std::min<int64_t>(10 * half_life, kMaxWindow);
  }
  std::vector<usage::DbJob> jobs;
  std::vector<client::DbSkipped> skipped;
  std::string error;
  if (!s.db.LoadJobs(s.cluster, since, &jobs, &skipped, &error)) {
    std::fprintf(stderr, "fairway usage audit: %s\n", error.c_str());
    return kError;
  }
  ReportSkipped("audit", skipped);

  const double f = DecayFactorPerSecond(half_life);
  const int64_t period = std::max<int64_t>(s.state.params.calc_period_s, 1);
  std::vector<JobUsageRecord> records, recent;
  size_t unknown = 0;
  for (const usage::DbJob& j : jobs) {
    if (!j.assoc_id) continue;
    if (s.tree.Find(j.assoc_id) < 0) ++unknown;
    JobUsageRecord r;
    r.assoc_id = j.assoc_id;
    r.start = j.start;
    r.end = j.end;
    r.billing = j.billing;
    records.push_back(r);
    // Running, or ended since the controller's last pass may have run: the
    // controller may not have charged all of it yet.
    if (j.end == 0 || j.end > now - period) recent.push_back(r);
  }
  std::vector<long double> db = SubtreeUsage(s.tree, DecayedUsageByAssoc(records, now, f));
  std::map<uint32_t, long double> running_rate;
  for (const JobUsageRecord& r : recent) running_rate[r.assoc_id] += r.billing;
  std::vector<long double> running = SubtreeUsage(s.tree, running_rate);
  std::vector<long double> controller;
  for (const AssocNode& n : s.tree.nodes()) controller.push_back(n.usage_raw);

  usage::AuditTolerance tol;
  tol.relative = o.tolerance_pct / 100;
  tol.absolute = o.abs;
  tol.calc_period_s = period;
  std::vector<usage::AuditRow> rows = usage::CompareUsage(s.tree, db, controller, running, tol);
  size_t bad = 0;
  for (const usage::AuditRow& r : rows) bad += !r.ok;

  if (o.json) {
    nlohmann::json j;
    j["cluster"] = s.cluster;
    j["now"] = now;
    j["since"] = since;
    j["half_life_s"] = half_life;
    j["jobs"] = records.size();
    j["skipped_rows"] = skipped.size();
    j["jobs_of_unknown_associations"] = unknown;
    j["tolerance"] = {{"relative", tol.relative}, {"absolute", tol.absolute},
                      {"calc_period_s", tol.calc_period_s}};
    j["beyond_tolerance"] = bad;
    j["associations"] = nlohmann::json::array();
    for (const usage::AuditRow& r : rows) {
      j["associations"].push_back({{"id", r.assoc_id},
                                   {"account", r.account},
                                   {"user", r.user},
                                   {"partition", r.partition},
                                   {"db", static_cast<double>(r.db)},
                                   {"controller", static_cast<double>(r.controller)},
                                   {"difference", static_cast<double>(r.difference)},
                                   {"allowed", static_cast<double>(r.allowed)},
                                   {"running", r.running},
                                   {"ok", r.ok}});
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else if (o.parsable) {
    std::printf("Account|User|Partition|DB|Controller|Difference|Allowed|Status\n");
    for (const usage::AuditRow& r : rows) {
      std::printf("%s|%s|%s|%s|%s|%s|%s|%s\n", r.account.c_str(), r.user.c_str(), r.partition.c_str(),
                  Num(r.db).c_str(), Num(r.controller).c_str(), Num(r.difference).c_str(),
                  Num(r.allowed).c_str(), r.ok ? "ok" : "DIFFERS");
    }
  } else {
    std::printf("Cluster %s: %zu jobs in slurmdbd since %s, decayed to now with half-life %llds\n",
                s.cluster.c_str(), records.size(), TimeText(since).c_str(), static_cast<long long>(half_life));
    std::printf("%-24s %-12s %16s %16s %14s %12s  %s\n", "Account", "User", "DB", "Controller",
                "Difference", "Allowed", "Status");
    for (const usage::AuditRow& r : rows) {
      std::string acct = std::string(static_cast<size_t>(r.depth), ' ') + r.account;
      if (!r.partition.empty()) acct += " (" + r.partition + ")";
      std::printf("%-24s %-12s %16s %16s %14s %12s  %s%s\n", acct.c_str(), r.user.c_str(),
                  Num(r.db).c_str(), Num(r.controller).c_str(), Num(r.difference).c_str(),
                  Num(r.allowed).c_str(), r.ok ? "ok" : "DIFFERS", r.running ? " (running jobs)" : "");
    }
    std::printf("%zu associations, %zu beyond tolerance (%.3g%% or %.3g billing-seconds, whichever is "
                "larger, plus running jobs x %llds)\n",
                rows.size(), bad, o.tolerance_pct, o.abs, static_cast<long long>(period));
    if (unknown) {
      std::printf("note: %zu jobs belong to associations the controller does not have (deleted?)\n", unknown);
    }
  }
  return bad ? kBeyondTolerance : 0;
}

int RunExport(const ExportOptions& o) {
  const int64_t now = std::time(nullptr);
  int64_t since = now - std::llround(o.since_days * 86400);
  if (!o.start.empty() && !ParseLocalTime(o.start, &since)) {
    std::fprintf(stderr, "fairway usage export: --start '%s' is neither Unix seconds nor YYYY-MM-DD[THH:MM[:SS]]\n",
                 o.start.c_str());
    return 2;
  }
  Sources s;
  if (!Open("export", o.common, &s)) return kError;
  std::vector<usage::DbJob> jobs;
  std::vector<client::DbSkipped> skipped;
  std::vector<client::DbAssoc> assocs;
  std::map<uint32_t, std::string> qos;
  std::string error;
  if (!s.db.LoadJobs(s.cluster, since, &jobs, &skipped, &error) ||
      !s.db.LoadAssocs(s.cluster, &assocs, &error) || !s.db.LoadQos(&qos, &error)) {
    std::fprintf(stderr, "fairway usage export: %s\n", error.c_str());
    return kError;
  }
  ReportSkipped("export", skipped);
  std::map<uint32_t, std::string> names;
  for (const client::DbAssoc& a : assocs) {
    std::string n = a.user.empty() ? a.acct : a.acct + "/" + a.user;
    if (!a.partition.empty()) n += "/" + a.partition;
    names[a.id] = n;
  }
  for (const AssocNode& n : s.tree.nodes()) {
    std::string label = n.is_user() ? n.acct + "/" + n.user : n.acct;
    if (!n.partition.empty()) label += "/" + n.partition;
    names[n.id] = label;
  }
  usage::ExportInput in;
  in.name = o.name;
  in.cluster = s.cluster;
  in.cpus = o.cpus ? o.cpus : (s.state.usable_cpus ? s.state.usable_cpus : s.state.cluster_cpus);
  in.half_life_s = s.state.params.decay_half_life_s;
  in.now = now;
  in.tree = &s.tree;
  for (const usage::DbJob& j : jobs) {
    if (j.submit < since) continue;  // jobs submitted in the period only
    usage::ExportJob e;
    e.job_id = j.job_id;
    e.submit = j.submit;
    e.start = j.start;
    e.end = j.end;
    e.assoc_id = j.assoc_id;
    auto name = names.find(j.assoc_id);
    e.assoc = name == names.end() ? "assoc" + std::to_string(j.assoc_id) : name->second;
    e.billing = j.billing;
    e.cpus = j.cpus;
    e.partition = j.partition;
    auto q = qos.find(j.qos_id);
    e.qos = q == qos.end() ? std::to_string(j.qos_id) : q->second;
    in.jobs.push_back(std::move(e));
  }
  std::ostringstream scenario;
  if (!usage::WriteExportScenario(in, scenario, &error)) {
    std::fprintf(stderr, "fairway usage export: %s (since %s)\n", error.c_str(), TimeText(since).c_str());
    return kError;
  }
  if (!o.trace.empty()) {
    std::ofstream t(o.trace);
    usage::WriteExportTrace(in.jobs, t);
    t.close();
    if (!t) {
      std::fprintf(stderr, "fairway usage export: %s: cannot write\n", o.trace.c_str());
      return kError;
    }
  }
  if (o.out.empty() || o.out == "-") {
    std::fwrite(scenario.str().data(), 1, scenario.str().size(), stdout);
    std::fflush(stdout);
  } else {
    std::ofstream out(o.out);
    out << scenario.str();
    out.close();
    if (!out) {
      std::fprintf(stderr, "fairway usage export: %s: cannot write\n", o.out.c_str());
      return kError;
    }
  }
  std::fprintf(stderr, "fairway usage export: %zu jobs of cluster %s submitted since %s, %u CPUs\n",
               in.jobs.size(), s.cluster.c_str(), TimeText(since).c_str(), in.cpus);
  return 0;
}

void AddCommon(CLI::App* sub, CommonOptions* o) {
  sub->add_option("--slurmdbd-conf", o->slurmdbd_conf,
                  "slurmdbd.conf with the database credentials (default: next to $SLURM_CONF, "
                  "else /etc/slurm/slurmdbd.conf); must be mode 0600 or stricter");
  sub->add_option("--cluster", o->cluster, "cluster whose tables to read (default: the controller's ClusterName)");
}

}  // namespace

void RegisterUsageCommand(CLI::App& app) {
  CLI::App* usage = app.add_subcommand(
      "usage", "Read slurmdbd's database: audit the controller's usage, export a job trace "
               "(see doc/accounting.md)");
  usage->require_subcommand(1);

  auto audit = std::make_shared<AuditOptions>();
  CLI::App* a = usage->add_subcommand(
      "audit", "Rebuild every association's decayed usage from the job records and compare it "
               "with the controller's (exit 1 when any differs beyond the tolerance)");
  AddCommon(a, &audit->common);
  a->add_option("--tolerance", audit->tolerance_pct, "relative tolerance in percent (default 2)")
      ->check(CLI::NonNegativeNumber);
  a->add_option("--abs", audit->abs, "absolute tolerance in billing-seconds (default 5)")
      ->check(CLI::NonNegativeNumber);
  a->add_option("--since", audit->since_days,
                "days of job records to read (default: 10 half-lives; without decay: all)")
      ->check(CLI::NonNegativeNumber);
  a->add_flag("-P,--parsable", audit->parsable, "'|'-separated output");
  a->add_flag("--json", audit->json, "JSON output");
  a->callback([audit]() {
    int rc = RunAudit(*audit);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });

  auto exp = std::make_shared<ExportOptions>();
  CLI::App* e = usage->add_subcommand(
      "export", "Write the recorded jobs as a scenario that `fairway simulate -` replays");
  AddCommon(e, &exp->common);
  auto since = e->add_option("--since", exp->since_days, "jobs submitted in the last DAYS days (default 30)")
      ->check(CLI::NonNegativeNumber);
  e->add_option("--start", exp->start, "jobs submitted from TIME (Unix seconds or YYYY-MM-DD[THH:MM[:SS]])")
      ->excludes(since);
  e->add_option("--out", exp->out, "scenario file (default: standard output)");
  e->add_option("--trace", exp->trace,
                "also write the full trace CSV (submit,start,end,job,association,billing,cpus,partition,qos)");
  e->add_option("--cpus", exp->cpus, "CPUs of the simulated machine (default: the cluster's, FUTURE nodes excluded)");
  e->add_option("--name", exp->name, "scenario name (default export)");
  e->callback([exp]() {
    int rc = RunExport(*exp);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
