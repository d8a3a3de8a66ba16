// SPDX-License-Identifier: GPL-2.0-or-later
// The fairway tool's view of a running controller, fetched through libslurm
// (munge-authenticated RPCs, like sprio and sshare) and translated into plain
// C++ types: configuration, associations with usage and the controller's
// fairshare values, QOS, partitions, nodes, jobs and sprio's factors. This
// directory is the only tool code that includes Slurm's (public) headers.
#ifndef FAIRWAY_TOOL_SLURMCTLD_RPC_CLIENT_H_
#define FAIRWAY_TOOL_SLURMCTLD_RPC_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "assoc_tree.h"
#include "job_priority.h"
#include "params.h"

namespace fairway::client {

// An association as the controller holds it, with its fairshare values.
struct ControllerAssoc {
  AssocNode node;                 // id, parent, names, shares, usage_raw, priority
  uint32_t level_shares = 0;
  double shares_norm = 0;
  double priority_norm = 0;
  long double usage_norm = 0;
  long double usage_efctv = 0;
  double fs_factor = 0;
  long double level_fs = 0;
};

struct ControllerQos {
  std::string name;
  uint32_t priority = 0;
  double norm_priority = 0;
};

struct ControllerPartition {
  std::string name;
  uint16_t priority_job_factor = 0;
  uint16_t priority_tier = 0;
  uint32_t max_time_min = 0;
  std::vector<uint64_t> tres_cnt;  // in tres_names order
};

struct ControllerState {
  std::string priority_type;
  std::string state_save_location;
  Params params;
  bool private_usage = false;  // PrivateData=usage
  bool private_jobs = false;   // PrivateData=jobs
  std::vector<std::string> tres_names;  // the controller's TRES order
  std::vector<ControllerAssoc> assocs;  // in the controller's list order
  std::vector<ControllerQos> qos;
  std::vector<ControllerPartition> partitions;
  uint32_t cluster_cpus = 0;  // all nodes, FUTURE ones included
  uint32_t usable_cpus = 0;   // nodes not in State=FUTURE (`fairway usage export`)
  std::string cluster_name;   // ClusterName (`fairway usage`)
  uint32_t node_count = 0;
  Diagnostics config_diagnostics;  // from PriorityParameters
};

struct ControllerJob {
  uint32_t job_id = 0;
  uint32_t user_id = 0;
  uint32_t assoc_id = 0;
  std::string user, account, partition, qos;
  uint32_t job_state = 0;
  bool pending = false;
  uint32_t priority = 0;
  // The job's scalar inputs in the core's meaning (fairway_api.h's
  // fw_job_scalars_t), made from job_info_t by LoadJobs: total_cpus 0 while
  // pending, max_cpus kNoVal when unset, site and nice biased by
  // kNiceOffset. The association's and QOS's numbers (has_assoc ...
  // qos_norm_priority) keep their defaults: ExplainJob takes them from the
  // association tree and the QOS table.
  fw_job_scalars_t scalars = DefaultJobScalars();
  int64_t submit_time = 0;
  std::vector<uint64_t> tres_req;    // in tres_names order
  std::vector<uint64_t> tres_alloc;  // empty when not allocated
};

// sprio's row for one job and partition: the controller's weighted factors.
struct ControllerFactors {
  uint32_t job_id = 0;
  std::string partition;
  // The row's QOS (23.02 and later; empty in 22.05): a job with several
  // QOS (24.11 and later) has one row per (partition, QOS).
  std::string qos_name;
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition_factor = 0, qos = 0;
  uint32_t site = 0, nice = 0;
  uint32_t direct_prio = 0;
  std::vector<double> tres;          // weighted, in tres_names order
  std::vector<double> tres_weights;
};

// Each returns false with a message naming what failed (e.g. "cannot reach
// slurmctld: ...").
bool LoadControllerState(ControllerState* state, std::string* error);
bool LoadJobs(std::vector<ControllerJob>* jobs, const std::vector<std::string>& tres_names,
              std::string* error);
bool LoadFactors(std::vector<ControllerFactors>* factors, std::string* error);

// The clusters slurmdbd knows (slurmdb_clusters_get, as `sacctmgr show
// clusters`); false with *why when slurmdbd cannot be reached.
bool LoadDbClusterNames(std::vector<std::string>* names, std::string* why);

// The Slurm release this tool was built against (SLURM_VERSION_NUMBER of
// its slurm/slurm_version.h): the only one whose libslurm it runs with, and
// the release `check-config` reads slurm.conf as unless told otherwise.
uint32_t BuiltSlurmVersion();

// "cpu=2,mem=1G,node=1,billing=2" in the given TRES order (memory in MB, as
// Slurm counts it).
std::vector<uint64_t> ParseTresString(const std::string& text,
                                      const std::vector<std::string>& tres_names);

}  // namespace fairway::client

#endif  // FAIRWAY_TOOL_SLURMCTLD_RPC_CLIENT_H_
