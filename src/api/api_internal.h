// SPDX-License-Identifier: GPL-2.0-or-later
// What the files implementing fairway_api.h share: the objects behind the
// opaque handles, the logger, exception reporting, and the conversions of
// the C snapshots into the core's inputs that more than one file needs.
// C++ only; never included by the boundary.
#ifndef FAIRWAY_API_API_INTERNAL_H_
#define FAIRWAY_API_API_INTERNAL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "assoc_tree.h"
#include "fairshare.h"
#include "job_priority.h"
#include "params.h"
#include "planned_use.h"
#include "remote_usage.h"

// The configuration behind fw_config_t: Params plus what the plugin derives
// from slurm.conf once, immutable after fw_config_create (only refs moves).
struct fw_config {
  std::atomic<int> refs{1};
  // The last association id found on more than one record and said in the
  // log (0: none): said once per id, not at every pass. The only other
  // member that moves after fw_config_create.
  mutable std::atomic<uint32_t> warned_shared_id{0};
  fairway::Params params;
  // The indexes of the TRES with a non-zero PriorityWeightTRES weight,
  // ascending: usually two or three of Slurm's TRES, and the only ones a
  // priority reads. Held here only; settings and pass tables point at it.
  std::vector<uint32_t> weighted_tres;
  uint32_t tres_cnt = 0;  // slurmctld's TRES count (fw_config_input_t)
  bool calc_fairshare = true;  // false without slurmdbd
  double decay_per_second = 1.0;
  bool prio_debug = false;
  fw_log_fn log = nullptr;
  fw_settings_t settings{};
  std::vector<const char*> remote_cluster_names;  // into params.fairshare_clusters
};

// Remote clusters' usage, and the paths already said to match no local
// association (logged once each).
struct fw_remote {
  fairway::RemoteUsage usage;
  std::set<std::string> told_unmatched;
  // Planned use: what the last fairshare added, for its ledger entries.
  fairway::RemoteUsed last_used;
  // What the last fairshare added, as fairway_remote_used's bytes
  // (RemoteUsed::Serialize); empty before the first. Made by
  // fw_remote_prepare_used from used_at, used_view and used_synced_at
  // (planned use: from last_used), after the fairshare, once slurmctld's
  // locks are released.
  std::string last_used_bytes;
  bool used_pending = false;
  int64_t used_at = 0;
  // The view the fairshare added (into `usage`, unchanged until
  // fw_remote_prepare_used: the mutex is held from one to the other).
  fairway::ClustersView used_view;
  std::map<std::string, int64_t> used_synced_at;
  // The local paths' index, kept while the tree's paths are the same
  // (LocalPathSignature): the pass would otherwise make ten thousand paths
  // anew each time.
  fairway::LocalPathIndex path_index;
  uint64_t path_index_signature = 0;
  bool path_index_made = false;
};

// The planned-use ledger, and when the copy it was parsed from was written:
// charges of slices before that are in it already.
struct fw_ledger {
  fairway::PlannedUseLedger ledger;
  int64_t charged_until = 0;
};

namespace fairway::api {

// One line through the configuration's logger (none: dropped). FW_LOG_PRIO
// lines only with DebugFlags=Priority.
void Log(const fw_config* config, fw_log_level_t level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
// The same through a bare logger (fw_config_create, before the
// configuration exists).
void LogTo(fw_log_fn log, fw_log_level_t level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// Inside a catch block: logs "<function>: <what the exception says>" at
// error level through the configuration's logger (if any).
void ReportException(const fw_config* config, const char* function);

// The TRES a priority can read: weighted and counted by slurmctld.
inline size_t CountedTres(const fw_config& config) {
  return std::min<size_t>(config.params.weight_tres.size(), config.tres_cnt);
}

// The association snapshot as a tree (fw_fairshare's rules): entries whose
// key was met earlier are dropped (node_of[k] = -1), an entry reached only
// through the whole list is an orphan, records that share an id are each
// their own association (linked by parent_key where given; logged once per
// id; *shared_ids, when given, says whether any did), and assoc_mgr's
// normalisation is
// used when it normalised for the same family of modes as the one in
// force. node_of[k]: the tree node of input k. False (logged, with what)
// when the records make no tree.
bool TreeFromInputs(const fw_config& config, const fw_assoc_input_t* in, size_t n,
                    bool slurm_fair_tree_shares, const char* what, AssocTree* tree,
                    std::vector<int32_t>* node_of, bool* shared_ids = nullptr);

// A copy the caller frees with free(); nullptr when out of memory
// (api_usage.cc).
char* MallocCopy(const std::string& text);
// The same for state-file bytes, with *length set (0 on failure).
char* MallocBytes(const std::string& bytes, size_t* length);

// The planned-use interval and decay the remote ledgers follow.
RemotePlan PlanOf(const fw_config& config);

// Adds the remote clusters' usage (config's fairshare_clusters, decayed to
// now and scaled) to every node of tree, each path's usage to its node and
// every ancestor; logs once each path that has no node
// (api_remote.cc).
void AddRemoteUsage(const fw_config& config, fw_remote* remote, int64_t now, AssocTree* tree);

// Whether the root's usage_raw (in[0]) exceeds, beyond rounding, the
// usage_raw of the records whose parent_key is the root plus its
// removed_usage_raw; *sum is that total when it does. False without any
// parent_key (the tool's snapshots carry none).
bool RootUsageBeyondChildren(const fw_assoc_input_t* in, size_t n,
                             const std::vector<int32_t>& node_of, long double* sum);

// The general path's inputs (multi-partition jobs, jobs with several QOS,
// priority_p_set) made from the same record the pass computes the others
// on directly, reusing *in's storage. partitions: the array the record's
// indexes refer to.
void JobInputsFrom(const fw_config& config, const fw_job_input_t& job,
                   const fw_partition_input_t* partitions, JobInputs* in);

// fw_priority_count: the entries of the job's priority_array.
uint32_t PriorityCount(const fw_job_input_t& job);

// What is stored for a job: result's weighted factors and partition
// priorities, with pointers into result.
void FactorsOf(const JobPriority& result, fw_factors_t* out);

}  // namespace fairway::api

#endif  // FAIRWAY_API_API_INTERNAL_H_
