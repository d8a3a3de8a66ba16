// SPDX-License-Identifier: GPL-2.0-or-later
// fw_fairshare, fw_one_assoc_usage, fw_calc_fs_factor,
// fw_fairshare_from_parent, fw_depth_oblivious_sibling: the association
// snapshot made a tree, the one fairshare entry point, and the results as
// the plugin writes them into assoc_mgr's records.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "api/api_internal.h"
#include "classic.h"

namespace fairway::api {

namespace {

// The tree node of the record whose key is `key`, or -1. keys: every
// input's (key, position), sorted.
int32_t NodeOfKey(const void* key, const std::vector<std::pair<const void*, size_t>>& keys,
                  const std::vector<int32_t>& node_of) {
  auto it = std::lower_bound(keys.begin(), keys.end(), std::make_pair(key, size_t{0}));
  if (it == keys.end() || it->first != key) return -1;
  return node_of[it->second];
}

// Gives every node after the first that carries an id an id no node has
// (above the largest), and points the nodes whose parent_key is such a
// record at its new id. False when no id is shared or no id is left.
// *shared_id: the smallest id that was shared.
bool RenumberSharedIds(const fw_assoc_input_t* in, size_t n,
                       const std::vector<std::pair<const void*, size_t>>& keys,
                       const std::vector<int32_t>& node_of, std::vector<AssocNode>* nodes,
                       uint32_t* shared_id) {
  std::vector<std::pair<uint32_t, int32_t>> by_id;
  by_id.reserve(nodes->size());
  uint32_t largest = 0;
  for (size_t i = 0; i < nodes->size(); ++i) {
    by_id.emplace_back((*nodes)[i].id, static_cast<int32_t>(i));
    largest = std::max(largest, (*nodes)[i].id);
  }
  std::sort(by_id.begin(), by_id.end());
  std::vector<uint32_t> new_id(nodes->size(), 0);
  bool any = false;
  uint32_t next = largest;
  for (size_t j = 1; j < by_id.size(); ++j) {
    if (by_id[j].first != by_id[j - 1].first) continue;
    if (!any) *shared_id = by_id[j].first;
    any = true;
    // Ids that mean "none" or "not set" to Slurm are never given.
    do {
      if (++next == 0) return false;
    } while (next == kNoVal || next == kInfinite);
    new_id[by_id[j].second] = next;
  }
  if (!any) return false;
  for (size_t i = 0; i < nodes->size(); ++i) {
    if (new_id[i]) (*nodes)[i].id = new_id[i];
  }
  for (size_t k = 0; k < n; ++k) {
    const int32_t i = node_of[k];
    if (i < 0 || !in[k].parent_key) continue;
    const int32_t parent = NodeOfKey(in[k].parent_key, keys, node_of);
    if (parent >= 0 && new_id[parent]) (*nodes)[i].parent_id = new_id[parent];
  }
  return true;
}

}  // namespace

bool RootUsageBeyondChildren(const fw_assoc_input_t* in, size_t n,
                             const std::vector<int32_t>& node_of, long double* sum) {
  if (!in || n == 0 || node_of.empty() || node_of[0] < 0) return false;
  bool keyed = false;
  long double under = in[0].removed_usage_raw;
  for (size_t k = 1; k < n; ++k) {
    if (!in[k].parent_key) continue;
    keyed = true;
    if (node_of[k] >= 0 && in[k].parent_key == in[0].key) under += in[k].usage_raw;
  }
  // Rounding: the root and each child are decayed and charged apart, so the
  // two differ in the last bits of a long double; the doubling this is
  // for (doc/differences.md) is a factor of two.
  const long double root = in[0].usage_raw;
  if (!keyed || !(root > under + 1e-3L + 1e-9L * under)) return false;
  *sum = under;
  return true;
}

bool TreeFromInputs(const fw_config& config, const fw_assoc_input_t* in, size_t n,
                    bool slurm_fair_tree_shares, const char* what, AssocTree* tree,
                    std::vector<int32_t>* node_of, bool* shared_ids) {
  if (shared_ids) *shared_ids = false;
  node_of->assign(n, -1);
  if (!in || n == 0) {
    if (what) Log(&config, FW_LOG_ERROR, "%s: no association records", what);
    return false;
  }
  // A record met again (a cycle, or one listed under two parents, or a
  // tree record met again in the whole list) is taken once, where first
  // met. Sorting (key, position) pairs rather than hashing: this runs every
  // pass over thousands of records.
  std::vector<std::pair<const void*, size_t>> keys(n);
  for (size_t k = 0; k < n; ++k) keys[k] = {in[k].key, k};
  std::sort(keys.begin(), keys.end());
  std::vector<bool> duplicate(n, false);
  for (size_t k = 1; k < n; ++k) {
    if (keys[k].first == keys[k - 1].first) duplicate[keys[k].second] = true;
  }
  const bool fair_tree_shares = SharesNormalizedLikeFairTree(config.params.Mode());
  std::vector<AssocNode> nodes;
  nodes.reserve(n);
  // assoc_mgr's own normalisation when it normalised for the same family
  // of modes (it follows PriorityFlags); a PriorityParameters mode of the
  // other family has the tree derive its own. Either way it is computed once.
  const bool slurms = slurm_fair_tree_shares == fair_tree_shares;
  std::vector<ShareNormalization> given;
  if (slurms) given.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (duplicate[k]) continue;
    const fw_assoc_input_t& a = in[k];
    AssocNode node;
    node.id = a.id;
    node.parent_id = a.parent_id;
    // Not under the root: an orphan (counted as a user, never ranked).
    if (k != 0 && (node.parent_id == 0 || a.listed_only)) node.parent_id = kNoVal;
    if (k == 0) node.parent_id = 0;
    node.acct = a.acct ? a.acct : "";
    node.user = a.user ? a.user : "";
    node.partition = a.partition ? a.partition : "";
    node.shares_raw = a.shares_raw;
    node.usage_raw = a.usage_raw;
    node.priority = a.priority;
    (*node_of)[k] = static_cast<int32_t>(nodes.size());
    if (slurms) given.push_back(ShareNormalization{a.level_shares, a.shares_norm, a.priority_norm});
    nodes.push_back(std::move(node));
  }
  std::string error;
  if (tree->Build(std::move(nodes), fair_tree_shares, &error, slurms ? &given : nullptr)) {
    return true;
  }
  // Records that share an id (slurmdbd never sends them): each is made an
  // association of its own, as assoc_mgr links by pointer, and the tree is
  // built again. Only on this path, so a sound snapshot pays nothing.
  std::vector<AssocNode> again = tree->nodes();
  uint32_t shared_id = 0;
  if (RenumberSharedIds(in, n, keys, *node_of, &again, &shared_id) &&
      tree->Build(std::move(again), fair_tree_shares, &error, slurms ? &given : nullptr)) {
    if (shared_ids) *shared_ids = true;
    if (what && config.warned_shared_id.exchange(shared_id) != shared_id) {
      Log(&config, FW_LOG_ERROR,
          "%s: more than one association record has id %u; each is computed as its own "
          "association (said once per id and configuration)",
          what, shared_id);
    }
    return true;
  }
  if (what) {
    Log(&config, FW_LOG_ERROR, "%s: the association records make no tree (%s); skipped", what,
        error.c_str());
  }
  node_of->assign(n, -1);
  return false;
}

}  // namespace fairway::api

using namespace fairway;
using fairway::api::ReportException;

extern "C" {

size_t fw_assocs_unreached(const void* const* reached, size_t n_reached,
                           const void* const* listed, size_t n_listed, size_t* unreached) {
  if (!unreached || (!listed && n_listed)) return 0;
  try {
    std::vector<const void*> sorted(reached, reached + (reached ? n_reached : 0));
    std::sort(sorted.begin(), sorted.end());
    size_t count = 0;
    for (size_t k = 0; k < n_listed; ++k) {
      if (!std::binary_search(sorted.begin(), sorted.end(), listed[k])) unreached[count++] = k;
    }
    return count;
  } catch (...) {
    // Out of memory: every listed record, which fw_fairshare also takes
    // (those met earlier are dropped there).
    for (size_t k = 0; k < n_listed; ++k) unreached[k] = k;
    return n_listed;
  }
}

bool fw_fairshare(const fw_config_t* config, const fw_assoc_input_t* in, size_t n,
                  bool slurm_fair_tree_shares, const fw_ledger_t* ledger,
                  uint32_t capacity_cpus, fw_assoc_result_t* out) {
  return fw_fairshare_with_remote(config, in, n, slurm_fair_tree_shares, ledger, capacity_cpus,
                                  nullptr, 0, out);
}

bool fw_fairshare_with_remote(const fw_config_t* config, const fw_assoc_input_t* in, size_t n,
                              bool slurm_fair_tree_shares, const fw_ledger_t* ledger,
                              uint32_t capacity_cpus, fw_remote_t* remote, int64_t now,
                              fw_assoc_result_t* out) {
  if (!config || !out) return false;
  try {
    // Without slurmdbd there is no fairshare: nothing is written.
    if (!config->calc_fairshare) {
      for (size_t k = 0; k < n; ++k) out[k] = fw_assoc_result_t{};
      return true;
    }
    AssocTree tree;
    std::vector<int32_t> node_of;
    bool shared_ids = false;
    if (!api::TreeFromInputs(*config, in, n, slurm_fair_tree_shares, "fairshare", &tree,
                             &node_of, &shared_ids)) {
      return false;
    }
    // Not where records share an id: assoc_mgr files usage by id (at load
    // and at each refresh) on one of them while the root counts both, so
    // the root holds the only whole total there, as multifactor reads it.
    long double root_usage = 0;
    const bool root_repaired =
        !shared_ids && api::RootUsageBeyondChildren(in, n, node_of, &root_usage);
    if (root_repaired) {
      api::Log(config, FW_LOG_ERROR,
          "fairshare: the root association's RawUsage %.0Lf is more than the %.0Lf of the "
          "associations under it (slurmctld's association manager counts the root's usage "
          "twice when slurmdbd returns after slurmctld started without it); the sum is used "
          "and written back",
          in[0].usage_raw, root_usage);
      tree.set_usage_raw(tree.root(), root_usage);
    }
    // The other clusters' usage joins the local usage here, after the
    // root's repair (which writes local usage back).
    if (remote && !config->params.fairshare_clusters.empty()) {
      api::AddRemoteUsage(*config, remote, now, &tree);
    }
    // Without TRESBillingWeights a CPU bills 1: the cluster's CPUs are the
    // planned-use capacity unless PriorityParameters sets one.
    const double cpus = capacity_cpus != FW_NO_VAL ? static_cast<double>(capacity_cpus) : 0.0;
    // Planned use reads its ledger: the other clusters' ledger entries
    // join a copy of it, by path, as their usage joined the tree's.
    const PlannedUseLedger* use_ledger = ledger ? &ledger->ledger : nullptr;
    PlannedUseLedger combined;
    if (remote && !config->params.fairshare_clusters.empty() &&
        config->params.Mode() == FairshareMode::kPlannedUse) {
      if (ledger) combined = ledger->ledger;
      AddRemotePlan(tree, remote->last_used.PlanSum(), &combined);
      use_ledger = &combined;
    }
    const FairshareResults results = ComputeFairshare(tree, config->params, use_ledger, cpus);
    // Fair Tree and Fairway's own modes publish LevelFS and users' FairShare
    // through level_fs and fs_factor; the classic modes leave them alone.
    const bool fair_tree = SharesNormalizedLikeFairTree(results.mode);
    for (size_t k = 0; k < n; ++k) {
      fw_assoc_result_t& r = out[k];
      r = fw_assoc_result_t{};
      const int32_t i = node_of[k];
      if (i < 0) continue;  // met earlier: written through its first entry
      const AssocFairshare& fs = results.assocs[i];
      if (i == tree.root()) {
        if (fair_tree) {
          r.write_level_fs = true;
          r.level_fs = static_cast<long double>(FW_NO_VAL);
        }
        r.write_usage_raw = root_repaired;
        r.usage_raw = root_usage;
        continue;
      }
      if (tree.links(i).fs_parent < 0) continue;  // orphans are never computed
      r.write_usage = true;
      r.usage_norm = fs.usage_norm;
      r.usage_efctv = fs.usage_efctv;
      if (fair_tree) {
        r.write_level_fs = true;
        r.level_fs = fs.level_fs;
      }
      // Fair Tree's modes: users' (planned use: the minimum along the path,
      // as an account beyond its plan holds back its users; elsewhere the
      // user's own). Classic modes: every association's, as multifactor
      // keeps it (_set_assoc_fs_factor for accounts every pass, for users
      // when sshare or a job asks: slurm-25-11-7-1:src/plugins/priority/
      // multifactor/priority_multifactor.c); from 25.11 sshare's FairShare,
      // a job's factor and UsageThreshold read it, also for users with no
      // job.
      if (!fair_tree || tree.node(i).is_user()) {
        r.write_fs_factor = true;
        r.fs_factor = fs.job_factor;
      }
    }
    return true;
  } catch (...) {
    ReportException(config, "fw_fairshare");
  }
  return false;
}

void fw_one_assoc_usage(const fw_config_t* config, const fw_one_assoc_input_t* in,
                        fw_one_assoc_usage_t* out) {
  if (!config || !in || !out) return;
  *out = fw_one_assoc_usage_t{};
  try {
    OneAssocUsageInputs one;
    one.usage_raw = in->usage_raw;
    one.root_usage_raw = in->root_usage_raw;
    if (!in->has_fs_parent) {
      out->usage_norm = ComputeOneAssocUsage(one, false).usage_norm;
      return;
    }
    one.parent_is_root = in->parent_is_root;
    one.uses_parent = in->shares_raw == kSharesUseParent;
    one.parent_efctv = in->parent_efctv;
    one.shares_raw = in->shares_raw;
    one.level_shares = in->level_shares;
    one.shares_norm = in->shares_norm;
    one.parent_shares_norm = in->parent_shares_norm;
    const bool depth_oblivious = config->params.Mode() == FairshareMode::kDepthOblivious;
    if (depth_oblivious && in->sibling_usage_norm) {
      one.sibling_usage_norm = in->sibling_usage_norm;
      one.sibling_count = in->sibling_count;
      if (in->self_index < in->sibling_count) one.self_index = in->self_index;
    }
    const OneAssocUsage values = ComputeOneAssocUsage(one, depth_oblivious);
    out->usage_norm = values.usage_norm;
    out->usage_efctv = values.usage_efctv;
    out->has_efctv = true;
  } catch (...) {
    ReportException(config, "fw_one_assoc_usage");
  }
}

void fw_sum_usage_tres(const long double* const* children, size_t n, const long double* removed,
                       uint32_t tres_cnt, long double* out) {
  if (!out) return;
  for (uint32_t t = 0; t < tres_cnt; ++t) {
    long double sum = removed ? removed[t] : 0.0L;
    for (size_t c = 0; c < n; ++c) {
      if (children && children[c]) sum += children[c][t];
    }
    out[t] = sum;
  }
}

double fw_calc_fs_factor(long double usage_efctv, long double shares_norm, uint16_t damp) {
  return CalcFsFactor(usage_efctv, shares_norm, damp);
}

bool fw_fairshare_from_parent(uint32_t shares_raw, bool has_fs_parent) {
  return shares_raw == kSharesUseParent && has_fs_parent;
}

bool fw_depth_oblivious_sibling(uint32_t shares_raw) { return shares_raw != kSharesUseParent; }

}  // extern "C"
