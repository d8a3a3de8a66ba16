// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway metrics` (metrics.h): the controller's state through libslurm,
// printed once (for node_exporter's textfile collector: write to a
// temporary file and rename it into the collector's directory), or served
// at /metrics for each scrape (--listen, metrics_server.h).
#include "metrics.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "explain_model.h"
#include "metrics_server.h"

namespace fairway {

namespace {

struct MetricsOptions {
  std::string out;         // a file, written whole then renamed into place
  std::string listen;      // ADDR:PORT to serve /metrics on
  std::string pass_stats;  // the pass statistics file; default under StateSaveLocation
};

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
  return {true, RenderMetrics(state, jobs, client::BuiltSlurmVersion(),
                              efctv.size() == state.assocs.size() ? &efctv : nullptr, &pass)};
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
  sub->callback([options]() {
    int rc = PrintMetrics(*options);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
