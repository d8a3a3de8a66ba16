// SPDX-License-Identifier: GPL-2.0-or-later
// The planned-use ledger inside slurmctld: charged by the decay thread (and
// at job end), rolled at interval boundaries, and kept across restarts in
// StateSaveLocation/fairway_planned_use (versioned and checksummed by the
// core's SerializeLedger; written atomically). A missing file starts an
// empty ledger; a damaged one is logged naming the file, the previous copy
// (.old) is tried, and the controller keeps running.
#ifndef FAIRWAY_PLUGIN_PLANNED_USE_STATE_H_
#define FAIRWAY_PLUGIN_PLANNED_USE_STATE_H_

#include <ctime>

#include "assoc_tree.h"
#include "fairshare.h"
#include "planned_use.h"
#include "plugin_config.h"

namespace fairway::plugin {

// Loads the ledger file (once; later calls do nothing).
void LoadPlannedUseLedger();
// Closes interval boundaries up to now, in memory (the pass calls it under
// the job read lock).
void RollPlannedUseLedger(time_t now, const PluginConfig& config);
// Writes the ledger to its state file (no lock of slurmctld's needed).
void SavePlannedUseLedger();
// Adds billing-seconds to association assoc_id and its ancestors, whose ids
// are given root-last (the adapter walks Slurm's parent pointers).
// The instant up to which the ledger loaded at start was already charged
// (its file's modification time: it is written after each pass's charges);
// 0 when it started empty. Charges of earlier slices count only after it.
time_t PlannedUseLedgerChargedUntil();
void ChargePlannedUse(const uint32_t* assoc_path_ids, int path_length, long double billing_seconds);
// Requires the assoc lock held by the caller: planned-use fairshare over
// the snapshot tree with the current ledger.
void ComputePlannedUseFairshare(const AssocTree& tree, const PluginConfig& config,
                                FairshareResults* results);
// Replaces the ledger (usage bootstrap) when it is empty, or always with
// force; returns whether it did.
bool ReplacePlannedUseLedgerIfEmpty(PlannedUseLedger ledger, bool force);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_PLANNED_USE_STATE_H_
