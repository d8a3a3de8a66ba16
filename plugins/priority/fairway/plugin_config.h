// SPDX-License-Identifier: GPL-2.0-or-later
// The configuration the plugin runs with: Params read from slurm_conf plus
// PriorityParameters. Published as an immutable snapshot that a reconfigure
// replaces atomically, so readers (sprio RPCs, the decay thread, job
// updates) never see a half-written configuration (multifactor frees and
// re-reads its weights in place: priority_p_reconfig in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#ifndef FAIRWAY_PLUGIN_CONFIG_H_
#define FAIRWAY_PLUGIN_CONFIG_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "params.h"

namespace fairway::plugin {

struct PluginConfig {
  Params params;
  // The indexes of the TRES with a non-zero PriorityWeightTRES weight,
  // ascending: usually two or three of Slurm's TRES, and the only ones a
  // priority reads.
  std::vector<uint32_t> weighted_tres;
  bool calc_fairshare = true;       // false without slurmdbd
  double decay_factor_per_second = 1.0;
};

// Reads slurm_conf (and slurmctld_tres_cnt for the TRES weights), logs every
// problem once, and publishes the result. with_slurmdbd=false forces the age
// and fairshare weights to 0, as multifactor does.
void LoadConfig(bool with_slurmdbd, bool log_summary);

// The configuration in force; never null after LoadConfig.
std::shared_ptr<const PluginConfig> CurrentConfig();

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_CONFIG_H_
