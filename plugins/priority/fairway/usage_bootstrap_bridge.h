// SPDX-License-Identifier: GPL-2.0-or-later
// Usage bootstrap inside slurmctld: when the controller starts without usage
// state (StateSaveLocation/assoc_usage missing) or with
// PriorityParameters=usage_bootstrap=force, the decay thread asks slurmdbd
// (through the controller's own munge-authenticated accounting connection)
// for the jobs of the last several half-lives and rebuilds every
// association's decayed usage, per-TRES usage and the planned-use ledger
// from them (core: usage_bootstrap.h). It never overwrites usage that is
// there unless forced, and never blocks slurmctld's start (it runs in the
// decay thread before its first pass).
#ifndef FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_
#define FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_

#include <ctime>

#include "plugin_config.h"

namespace fairway::plugin {

// At init, before assoc_mgr writes its state again: whether to bootstrap.
bool UsageBootstrapWanted(const PluginConfig& config);

// Takes the assoc_mgr locks itself. Returns true when usage was rebuilt (the
// caller then treats `now` as the last decay time: everything up to now is
// counted).
bool RunUsageBootstrap(time_t now, time_t last_reset, const PluginConfig& config);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_
