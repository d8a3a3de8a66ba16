// SPDX-License-Identifier: GPL-2.0-or-later
// The fairway command: parses the command line with CLI11 and dispatches to
// the subcommands, each of which registers itself (Register*Command). Exit
// codes: 0 success, 1 the command found errors, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "check_config.h"
#include "explain.h"
#include "fairshare_table.h"
#include "metrics.h"
#include "simulate.h"
#include "report.h"
#include "slurmctld/rpc_client.h"
#include "usage.h"
#include "whatif.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fairway: inspect, check and simulate the priority/fairway Slurm plugin", "fairway"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", std::string("fairway ") + PACKAGE_VERSION);
  app.add_subcommand("version", "Print the version")->callback([]() {
    std::printf("fairway %s\n", PACKAGE_VERSION);
  });
  fairway::RegisterFairshareCommand(app);
  fairway::RegisterCheckConfigCommand(app, fairway::client::BuiltSlurmVersion(),
                                      fairway::client::LoadDbClusterNames);
  fairway::RegisterSimulateCommand(app);
  // `fairway explain` (tool/explain.cc).
  fairway::RegisterExplainCommand(app);
  // `fairway usage audit|export` (tool/usage.cc).
  fairway::RegisterUsageCommand(app);
  // `fairway metrics` (tool/metrics.cc).
  fairway::RegisterMetricsCommand(app);
  // `fairway whatif` (tool/whatif.cc).
  fairway::RegisterWhatIfCommand(app);
  // `fairway report` (tool/report.cc).
  fairway::RegisterReportCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }
  return 0;
}
