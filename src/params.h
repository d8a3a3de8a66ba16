// SPDX-License-Identifier: GPL-2.0-or-later
// The priority configuration: every slurm.conf setting the priority code uses
// (times already in seconds, as slurm_conf_t holds them) plus Fairway's own
// PriorityParameters keys. Plain data; any thread may copy it.
#ifndef FAIRWAY_PARAMS_H_
#define FAIRWAY_PARAMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.h"
#include "slurm_values.h"

namespace fairway {

enum class FairshareMode { kClassic, kDepthOblivious, kFairTree, kRanged, kPlannedUse };

// When the plugin rebuilds usage from slurmdbd's job records: only when the
// controller has no usage state (auto), at every start (force), or never.
enum class UsageBootstrap { kAuto, kForce, kOff };

// How planned-use usage enters the ledger (fairshare-modes.md, Planned use §4).
enum class PlannedUseCharge { kAccrue, kStart };

const char* FairshareModeName(FairshareMode mode);

struct Params {
  // PriorityWeight*; 0 disables a factor.
  uint32_t weight_age = 0;
  uint32_t weight_assoc = 0;
  uint32_t weight_fairshare = 0;
  uint32_t weight_job_size = 0;
  uint32_t weight_partition = 0;
  uint32_t weight_qos = 0;
  // PriorityWeightTRES resolved to the cluster's TRES order; empty = unset.
  std::vector<double> weight_tres;

  uint32_t flags = kFlagFairTree;        // PriorityFlags bits
  int64_t decay_half_life_s = 604800;    // PriorityDecayHalfLife; 0 = no decay
  int64_t calc_period_s = 300;           // PriorityCalcPeriod
  int64_t max_age_s = 604800;            // PriorityMaxAge
  ResetPeriod reset_period = ResetPeriod::kNone;  // PriorityUsageResetPeriod
  bool favor_small = false;              // PriorityFavorSmall
  // Slurm 23.02 and later give a job asking for more nodes than the
  // cluster has a favor-small node term of 0; 22.05's unsigned difference
  // wraps and ends at 1 (priority_multifactor.c, slurm-22-05-8-1 and
  // slurm-23-02-8-1). The release's behaviour, set by whoever knows it.
  bool favor_small_clamps_nodes = false;
  uint16_t damp_factor = 1;              // FairShareDampeningFactor

  // PriorityParameters=fairshare=...; unset means "from PriorityFlags".
  std::optional<FairshareMode> mode_override;
  int64_t planned_use_interval_s = 86400;  // planned_use_interval
  double planned_use_capacity = 0;         // billing/s; 0 = total node billing
  PlannedUseCharge planned_use_charge = PlannedUseCharge::kAccrue;
  UsageBootstrap usage_bootstrap = UsageBootstrap::kAuto;  // usage_bootstrap
  // fairshare_clusters=NAME[:SCALE][,NAME[:SCALE]...]: the clusters sharing
  // slurmdbd whose usage counts in this cluster's fairshare (names lower
  // case, as slurmctld stores ClusterName), each scaled (default 1).
  struct RemoteCluster {
    std::string name;
    double scale = 1;
  };
  std::vector<RemoteCluster> fairshare_clusters;
  int64_t fairshare_sync_s = 0;  // fairshare_sync; 0 = every decay pass
  // change_check: how often (s) the decay thread looks for a change that
  // moves priorities (associations, QOS, partitions, job ends,
  // reconfigure) and runs a pass when it finds one; 0 = passes only every
  // PriorityCalcPeriod, as multifactor.
  int64_t change_check_s = 2;

  // The fairshare mode in force: PriorityParameters wins over PriorityFlags.
  FairshareMode Mode() const;
  // Sum of the integer weights, as a 64-bit value (can exceed 2^32 - 1).
  uint64_t WeightSum() const;
};

// Parses PriorityParameters ("key=value,key=value"). Every problem becomes a
// Diagnostic naming the key and value; the key then keeps its previous value
// in *params. Known keys: fairshare, planned_use_interval,
// planned_use_capacity, planned_use_charge, usage_bootstrap,
// fairshare_clusters, fairshare_sync, change_check. fairshare_clusters takes a list: the
// items after it that have no '=' are more clusters
// ("fairshare_clusters=gpu:2,cloud,fairshare_sync=600"). The whole list is
// dropped (the previous one kept) when any of its names is empty or not a
// valid ClusterName, appears twice, or its scale is not a finite number
// > 0; local_cluster, when given, may not be in it.
Diagnostics ParsePriorityParameters(std::string_view text, Params* params,
                                    std::string_view local_cluster = {});

// Slurm's time string ("minutes", "minutes:seconds", "hours:minutes:seconds",
// "days-hours", "days-hours:minutes", "days-hours:minutes:seconds") in
// seconds; nullopt when malformed. "UNLIMITED"/"INFINITE" are rejected here.
std::optional<int64_t> ParseSlurmTimeSeconds(std::string_view text);

}  // namespace fairway

#endif  // FAIRWAY_PARAMS_H_
