// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway report`: reads the association tree and the usage roll-ups of
// one TRES from slurmdbd's database (read-only, as `fairway usage`), builds
// report::Report and prints it as a table, CSV or JSON, with gnuplot plots
// on request. Exit codes: 0 success, 2 usage error, 3 the database or the
// configuration could not be read.
#include "report.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "io/slurm_conf_reader.h"
#include "io/slurmdbd_conf_reader.h"
#include "local_time.h"
#include "params.h"
#include "report_model.h"
#include "report_source.h"
#include "shell_util.h"
#include "slurmdbd/db_client.h"
#include "text_util.h"

namespace fairway {

namespace {

constexpr int kUsageError = 2;
constexpr int kError = 3;
// Plots stay readable: the per-level charts of the accounts with the most
// usage, and the heat map's rows with the most usage.
constexpr size_t kMaxLevelCharts = 24;
constexpr size_t kMaxHeatRows = 120;

struct ReportOptions {
  std::string slurm_conf;
  std::string slurmdbd_conf;
  std::string cluster;
  std::string start, end;
  std::string by = "day";
  std::string tres = "cpu";
  std::string tz;
  std::string format = "table";
  std::string plot_dir;
  bool planned_use = false;
  std::string clusters;  // --clusters NAME[:SCALE],...
};

std::string Fixed(double v, int digits) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Csv(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

nlohmann::json Json(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

std::string SharesText(const report::Node& n) {
  return n.uses_parent ? "parent" : std::to_string(n.shares);
}

// The name a chart or a table row shows: "acct" or "acct/user[@part]".
std::string Path(const report::Node& n) {
  std::string s = n.acct;
  if (n.is_user()) s += "/" + n.user;
  if (!n.partition.empty()) s += "@" + n.partition;
  return s;
}

std::string BucketLabel(report::Granularity by, const report::Bucket& b) {
  return by == report::Granularity::kHour ? FormatLocal(b.start) : FormatLocal(b.start, true);
}

void PrintTable(const report::Report& r, const std::string& header) {
  std::printf("%s\n", header.c_str());
  const bool pu = r.planned_use();
  std::printf("%-28s %-12s %7s %8s %10s %12s %11s %12s %7s %8s%s\n", "Account", "User", "Shares",
              "EntLevel", "EntMachine", "Usage(h)", "DelivParent", "DelivCluster", "Ratio", "Error",
              pu ? "    PlanU" : "");
  for (size_t i = 0; i < r.nodes().size(); ++i) {
    const report::Node& n = r.nodes()[i];
    const report::Cell c = r.Total(i);
    std::string account = std::string(static_cast<size_t>(n.depth), ' ') + (n.is_user() ? "" : n.acct);
    if (n.is_user()) account = std::string(static_cast<size_t>(n.depth), ' ') + n.acct;
    std::string user = n.user + (n.partition.empty() ? "" : "@" + n.partition);
    std::string flags = n.deleted ? " (deleted)" : n.orphan ? " (orphan)" : "";
    std::printf("%-28s %-12s %7s %8s %10s %12s %11s %12s %7s %8s%s%s\n", account.c_str(), user.c_str(),
                SharesText(n).c_str(), Fixed(n.entitled_level, 4).c_str(),
                Fixed(n.entitled_machine, 4).c_str(), Fixed(c.usage_secs / 3600.0, 2).c_str(),
                Fixed(c.delivered_parent, 4).c_str(), Fixed(c.delivered_cluster, 4).c_str(),
                Fixed(c.ratio, 3).c_str(), Fixed(c.error, 4).c_str(),
                pu ? (" " + std::string(8 - std::min<size_t>(8, Fixed(c.plan_u, 3).size()), ' ') +
                      Fixed(c.plan_u, 3))
                         .c_str()
                   : "",
                flags.c_str());
  }
}

void CsvRow(const report::Report& r, size_t i, const std::string& bucket, const std::string& start,
            const std::string& end, double coverage, const report::Cell& c) {
  const report::Node& n = r.nodes()[i];
  std::printf("%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%llu,%s,%s,%s,%s,%s,%s\n", bucket.c_str(),
              start.c_str(), end.c_str(), Csv(coverage).c_str(), n.acct.c_str(), n.user.c_str(),
              n.partition.c_str(), n.depth, n.deleted ? 1 : 0, SharesText(n).c_str(),
              Csv(n.entitled_level).c_str(), Csv(n.entitled_machine).c_str(),
              static_cast<unsigned long long>(c.usage_secs), Csv(c.delivered_parent).c_str(),
              Csv(c.delivered_cluster).c_str(), Csv(c.ratio).c_str(), Csv(c.level_ratio).c_str(),
              Csv(c.error).c_str(), Csv(c.plan_u).c_str());
}

void PrintCsv(const report::Report& r) {
  std::printf(
      "bucket,start,end,coverage,account,user,partition,depth,deleted,shares,entitled_level,"
      "entitled_machine,usage_secs,delivered_parent,delivered_cluster,ratio,level_ratio,error,plan_u\n");
  const auto& buckets = r.buckets();
  for (size_t b = 0; b < buckets.size(); ++b) {
    const std::string label = BucketLabel(r.by(), buckets[b]);
    const std::string s = FormatLocal(buckets[b].start), e = FormatLocal(buckets[b].end);
    for (size_t i = 0; i < r.nodes().size(); ++i) {
      CsvRow(r, i, label, s, e, buckets[b].coverage(), r.At(i, b));
    }
  }
  const double coverage =
      buckets.empty() ? 0 : 1.0 - static_cast<double>(r.missing_buckets()) / buckets.size();
  for (size_t i = 0; i < r.nodes().size(); ++i) {
    CsvRow(r, i, "total", FormatLocal(buckets.front().start), FormatLocal(buckets.back().end), coverage,
           r.Total(i));
  }
}

nlohmann::json CellJson(const report::Cell& c) {
  return {{"usage_secs", c.usage_secs},           {"delivered_parent", Json(c.delivered_parent)},
          {"delivered_cluster", Json(c.delivered_cluster)}, {"ratio", Json(c.ratio)},
          {"level_ratio", Json(c.level_ratio)},   {"error", Json(c.error)},
          {"plan_u", Json(c.plan_u)}};
}

void PrintJson(const report::Report& r, const nlohmann::json& head) {
  nlohmann::json out = head;
  nlohmann::json buckets = nlohmann::json::array();
  for (const report::Bucket& b : r.buckets()) {
    buckets.push_back({{"start", b.start},
                       {"end", b.end},
                       {"label", BucketLabel(r.by(), b)},
                       {"coverage", b.coverage()},
                       {"missing", b.missing()},
                       {"capacity_secs", b.capacity_secs}});
  }
  out["buckets"] = buckets;
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < r.nodes().size(); ++i) {
    const report::Node& n = r.nodes()[i];
    nlohmann::json series = {{"usage_secs", nlohmann::json::array()},
                             {"delivered_parent", nlohmann::json::array()},
                             {"delivered_cluster", nlohmann::json::array()},
                             {"ratio", nlohmann::json::array()}};
    for (size_t b = 0; b < r.buckets().size(); ++b) {
      const report::Cell c = r.At(i, b);
      series["usage_secs"].push_back(c.usage_secs);
      series["delivered_parent"].push_back(Json(c.delivered_parent));
      series["delivered_cluster"].push_back(Json(c.delivered_cluster));
      series["ratio"].push_back(Json(c.ratio));
    }
    nlohmann::json node = {{"id", n.id},
                           {"account", n.acct},
                           {"user", n.user},
                           {"partition", n.partition},
                           {"parent", n.parent},
                           {"depth", n.depth},
                           {"deleted", n.deleted},
                           {"orphan", n.orphan},
                           {"shares", n.uses_parent ? nlohmann::json("parent") : nlohmann::json(n.shares)},
                           {"entitled_level", Json(n.entitled_level)},
                           {"entitled_machine", Json(n.entitled_machine)},
                           {"total", CellJson(r.Total(i))},
                           {"series", series}};
    nodes.push_back(node);
  }
  out["nodes"] = nodes;
  std::cout << out.dump(1) << "\n";
}

bool WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "fairway report: %s: cannot write\n", path.c_str());
  return static_cast<bool>(out);
}

std::string FileSafe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

// The plots of doc/report.md: per account with children, its children's
// delivered share of it over time against their entitled level share
// (share-<account>.png); and a heat map of log2(delivered / entitled) of
// the machine, node by bucket (heatmap.png).
bool Plot(const report::Report& r, const std::string& dir_name, const std::string& title) {
  namespace fs = std::filesystem;
  const fs::path dir(dir_name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "fairway report: cannot create %s: %s\n", dir_name.c_str(), ec.message().c_str());
    return false;
  }
  const auto& nodes = r.nodes();
  const auto& buckets = r.buckets();
  // series.dat: bucket start, then delivered_parent of every node.
  std::ostringstream data;
  data << "# bucket_start";
  for (const report::Node& n : nodes) data << " " << FileSafe(Path(n));
  data << "\n";
  // The last bucket is repeated at its end, so that "steps" draws it.
  for (size_t row = 0; row <= buckets.size(); ++row) {
    const size_t b = std::min(row, buckets.size() - 1);
    data << (row < buckets.size() ? buckets[b].start : buckets[b].end);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const double v = r.At(i, b).delivered_parent;
      data << " " << (std::isnan(v) ? std::string("NaN") : Csv(v));
    }
    data << "\n";
  }
  // The accounts with children, the most used first.
  std::vector<size_t> accounts;
  std::vector<std::vector<size_t>> kids(nodes.size());
  for (size_t i = 1; i < nodes.size(); ++i) {
    const int32_t p = nodes[i].fs_parent;
    if (p >= 0 && !nodes[i].uses_parent) kids[p].push_back(i);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!kids[i].empty()) accounts.push_back(i);
  }
  std::stable_sort(accounts.begin(), accounts.end(),
                   [&r](size_t a, size_t b) { return r.Total(a).usage_secs > r.Total(b).usage_secs; });
  if (accounts.size() > kMaxLevelCharts) accounts.resize(kMaxLevelCharts);
  const bool hourly = r.by() == report::Granularity::kHour;
  std::ostringstream g;
  g << "# Generated by fairway report; run: gnuplot report.gp\n"
    << "set terminal pngcairo size 900,500\nset datafile missing 'NaN'\n"
    << "set xdata time\nset timefmt '%s'\nset format x '" << (hourly ? "%m-%d %H:%M" : "%Y-%m-%d") << "'\n"
    << "set xtics rotate by -30\nset grid\nset key outside right\nset yrange [0:1]\n"
    << "set ylabel 'share of the parent'\n"
    << "set xrange [" << buckets.front().start << ":" << buckets.back().end << "]\n";
  for (size_t a : accounts) {
    g << "set output " << GnuplotQuote("share-" + FileSafe(nodes[a].acct) + ".png") << "\n"
      << "set title " << GnuplotQuote(title + ": children of " + Path(nodes[a]) + " (solid: delivered, dashed: entitled)") << "\n"
      << "plot ";
    for (size_t k = 0; k < kids[a].size(); ++k) {
      const size_t i = kids[a][k];
      const std::string name = nodes[i].is_user() ? nodes[i].user : nodes[i].acct;
      g << (k ? ", \\\n     " : "") << "'series.dat' using 1:" << i + 2 << " with steps lw 2 lc " << k + 1
        << " title " << GnuplotQuote(name) << ", " << Csv(nodes[i].entitled_level)
        << " with lines dt 2 lc " << k + 1 << " notitle";
    }
    g << "\n";
  }
  // heatmap.dat: one row per node (the most used), one column per bucket.
  std::vector<size_t> rows;
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (!nodes[i].uses_parent) rows.push_back(i);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&r](size_t a, size_t b) { return r.Total(a).usage_secs > r.Total(b).usage_secs; });
  if (rows.size() > kMaxHeatRows) rows.resize(kMaxHeatRows);
  std::sort(rows.begin(), rows.end());  // back to tree order
  std::ostringstream heat;
  for (size_t row = 0; row < rows.size(); ++row) {
    for (size_t b = 0; b < buckets.size(); ++b) {
      const report::Cell c = r.At(rows[row], b);
      double v = std::log2(c.ratio);
      if (!std::isnan(c.ratio) && c.ratio == 0) v = -3;  // entitled, nothing delivered
      if (!std::isnan(v)) v = std::max(-3.0, std::min(3.0, v));
      heat << b << " " << row << " " << (std::isnan(v) ? std::string("NaN") : Csv(v)) << "\n";
    }
    heat << "\n";
  }
  g << "unset xdata\nunset xtics\nset xtics nomirror rotate by -45\nset format x '%g'\n"
    << "set terminal pngcairo size 1000," << std::max<size_t>(360, 160 + 18 * rows.size()) << "\n"
    << "set output 'heatmap.png'\n"
    << "set title " << GnuplotQuote(title + ": log2(delivered / entitled share of the machine)") << "\n"
    << "set yrange [" << rows.size() - 0.5 << ":-0.5]\nset xrange [-0.5:" << buckets.size() - 0.5
    << "]\nset cbrange [-3:3]\nset palette defined (-3 '#2166ac', 0 '#f7f7f7', 3 '#b2182b')\n"
    << "set ylabel ''\nunset key\nset grid noxtics noytics\nset ytics (";
  for (size_t row = 0; row < rows.size(); ++row) {
    const report::Node& n = nodes[rows[row]];
    g << (row ? ", " : "") << GnuplotQuote(std::string(static_cast<size_t>(n.depth) * 2, ' ') +
                                            (n.is_user() ? n.user : n.acct))
      << " " << row;
  }
  g << ")\nset xtics (";
  const size_t step = std::max<size_t>(1, buckets.size() / 15);
  for (size_t b = 0; b < buckets.size(); b += step) {
    g << (b ? ", " : "") << GnuplotQuote(BucketLabel(r.by(), buckets[b])) << " " << b;
  }
  g << ")\nplot 'heatmap.dat' using 1:2:3 with image\n";
  if (!WriteText(dir / "series.dat", data.str()) || !WriteText(dir / "heatmap.dat", heat.str()) ||
      !WriteText(dir / "report.gp", g.str())) {
    return false;
  }
  const std::string gnuplot = FindInPath("gnuplot");
  if (gnuplot.empty()) {
    std::fprintf(stderr, "fairway report: gnuplot not found in PATH: %s/report.gp written, not run (install gnuplot-nox)\n",
                 dir_name.c_str());
    return false;
  }
  const std::string cmd = "cd " + ShellQuote(dir.string()) + " && " + ShellQuote(gnuplot) + " report.gp";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "fairway report: gnuplot failed (see %s/report.gp)\n", dir_name.c_str());
    return false;
  }
  std::fprintf(stderr, "fairway report: %zu level chart%s and heatmap.png in %s\n", accounts.size(),
               accounts.size() == 1 ? "" : "s", dir_name.c_str());
  return true;
}

int RunReport(const ReportOptions& o) {
  UseTimeZone(o.tz);
  report::Granularity by = o.by == "hour"  ? report::Granularity::kHour
                           : o.by == "week" ? report::Granularity::kWeek
                                            : report::Granularity::kDay;
  // The period: default the 30 days before today's local midnight (the
  // current hour's start, by hour).
  const int64_t now = std::time(nullptr);
  int64_t end = by == report::Granularity::kHour ? LocalHourStart(now) : LocalMidnight(now);
  if (!o.end.empty() && !ParseLocalTime(o.end, &end)) {
    std::fprintf(stderr, "fairway report: --end '%s' is neither Unix seconds nor YYYY-MM-DD[THH:MM[:SS]]\n",
                 o.end.c_str());
    return kUsageError;
  }
  int64_t start = AddLocalDays(LocalMidnight(end), -30);
  if (!o.start.empty() && !ParseLocalTime(o.start, &start)) {
    std::fprintf(stderr, "fairway report: --start '%s' is neither Unix seconds nor YYYY-MM-DD[THH:MM[:SS]]\n",
                 o.start.c_str());
    return kUsageError;
  }
  if (end <= start) {
    std::fprintf(stderr, "fairway report: the period is empty: --end %s is not after --start %s\n",
                 FormatLocal(end).c_str(), FormatLocal(start).c_str());
    return kUsageError;
  }

  // slurm.conf: the cluster's name and the fairshare mode (optional).
  std::string slurm_conf = o.slurm_conf;
  if (slurm_conf.empty()) {
    const char* env = std::getenv("SLURM_CONF");
    slurm_conf = env && *env ? env : "/etc/slurm/slurm.conf";
  }
  SlurmConf conf;
  std::string error;
  const bool have_conf = ReadSlurmConfFile(slurm_conf, &conf, &error);
  std::string cluster = o.cluster.empty() ? conf.cluster_name : o.cluster;
  if (cluster.empty()) {
    std::fprintf(stderr, "fairway report: no cluster name: give --cluster (%s)\n",
                 have_conf ? (slurm_conf + " has no ClusterName").c_str() : error.c_str());
    return kUsageError;
  }
  cluster = ToLower(cluster);  // slurmctld lower-cases ClusterName for its tables
  const bool planned_use = o.planned_use || (have_conf && conf.params.Mode() == FairshareMode::kPlannedUse);

  // Other clusters' usage, by association path (--clusters).
  ReportSource source;
  source.slurmdbd_conf = o.slurmdbd_conf;
  source.cluster = cluster;
  source.tres = o.tres;
  if (!o.clusters.empty()) {
    Params parsed;
    const Diagnostics d = ParsePriorityParameters("fairshare_clusters=" + o.clusters, &parsed, cluster);
    if (!d.empty()) {
      std::fprintf(stderr, "fairway report: --clusters: %s\n", d[0].Format().c_str());
      return kUsageError;
    }
    source.others = parsed.fairshare_clusters;
  }
  report::Input in;
  in.by = by;
  in.start = start;
  in.end = end;
  in.planned_use = planned_use;
  size_t unmatched = 0;
  bool bad_input = false;
  if (!LoadReportInput(source, &in, &unmatched, &error, &bad_input)) {
    std::fprintf(stderr, "fairway report: %s\n", error.c_str());
    return bad_input ? kUsageError : kError;
  }
  std::vector<std::string> others;
  for (const Params::RemoteCluster& other : source.others) others.push_back(other.name);
  const std::string kind = by == report::Granularity::kHour ? "hour" : "day";
  report::Report r;
  if (!r.Build(in, &error)) {
    std::fprintf(stderr, "fairway report: cluster %s: %s\n", cluster.c_str(), error.c_str());
    return kError;
  }

  // Warnings: what the numbers leave out.
  const size_t missing = r.missing_buckets();
  if (missing) {
    std::fprintf(stderr,
                 "fairway report: warning: %zu of %zu %s buckets have no roll-up in %s_usage_%s_table "
                 "(slurmdbd has not rolled them up, or the cluster did not exist): left out of the totals\n",
                 missing, r.buckets().size(), GranularityName(by), cluster.c_str(), kind.c_str());
  }
  if (r.misaligned_rows()) {
    std::fprintf(stderr,
                 "fairway report: warning: %zu roll-up rows do not start at a local %s boundary in time zone %s: "
                 "is slurmdbd's time zone another? (--tz)\n",
                 r.misaligned_rows(), kind.c_str(), ZoneName(start).c_str());
  }
  if (unmatched) {
    std::fprintf(stderr,
                 "fairway report: warning: %zu usage rows of the other clusters belong to associations whose "
                 "path (accounts from the root, user, partition) %s lacks: left out\n",
                 unmatched, cluster.c_str());
  }
  if (r.unknown_assoc_rows()) {
    std::fprintf(stderr, "fairway report: warning: %zu usage rows belong to no association of %s_assoc_table\n",
                 r.unknown_assoc_rows(), cluster.c_str());
  }

  const std::string period = FormatLocal(r.buckets().front().start) + " to " + FormatLocal(r.buckets().back().end);
  std::string clusters_text = cluster;
  for (const std::string& other : others) clusters_text += "+" + other;
  const std::string title = "cluster " + clusters_text + ", " + o.tres;
  if (o.format == "csv") {
    PrintCsv(r);
  } else if (o.format == "json") {
    nlohmann::json head = {{"cluster", cluster},
                           {"other_clusters", others},
                           {"tres", o.tres},
                           {"by", GranularityName(by)},
                           {"time_zone", ZoneName(start)},
                           {"start", r.buckets().front().start},
                           {"end", r.buckets().back().end},
                           {"planned_use", planned_use},
                           {"missing_buckets", missing},
                           {"capacity_secs", r.total_capacity_secs()}};
    PrintJson(r, head);
  } else {
    char header[512];
    size_t partial = 0;
    for (const report::Bucket& b : r.buckets()) partial += !b.missing() && b.coverage() < 1;
    std::snprintf(header, sizeof header,
                  "Cluster %s, TRES %s, %s (%s; by %s: %zu buckets, %zu missing, %zu partial)",
                  clusters_text.c_str(), o.tres.c_str(), period.c_str(), ZoneName(start).c_str(),
                  GranularityName(by), r.buckets().size(), missing, partial);
    PrintTable(r, header);
  }
  if (!o.plot_dir.empty() && !Plot(r, o.plot_dir, title)) return kError;
  return 0;
}

}  // namespace

void RegisterReportCommand(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "delivered against entitled share per account and user over time, from slurmdbd's usage "
      "roll-ups (see doc/report.md)");
  sub->add_option("--start", o->start,
                  "period start (Unix seconds or YYYY-MM-DD[THH:MM[:SS]], local; default: 30 days before --end)");
  sub->add_option("--end", o->end,
                  "period end, excluded (default: today's local midnight; the current hour's start --by hour)");
  sub->add_option("--by", o->by, "bucket: hour, day (default) or week (Monday to Monday)")
      ->check(CLI::IsMember({"hour", "day", "week"}));
  sub->add_option("--tres", o->tres, "TRES whose usage to report: cpu (default), billing, mem, gres/gpu, ...");
  sub->add_option("--tz", o->tz, "time zone of the buckets (default: TZ; must be slurmdbd's)");
  sub->add_option("--format", o->format, "table (default), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sub->add_option("--plot", o->plot_dir, "write gnuplot data, script and PNG charts into DIR");
  sub->add_option("--cluster", o->cluster, "cluster whose tables to read (default: slurm.conf's ClusterName)");
  sub->add_option("--slurm-conf", o->slurm_conf, "slurm.conf (default $SLURM_CONF or /etc/slurm/slurm.conf)");
  sub->add_option("--slurmdbd-conf", o->slurmdbd_conf,
                  "slurmdbd.conf with the database credentials (default: beside slurm.conf)");
  sub->add_option("--clusters", o->clusters,
                  "add the usage of other clusters of this slurmdbd, matched by association path: "
                  "NAME[:SCALE],... (as PriorityParameters=fairshare_clusters)");
  sub->add_flag("--planned-use", o->planned_use,
                "show the planned-use measure u (default: when slurm.conf's mode is planned_use)");
  sub->callback([o]() {
    int rc = RunReport(*o);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
