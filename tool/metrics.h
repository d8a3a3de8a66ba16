// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway metrics`: the controller's fairshare and queue per association
// in the OpenMetrics text format, for Prometheus (node_exporter's textfile
// collector, or a scrape of its output). Names follow Slurm's own
// metrics/openmetrics plugin (slurm-25-11-7-1:src/plugins/metrics/
// openmetrics/openmetrics.c: slurm_<object>_<what>, gauges), with the
// object `assoc` and the labels account, user and partition (user and
// partition empty for an account; a bounded set: one series per
// association and TRES). doc/metrics.md lists every family.
#ifndef FAIRWAY_TOOL_METRICS_H_
#define FAIRWAY_TOOL_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pass_stats.h"
#include "slurmctld/rpc_client.h"

namespace CLI {
class App;
}

namespace fairway {

// The exposition of state and jobs, ending with "# EOF". slurm_version is
// the controller's release (SLURM_VERSION_NUMBER): from 25.11 sshare's
// FairShare is each user's stored fs_factor in every mode, before it only
// in Fair Tree's (classic modes compute it from EffectvUsage and
// NormShares, as the core's CalcFsFactor does). Values are the
// controller's, as sshare shows them, and counts over jobs (pending: not
// yet started; running: JOB_RUNNING) for the queue. The controller sends
// long doubles (NormUsage, EffectvUsage, LevelFS) with 6 decimals
// (packlongdouble's "%Lf"), sshare's own precision; a classic FairShare
// computed from such an EffectvUsage would be off by up to 1e-5, so
// efctv, when given, holds each association's effective usage (in
// state.assocs' order) as the core recomputes it from the controller's
// usage and shares, and that FairShare is computed from it. A value the
// controller holds as NO_VAL (not computed) has no sample. pass, when
// given, adds fairway_pass_stats_available (1 when pass->read) and, when
// read, the fairway_pass_* families of the plugin's last decay pass
// (pass_stats.h). Pure: no RPC, no file.
struct PassStatsReading {
  bool read = false;
  PassStats stats;  // when read
  std::string why;  // when not: the file and the reason (the caller says it)
};
// One association's delivered against entitled share over a window of
// slurmdbd's roll-ups (`fairway report`'s totals; report_model.h). NaN: not
// defined (no sample).
struct DeliveredRow {
  std::string account, user, partition;
  double delivered = 0;  // its subtree's usage / the root's
  double entitled = 0;   // its share of the machine
  double ratio = 0;      // delivered / entitled
};
struct DeliveredReading {
  int64_t window_s = 0;  // the window's length
  std::vector<DeliveredRow> rows;
};
// delivered, when given, adds slurm_assoc_delivered_share,
// slurm_assoc_entitled_share, slurm_assoc_delivered_entitled_ratio and
// fairway_delivered_window_seconds.
std::string RenderMetrics(const client::ControllerState& state,
                          const std::vector<client::ControllerJob>& jobs, uint32_t slurm_version,
                          const std::vector<long double>* efctv = nullptr,
                          const PassStatsReading* pass = nullptr,
                          const DeliveredReading* delivered = nullptr);

// Whether sshare's FairShare is the stored fs_factor (users only) for
// this controller: from 25.11 in every mode, before in Fair Tree's; else
// RenderMetrics computes it, and only then does efctv matter.
bool FairShareIsStored(const client::ControllerState& state, uint32_t slurm_version);

void RegisterMetricsCommand(CLI::App& app);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_METRICS_H_
