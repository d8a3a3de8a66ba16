// SPDX-License-Identifier: GPL-2.0-or-later
// Usage bootstrap inside slurmctld: when the controller starts without usage
// state (StateSaveLocation/assoc_usage missing, empty, cut or unreadable:
// the recovery rule of state_recovery.h decides) or with
// PriorityParameters=usage_bootstrap=force, the decay thread asks slurmdbd
// (through the controller's own munge-authenticated accounting connection)
// for the jobs since the configured last reset and rebuilds every
// association's decayed usage, per-TRES usage and the planned-use ledger
// from them (core: usage_bootstrap.h). Without an accounting connection it
// does nothing (said once); when slurmdbd does not answer, every pass
// retries until it does. It never blocks slurmctld's start (it runs in the
// decay thread).
#ifndef FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_
#define FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_

#include <ctime>

#include "plugin_config.h"

namespace fairway::plugin {

// At init: whether to bootstrap. usage_missing: the recovery rule found
// assoc_usage missing, empty or cut (state_recovery.h).
bool UsageBootstrapWanted(const PluginConfig& config, bool usage_missing);

enum class BootstrapResult {
  kRebuilt,     // usage rebuilt: the caller counts everything up to now
  kNotNeeded,   // nothing to do (usage there and not forced, no tree)
  kRetryLater,  // no accounting connection or slurmdbd did not answer
};

// Takes the assoc_mgr locks itself. Runs only with an accounting
// connection (without one it says so once and returns kRetryLater). Jobs
// are fetched back to configured_last_reset (0: all history, as with
// PriorityUsageResetPeriod=NONE), or ten half-lives when that is later.
// replace: overwrite the usage slurmctld has (it holds no history). retry:
// a later pass; failures already logged are not logged again. Each rebuild
// is logged at error level with what it rebuilt and from when.
BootstrapResult RunUsageBootstrap(time_t now, time_t configured_last_reset,
                                  const PluginConfig& config, bool replace, bool retry);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_USAGE_BOOTSTRAP_BRIDGE_H_
