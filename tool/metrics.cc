// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway metrics` (metrics.h): the controller's state through libslurm,
// printed once (for node_exporter's textfile collector: write to a
// temporary file and rename it into the collector's directory), or served
// at /metrics for each scrape (--listen, metrics_server.h).
#include "metrics.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "explain_model.h"
#include "local_time.h"
#include "metrics_server.h"
#include "report_model.h"
#include "report_source.h"
#include "text_util.h"

namespace fairway {

namespace {

struct MetricsOptions {
  std::string out;         // a file, written whole then renamed into place
  std::string listen;      // ADDR:PORT to serve /metrics on
  std::string pass_stats;  // the pass statistics file; default under StateSaveLocation
  int delivered_days = 0;  // > 0: delivered against entitled over that many days
  std::string delivered_tres = "billing";
};

// Delivered against entitled share over the last days of slurmdbd's hourly
// roll-ups (`fairway report`'s totals, with the other clusters the
// controller's fairshare_clusters names), or why not (said on stderr once
// per distinct reason, as the pass statistics).
bool ReadDelivered(const MetricsOptions& options, const client::ControllerState& state,
                   DeliveredReading* out) {
  static std::string last_said;
  std::string why;
  // Hourly roll-ups up to now: the hour slurmdbd has not rolled up yet is
  // a missing bucket, left out (report_model.h).
  report::Input in;
  in.by = report::Granularity::kHour;
  in.end = std::time(nullptr);
  in.start = LocalHourStart(in.end - int64_t{options.delivered_days} * 86400);
  ReportSource source;
  source.cluster = ToLower(state.cluster_name);
  source.tres = options.delivered_tres;
  source.others = state.params.fairshare_clusters;
  size_t unmatched = 0;
  bool bad_input = false;
  report::Report r;
  const bool ok = !source.cluster.empty() &&
                  LoadReportInput(source, &in, &unmatched, &why, &bad_input) && r.Build(in, &why);
  if (source.cluster.empty()) why = "the controller reports no ClusterName";
  if (!ok) {
    if (why != last_said) std::fprintf(stderr, "fairway metrics: delivered shares omitted: %s\n", why.c_str());
    last_said = why;
    return false;
  }
  last_said.clear();
  out->window_s = in.end - in.start;
  out->rows.clear();
  for (size_t i = 0; i < r.nodes().size(); ++i) {
    const report::Node& n = r.nodes()[i];
    const report::Cell c = r.Total(i);
    out->rows.push_back({n.acct, n.user, n.partition, c.delivered_cluster, n.entitled_machine, c.ratio});
  }
  return true;
}

// The plugin's pass statistics (pass_stats.h): from --pass-stats, else from
// the controller's StateSaveLocation. When they cannot be read the reason
// goes to stderr (an OpenMetrics text has no free comments: the Prometheus
// parser rejects them), once per distinct reason when serving.
PassStatsReading ReadPassStatsFor(const MetricsOptions& options,
                                  const client::ControllerState& state) {
  static std::string last_said;
  PassStatsReading reading;
  const std::string path = !options.pass_stats.empty() ? options.pass_stats
                           : state.state_save_location.empty()
                               ? std::string()
                               : state.state_save_location + "/" + kPassStatsFile;
  if (path.empty()) {
    reading.why = "the controller reports no StateSaveLocation (give --pass-stats FILE)";
  } else {
    reading.read = ReadPassStats(path, &reading.stats, &reading.why);
  }
  if (!reading.read && reading.why != last_said) {
    std::fprintf(stderr, "fairway metrics: pass statistics omitted: %s\n", reading.why.c_str());
  }
  last_said = reading.read ? std::string() : reading.why;
  return reading;
}

// One reading of the controller, rendered.
MetricsBody Produce(const MetricsOptions& options) {
  client::ControllerState state;
  std::vector<client::ControllerJob> jobs;
  std::string error;
  if (!client::LoadControllerState(&state, &error) ||
      !client::LoadJobs(&jobs, state.tres_names, &error)) {
    return {false, error};
  }
  // The effective usage at full precision (metrics.h), needed only where
  // FairShare is computed: the core's recomputation, as `fairway explain`
  // makes it; without it (a tree the core refuses, a partial view) the
  // controller's 6 decimals.
  std::vector<long double> efctv;
  if (!FairShareIsStored(state, client::BuiltSlurmVersion())) {
    ExplainModel model;
    std::string why;
    if (BuildExplainModel(state, &model, &why) && !model.partial) {
      for (const AssocFairshare& f : model.fairshare.assocs) efctv.push_back(f.usage_efctv);
    }
  }
  const PassStatsReading pass = ReadPassStatsFor(options, state);
  DeliveredReading delivered;
  const bool have_delivered = options.delivered_days > 0 && ReadDelivered(options, state, &delivered);
  return {true, RenderMetrics(state, jobs, client::BuiltSlurmVersion(),
                              efctv.size() == state.assocs.size() ? &efctv : nullptr, &pass,
                              have_delivered ? &delivered : nullptr)};
}

int PrintMetrics(const MetricsOptions& options) {
  if (!options.listen.empty()) {
    std::string error;
    int fd = ListenOn(options.listen, &error);
    if (fd < 0) {
      std::fprintf(stderr, "fairway metrics: %s\n", error.c_str());
      return 2;
    }
    std::fprintf(stderr, "fairway metrics: serving /metrics on port %d\n", BoundPort(fd));
    return ServeMetrics(fd, [&options]() { return Produce(options); }, nullptr);
  }
  MetricsBody body = Produce(options);
  if (!body.ok) {
    std::fprintf(stderr, "fairway metrics: %s\n", body.text.c_str());
    return 3;
  }
  const std::string& text = body.text;
  if (options.out.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  // The collector must never read half a file: write beside it, rename.
  const std::string tmp = options.out + ".tmp";
  {
    std::ofstream file(tmp, std::ios::trunc);
    file << text;
    if (!file.flush()) {
      std::fprintf(stderr, "fairway metrics: cannot write %s\n", tmp.c_str());
      return 3;
    }
  }
  if (std::rename(tmp.c_str(), options.out.c_str()) != 0) {
    std::perror(("fairway metrics: cannot rename " + tmp + " to " + options.out).c_str());
    return 3;
  }
  return 0;
}

}  // namespace

void RegisterMetricsCommand(CLI::App& app) {
  auto options = std::make_shared<MetricsOptions>();
  CLI::App* sub = app.add_subcommand(
      "metrics", "Fairshare and queue per association in the OpenMetrics text format, once");
  sub->add_option("-o,--output", options->out,
                  "Write to this file (atomically: written beside it, then renamed), e.g. in "
                  "node_exporter's textfile directory");
  sub->add_option("--listen", options->listen,
                  "Serve /metrics over HTTP on ADDR:PORT (:PORT for every address), reading "
                  "the controller at each scrape")
      ->excludes("--output");
  sub->add_option("--pass-stats", options->pass_stats,
                  "The plugin's pass statistics file (default: fairway_pass_stats in the "
                  "controller's StateSaveLocation); when unreadable the fairway_pass_* "
                  "families are left out and stderr says why");
  sub->add_option("--delivered-days", options->delivered_days,
                  "Also export each association's delivered against entitled share over the last "
                  "DAYS days of slurmdbd's hourly roll-ups (fairway report's totals; reads "
                  "slurmdbd's database with slurmdbd.conf's credentials)")
      ->check(CLI::Range(1, 3660));
  sub->add_option("--delivered-tres", options->delivered_tres,
                  "The TRES of the delivered shares (default billing, what fairshare counts)");
  sub->callback([options]() {
    int rc = PrintMetrics(*options);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
