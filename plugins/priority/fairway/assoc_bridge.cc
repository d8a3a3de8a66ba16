// SPDX-License-Identifier: GPL-2.0-or-later
#include "assoc_bridge.h"

#include <unordered_set>

#include "classic.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

AssocNode NodeFrom(const slurmdb_assoc_rec_t* assoc) {
  AssocNode node;
  node.id = assoc->id;
  node.parent_id = assoc->usage->parent_assoc_ptr ? assoc->parent_id : 0;
  node.acct = assoc->acct ? assoc->acct : "";
  node.user = assoc->user ? assoc->user : "";
  node.partition = assoc->partition ? assoc->partition : "";
  node.shares_raw = assoc->shares_raw;
  node.usage_raw = assoc->usage->usage_raw;
  node.priority = assoc->priority;
  return node;
}

void Visit(slurmdb_assoc_rec_t* assoc, std::vector<slurmdb_assoc_rec_t*>* order,
           std::unordered_set<const void*>* seen) {
  if (!seen->insert(assoc).second) return;
  order->push_back(assoc);
  List children = assoc->usage->children_list;
  if (!children) return;
  ListIterator it = list_iterator_create(children);
  while (auto* child = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) Visit(child, order, seen);
  list_iterator_destroy(it);
}

}  // namespace

bool SnapshotAssocs(FairshareMode mode, AssocSnapshot* snapshot) {
  snapshot->records.clear();
  if (!assoc_mgr_root_assoc || !assoc_mgr_assoc_list) return false;
  std::unordered_set<const void*> seen;
  Visit(assoc_mgr_root_assoc, &snapshot->records, &seen);
  // Associations no children list reaches (orphans) still count as users.
  ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    if (!seen.count(assoc) && assoc->usage) {
      seen.insert(assoc);
      snapshot->records.push_back(assoc);
    }
  }
  list_iterator_destroy(it);

  std::vector<AssocNode> nodes;
  nodes.reserve(snapshot->records.size());
  for (slurmdb_assoc_rec_t* assoc : snapshot->records) {
    AssocNode node = NodeFrom(assoc);
    if (assoc != assoc_mgr_root_assoc && node.parent_id == 0) node.parent_id = kNoVal;  // orphan
    nodes.push_back(std::move(node));
  }
  std::string error;
  if (!snapshot->tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(mode), &error)) {
    return false;
  }
  // Use assoc_mgr's own normalisation when it normalised for the same family
  // of modes (it follows PriorityFlags); a PriorityParameters mode of the
  // other family keeps the core's.
  const bool slurm_fair_tree = slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE;
  if (slurm_fair_tree != SharesNormalizedLikeFairTree(mode)) return true;
  for (size_t i = 0; i < snapshot->records.size(); ++i) {
    const slurmdb_assoc_usage_t* usage = snapshot->records[i]->usage;
    snapshot->tree.OverrideNormalization(static_cast<int32_t>(i), usage->level_shares,
                                         usage->shares_norm, usage->priority_norm);
  }
  return true;
}

void WriteFairshare(const AssocSnapshot& snapshot, const FairshareResults& results) {
  const AssocTree& tree = snapshot.tree;
  // Fair Tree and Fairway's own modes publish LevelFS and users' FairShare
  // through level_fs and fs_factor; the classic modes leave them alone.
  const bool fair_tree = SharesNormalizedLikeFairTree(results.mode);
  for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
    slurmdb_assoc_usage_t* usage = snapshot.records[i]->usage;
    const AssocFairshare& fs = results.assocs[i];
    if (i == tree.root()) {
      if (fair_tree) usage->level_fs = static_cast<long double>(NO_VAL);
      continue;
    }
    if (tree.links(i).fs_parent < 0) continue;  // orphans are never computed
    usage->usage_norm = fs.usage_norm;
    usage->usage_efctv = fs.usage_efctv;
    if (fair_tree) {
      usage->level_fs = fs.level_fs;
      // Planned use: the factor a job gets is the minimum along the path
      // (an account beyond its plan holds back its users); elsewhere the
      // two are equal.
      if (tree.node(i).is_user()) usage->fs_factor = fs.job_factor;
    }
  }
}

void SetAssocUsage(slurmdb_assoc_rec_t* assoc, const PluginConfig& config) {
  if (!assoc || !assoc->usage || !assoc_mgr_root_assoc) return;
  slurmdb_assoc_usage_t* usage = assoc->usage;
  usage->usage_norm =
      NormalizedUsage(usage->usage_raw, assoc_mgr_root_assoc->usage->usage_raw);
  slurmdb_assoc_rec_t* parent = usage->fs_assoc_ptr;
  if (!parent) return;
  if (parent == assoc_mgr_root_assoc) {
    usage->usage_efctv = usage->usage_norm;
  } else if (assoc->shares_raw == SLURMDB_FS_USE_PARENT) {
    usage->usage_efctv = parent->usage->usage_efctv;
  } else if (config.params.Mode() == FairshareMode::kDepthOblivious) {
    DepthObliviousInputs in;
    in.shares_norm = usage->shares_norm;
    in.parent_shares_norm = parent->usage->shares_norm;
    in.parent_efctv = parent->usage->usage_efctv;
    in.usage_norm = usage->usage_norm;
    if (parent->usage->children_list) {
      ListIterator it = list_iterator_create(parent->usage->children_list);
      while (auto* sibling = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
        if (sibling->shares_raw != SLURMDB_FS_USE_PARENT) {
          in.siblings_usage_norm += sibling->usage->usage_norm;
        }
      }
      list_iterator_destroy(it);
    }
    usage->usage_efctv = DepthObliviousEffectiveUsage(in);
  } else {
    // Classic, and also Fair Tree (multifactor applies the classic formula
    // here in every mode: §8 bug 19).
    usage->usage_efctv = ClassicEffectiveUsage(usage->usage_norm, parent->usage->usage_efctv,
                                               assoc->shares_raw, usage->level_shares);
  }
}

}  // namespace fairway::plugin
