// SPDX-License-Identifier: GPL-2.0-or-later
// The recomputation behind `fairway explain`: from what the controller
// reports (configuration, associations with usage, QOS, partitions, nodes,
// jobs), rebuild the core's inputs, run the same fairshare and priority code
// the plugin runs, and keep every intermediate value for display. Pure: no
// RPC here (tool/slurmctld/rpc_client does that), so it is unit-testable.
#ifndef FAIRWAY_TOOL_EXPLAIN_MODEL_H_
#define FAIRWAY_TOOL_EXPLAIN_MODEL_H_

#include <string>
#include <vector>

#include "fairshare.h"
#include "job_priority.h"
#include "explain_visible.h"
#include "planned_use.h"
#include "remote_usage.h"
#include "slurmctld/rpc_client.h"

namespace fairway {

struct ExplainModel {
  client::ControllerState state;
  AssocTree tree;               // built from state.assocs, in list order
  FairshareResults fairshare;   // recomputed by the core
  bool have_ledger = false;     // planned use: ledger read from the state file
  PlannedUseLedger ledger;
  std::string ledger_note;      // why the ledger could not be read, if so
  // fairshare_clusters: the other clusters' usage the last pass added
  // (StateSaveLocation/fairway_remote_used), in the tree's usage too.
  bool have_remote = false;
  RemoteUsed remote;
  std::string remote_note;      // why it could not be read, if so
  // PrivateData=usage and a requester who may not see the whole tree: the
  // controller sent only some associations (ViewIsPartial). tree and
  // fairshare.assocs are then empty; explain_visible explains what it can.
  bool partial = false;
};

// Builds the tree and recomputes fairshare. Under PrivateData=usage a
// partial view is no error: it sets model->partial instead. False with
// *error on a bad tree.
bool BuildExplainModel(client::ControllerState state, ExplainModel* model, std::string* error);

// One partition row of a job's recomputation.
struct JobExplanation {
  std::string partition;
  std::string qos;  // the row's QOS: one row per (partition, QOS)
  JobInputs inputs;
  JobPriority result;           // recomputed; age taken from the controller
  double age_now = 0;           // the age factor recomputed at `now`
  const client::ControllerFactors* controller = nullptr;  // sprio's row, if any
  int64_t controller_sum_priority = -1;  // sprio's PRIORITY for that row
  bool factors_match = false;   // every weighted factor within 1e-6 relative
  bool priority_match = false;  // the integer equals the controller's
  std::vector<std::string> mismatches;
  // Partial view only. The job's association as far as visible (assoc -1
  // when hidden too), and the factors whose inputs PrivateData=usage hides,
  // taken from sprio's row (weighted / weight) so that the rest can still
  // be recomputed and checked: "fairshare", "association".
  VisibleFairshare visible;
  std::vector<std::string> from_controller;
};

// Recomputes a job's priority for each of its partitions, and for a job
// with several QOS (24.11 and later) for each (partition, QOS) pair,
// partition-major, each with its QOS's factor, as the controller queues it. The age factor
// changes every second until PriorityMaxAge: the controller's value (from
// sprio) is used for the comparison, and age_now shows today's.
// `fairway whatif` recomputes under changed settings: controller_params
// (default the model's) are those sprio's factors were weighted with, to
// read the controller's age and hidden factors back, and age_shift_s moves
// every job's age on (--age).
std::vector<JobExplanation> ExplainJob(const ExplainModel& model, const client::ControllerJob& job,
                                       const std::vector<client::ControllerFactors>& factors,
                                       int64_t now, const Params* controller_params = nullptr,
                                       int64_t age_shift_s = 0);

// Index of the association of account[/user] (user empty = the account's
// own association) in the tree, which is also its index in state.assocs
// (in a partial view, among the visible ones); -1 when absent.
int32_t FindExplainAssoc(const ExplainModel& model, const std::string& account,
                         const std::string& user, const std::string& partition = "");

}  // namespace fairway

#endif  // FAIRWAY_TOOL_EXPLAIN_MODEL_H_
