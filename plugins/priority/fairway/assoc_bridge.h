// SPDX-License-Identifier: GPL-2.0-or-later
// Between slurmctld's association manager and the core's AssocTree: copy the
// tree out (SnapshotAssocs), write fairshare results back (WriteFairshare),
// and update one association in place (SetAssocUsage, for
// priority_p_set_assoc_usage). Callers hold the assoc_mgr locks named below.
#ifndef FAIRWAY_PLUGIN_ASSOC_BRIDGE_H_
#define FAIRWAY_PLUGIN_ASSOC_BRIDGE_H_

#include <vector>

#include "assoc_tree.h"
#include "fairshare.h"
#include "plugin_config.h"

struct slurmdb_assoc_rec;

namespace fairway::plugin {

struct AssocSnapshot {
  AssocTree tree;
  std::vector<slurmdb_assoc_rec*> records;  // indexed like tree.nodes()
};

// Requires: assoc_mgr assoc lock (read or write). Nodes come in depth-first
// order of the children lists, so sibling order is Slurm's list order, and
// shares use assoc_mgr's own normalisation. False if there is no root.
bool SnapshotAssocs(FairshareMode mode, AssocSnapshot* snapshot);

// Requires: assoc_mgr assoc WRITE lock, and the records still alive (the
// same lock hold as the snapshot). Writes usage_norm, usage_efctv and, in
// Fair Tree, level_fs and fs_factor.
void WriteFairshare(const AssocSnapshot& snapshot, const FairshareResults& results);

// One association's usage_norm and (classic or depth-oblivious) usage_efctv
// from its fs parent's current values. has_efctv is false when the
// association has no fs parent (usage_efctv is then left as it is).
struct AssocUsageValues {
  long double usage_norm = 0;
  long double usage_efctv = 0;
  bool has_efctv = false;
};

// Requires: at least the assoc_mgr assoc READ lock. Writes nothing, so a
// reader (a job's fairshare factor under the read lock) can use it.
AssocUsageValues ComputeAssocUsage(const slurmdb_assoc_rec* assoc, const PluginConfig& config);

// priority_p_set_assoc_usage: stores ComputeAssocUsage's values.
// Slurm calls it when an association's usage_efctv is NO_VAL, holding only
// the assoc READ lock (assoc_mgr_get_shares, for sshare) or no assoc lock
// (job_limits_check): slurm-22-05-8-1:src/common/assoc_mgr.c,
// slurm-22-05-8-1:src/slurmctld/job_mgr.c. Fairway never leaves usage_efctv
// at NO_VAL (a new association starts at 0 and every pass stores a value
// under the WRITE lock), so Slurm does not call it in practice; should it,
// writers are serialised by a mutex of this file, and readers under the
// read lock can race with the store exactly as with multifactor.
void SetAssocUsage(slurmdb_assoc_rec* assoc, const PluginConfig& config);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_ASSOC_BRIDGE_H_
