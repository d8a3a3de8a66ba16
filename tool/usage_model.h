// SPDX-License-Identifier: GPL-2.0-or-later
// The pure part of `fairway usage audit|export` (doc/accounting.md):
// comparing rebuilt usage with the controller's, and writing the export
// scenario (a job's tres_alloc is parsed by src/tres_counts.h). No Slurm or
// MariaDB header: src/io/slurmdbd_conf_reader reads slurmdbd.conf,
// tool/slurmdbd/db_client fetches the rows, tool/usage.cc runs the commands.
#ifndef FAIRWAY_TOOL_USAGE_MODEL_H_
#define FAIRWAY_TOOL_USAGE_MODEL_H_

#include <cstdint>
#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "assoc_tree.h"

namespace fairway::usage {

// ---- audit ------------------------------------------------------------
struct AuditTolerance {
  double relative = 0.02;  // of the larger of the two values
  double absolute = 5;     // billing-seconds
  int64_t calc_period_s = 0;  // PriorityCalcPeriod: running jobs may be charged that late
};

struct AuditRow {
  int32_t index = 0;  // in the tree
  uint32_t assoc_id = 0;
  std::string account, user, partition;
  int depth = 0;
  long double db = 0;          // rebuilt from the job table
  long double controller = 0;  // usage_raw as the controller reports it
  long double difference = 0;  // controller - db
  long double allowed = 0;     // the tolerance this row was held to
  bool running = false;        // jobs of the subtree were running
  bool ok = true;
};

// Per association in tree order: db_subtree and controller indexed like the
// tree's nodes; running_billing (may be empty) the billing of jobs running
// now in each subtree. allowed = max(relative x max(|db|, |controller|),
// absolute) + running_billing x calc_period_s.
std::vector<AuditRow> CompareUsage(const AssocTree& tree, const std::vector<long double>& db_subtree,
                                   const std::vector<long double>& controller,
                                   const std::vector<long double>& running_billing,
                                   const AuditTolerance& tolerance);

// ---- export -----------------------------------------------------------
struct ExportJob {
  uint32_t job_id = 0;
  int64_t submit = 0, start = 0, end = 0;  // Unix seconds; end 0 = still running
  uint32_t assoc_id = 0;
  std::string assoc;  // "account/user" (or the account for an account association)
  double billing = 0;
  uint64_t cpus = 0;
  std::string partition, qos;
};

struct ExportInput {
  std::string name = "export";
  std::string cluster;
  uint32_t cpus = 0;              // the simulated machine: each CPU a "node"
  int64_t half_life_s = 604800;   // 0 = no decay (written as decay 1)
  int64_t now = 0;                // for still-running jobs
  const AssocTree* tree = nullptr;  // accounts and shares (may be null)
  std::vector<ExportJob> jobs;      // started jobs, any order
};

// The scenario for `fairway simulate` (doc/simulate.md), self-contained:
// nodes = cpus, accounts of the tree, users "account/user" with their
// shares, one "job" line per job (submit relative to the earliest
// submission, nodes = allocated CPUs, duration = end - start (at least 1),
// start = the recorded start, id = the job id), policies fifo. False when
// there is nothing to export or a job is larger than the machine.
bool WriteExportScenario(const ExportInput& input, std::ostream& out, std::string* error);
// submit,start,end,job,association,billing,cpus,partition,qos (Unix
// seconds; end empty while running), in submission order.
void WriteExportTrace(const std::vector<ExportJob>& jobs, std::ostream& out);

}  // namespace fairway::usage

#endif  // FAIRWAY_TOOL_USAGE_MODEL_H_
