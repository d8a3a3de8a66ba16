// SPDX-License-Identifier: GPL-2.0-or-later
#include "assoc_bridge.h"

#include <algorithm>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "classic.h"
#include "prefetch.h"
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

// The general walk, for a tree that is not one: a record reached twice (a
// cycle, or one listed under two parents) is taken once, where first met.
void VisitOnce(slurmdb_assoc_rec_t* assoc, std::vector<slurmdb_assoc_rec_t*>* order,
               std::unordered_set<const void*>* seen) {
  if (!seen->insert(assoc).second) return;
  order->push_back(assoc);
  List children = assoc->usage->children_list;
  if (!children) return;
  ListIterator it = list_iterator_create(children);
  while (auto* child = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    VisitOnce(child, order, seen);
  }
  list_iterator_destroy(it);
}

void ListInTreeOrderChecked(std::vector<slurmdb_assoc_rec_t*>* order) {
  order->clear();
  std::unordered_set<const void*> seen;
  VisitOnce(assoc_mgr_root_assoc, order, &seen);
  // Associations no children list reaches (orphans) still count as users.
  ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    if (!seen.count(assoc) && assoc->usage) {
      seen.insert(assoc);
      order->push_back(assoc);
    }
  }
  list_iterator_destroy(it);
}

// The walk every pass takes: one read lock per children list (not one per
// element, nor an iterator allocated per list) and no hash set. It gives up
// (false) where the general walk would drop a record met twice; that walk
// then runs instead, so both give the same order.
struct TreeWalk {
  std::vector<slurmdb_assoc_rec_t*>* order;
  size_t limit;  // more records than the list holds: one was met twice
  bool gave_up = false;
};

int VisitListed(void* assoc, void* walk_arg);

void Visit(slurmdb_assoc_rec_t* assoc, TreeWalk* walk) {
  if (walk->order->size() >= walk->limit) {
    walk->gave_up = true;
    return;
  }
  walk->order->push_back(assoc);
  if (List children = assoc->usage->children_list) list_for_each_ro(children, VisitListed, walk);
}

int VisitListed(void* assoc, void* walk_arg) {
  auto* walk = static_cast<TreeWalk*>(walk_arg);
  Visit(static_cast<slurmdb_assoc_rec_t*>(assoc), walk);
  return walk->gave_up ? -1 : 0;
}

bool HasDuplicates(std::vector<const void*>* sorted) {
  std::sort(sorted->begin(), sorted->end());
  return std::adjacent_find(sorted->begin(), sorted->end()) != sorted->end();
}

bool ListInTreeOrderFast(std::vector<slurmdb_assoc_rec_t*>* order) {
  order->clear();
  TreeWalk walk{order, static_cast<size_t>(list_count(assoc_mgr_assoc_list))};
  order->reserve(walk.limit);
  Visit(assoc_mgr_root_assoc, &walk);
  if (walk.gave_up) return false;
  std::vector<const void*> reached(order->begin(), order->end());
  if (HasDuplicates(&reached)) return false;
  struct Orphans {
    const std::vector<const void*>* reached;
    std::vector<slurmdb_assoc_rec_t*>* order;
    size_t found = 0;
  } orphans{&reached, order};
  list_for_each_ro(
      assoc_mgr_assoc_list,
      [](void* listed, void* arg) {
        auto* o = static_cast<Orphans*>(arg);
        auto* assoc = static_cast<slurmdb_assoc_rec_t*>(listed);
        if (assoc->usage && !std::binary_search(o->reached->begin(), o->reached->end(), listed)) {
          o->order->push_back(assoc);
          ++o->found;
        }
        return 0;
      },
      &orphans);
  if (orphans.found > 1) {
    std::vector<const void*> found(order->end() - orphans.found, order->end());
    if (HasDuplicates(&found)) return false;
  }
  return true;
}

// What NodeFrom reads of a record, asked for a few records ahead: the
// records were listed by following pointers, so they are scattered.
FAIRWAY_PREFETCH_HELPER void PrefetchRecord(const slurmdb_assoc_rec_t* assoc) {
  __builtin_prefetch(&assoc->id);
  __builtin_prefetch(&assoc->acct);
  __builtin_prefetch(&assoc->user);
  __builtin_prefetch(&assoc->partition);
  __builtin_prefetch(&assoc->shares_raw);
  __builtin_prefetch(&assoc->priority);
}

FAIRWAY_PREFETCH_HELPER void PrefetchPointees(const slurmdb_assoc_rec_t* assoc) {
  if (assoc->acct) __builtin_prefetch(assoc->acct);
  if (assoc->user) __builtin_prefetch(assoc->user);
  if (assoc->partition) __builtin_prefetch(assoc->partition);
  if (const slurmdb_assoc_usage_t* usage = assoc->usage) {
    __builtin_prefetch(&usage->usage_raw);
    __builtin_prefetch(&usage->parent_assoc_ptr);
    __builtin_prefetch(&usage->level_shares);
    __builtin_prefetch(&usage->shares_norm);
    __builtin_prefetch(&usage->priority_norm);
  }
}

}  // namespace

bool SnapshotAssocs(FairshareMode mode, AssocSnapshot* snapshot) {
  snapshot->records.clear();
  if (!assoc_mgr_root_assoc || !assoc_mgr_assoc_list) return false;
  if (!ListInTreeOrderFast(&snapshot->records)) ListInTreeOrderChecked(&snapshot->records);

  constexpr size_t kRecordsAhead = 8, kPointeesAhead = 4;
  const std::vector<slurmdb_assoc_rec_t*>& records = snapshot->records;
  std::vector<AssocNode> nodes;
  nodes.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    if (i + kRecordsAhead < records.size()) PrefetchRecord(records[i + kRecordsAhead]);
    if (i + kPointeesAhead < records.size()) PrefetchPointees(records[i + kPointeesAhead]);
    slurmdb_assoc_rec_t* assoc = records[i];
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

AssocUsageValues ComputeAssocUsage(const slurmdb_assoc_rec_t* assoc, const PluginConfig& config) {
  AssocUsageValues out;
  const slurmdb_assoc_usage_t* usage = assoc->usage;
  const slurmdb_assoc_rec_t* parent = usage->fs_assoc_ptr;
  OneAssocUsageInputs in;
  in.usage_raw = usage->usage_raw;
  in.root_usage_raw = assoc_mgr_root_assoc->usage->usage_raw;
  if (!parent) {
    out.usage_norm = ComputeOneAssocUsage(in, false).usage_norm;
    return out;
  }
  in.parent_is_root = parent == assoc_mgr_root_assoc;
  in.uses_parent = assoc->shares_raw == SLURMDB_FS_USE_PARENT;
  in.parent_efctv = parent->usage->usage_efctv;
  in.shares_raw = assoc->shares_raw;
  in.level_shares = usage->level_shares;
  in.shares_norm = usage->shares_norm;
  in.parent_shares_norm = parent->usage->shares_norm;
  const bool depth_oblivious = config.params.Mode() == FairshareMode::kDepthOblivious;
  static thread_local std::vector<long double> siblings;
  siblings.clear();
  if (depth_oblivious && parent->usage->children_list) {
    ListIterator it = list_iterator_create(parent->usage->children_list);
    while (auto* sibling = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
      if (sibling->shares_raw == SLURMDB_FS_USE_PARENT) continue;
      if (sibling == assoc) in.self_index = siblings.size();
      siblings.push_back(sibling->usage->usage_norm);
    }
    list_iterator_destroy(it);
  }
  in.sibling_usage_norm = siblings.data();
  in.sibling_count = siblings.size();
  const OneAssocUsage values = ComputeOneAssocUsage(in, depth_oblivious);
  out.usage_norm = values.usage_norm;
  out.usage_efctv = values.usage_efctv;
  out.has_efctv = true;
  return out;
}

void SetAssocUsage(slurmdb_assoc_rec_t* assoc, const PluginConfig& config) {
  if (!assoc || !assoc->usage || !assoc_mgr_root_assoc) return;
  static std::mutex writers;
  std::lock_guard<std::mutex> hold(writers);
  const AssocUsageValues values = ComputeAssocUsage(assoc, config);
  assoc->usage->usage_norm = values.usage_norm;
  if (values.has_efctv) assoc->usage->usage_efctv = values.usage_efctv;
}

}  // namespace fairway::plugin
