// SPDX-License-Identifier: GPL-2.0-or-later
// fw_remote_*: the other clusters' usage behind the C interface
// (src/remote_usage.h), and its addition to the fairshare tree.
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "api/api_internal.h"
#include "tres_counts.h"

namespace fairway::api {

RemotePlan PlanOf(const fw_config& config) {
  RemotePlan plan;
  plan.interval_s = config.params.planned_use_interval_s;
  plan.per_interval_decay =
      PlannedUsePerIntervalDecay(config.params.planned_use_interval_s, config.params.decay_half_life_s);
  plan.wanted = config.params.Mode() == FairshareMode::kPlannedUse;
  return plan;
}

void AddRemoteUsage(const fw_config& config, fw_remote* remote, int64_t now, AssocTree* tree) {
  std::vector<std::pair<std::string, double>> clusters;
  for (const Params::RemoteCluster& c : config.params.fairshare_clusters) {
    clusters.emplace_back(c.name, c.scale);
  }
  // A view of the usage (no path copied), and in planned use the ledger
  // entries too, which AddRemotePlan reads; fairway_remote_used's bytes
  // from the same values (explain parses them into RemoteUsed::by_cluster
  // and adds them with the same function).
  const RemotePlan plan = PlanOf(config);
  ClustersView& view = remote->used_view;
  remote->used_synced_at.clear();
  if (plan.wanted) {
    remote->last_used = remote->usage.Used(clusters, now, config.decay_per_second, plan);
    view = remote->last_used.View();
  } else {
    remote->last_used = RemoteUsed();
    view = remote->usage.UsedView(clusters, now, config.decay_per_second, &remote->used_synced_at);
  }
  // fairway_remote_used's bytes are made later (fw_remote_prepare_used):
  // not under slurmctld's locks.
  remote->used_pending = true;
  remote->used_at = now;
  const uint64_t signature = LocalPathSignature(*tree);
  if (!remote->path_index_made || remote->path_index_signature != signature) {
    remote->path_index = MakeLocalPathIndex(*tree);
    remote->path_index_signature = signature;
    remote->path_index_made = true;
  }
  std::vector<std::string> unmatched;
  const std::vector<long double> extra =
      RemoteSubtreeUsage(*tree, view, remote->path_index, &unmatched);
  for (size_t i = 0; i < tree->size(); ++i) {
    if (extra[i] != 0) {
      const int32_t node = static_cast<int32_t>(i);
      tree->set_usage_raw(node, tree->node(node).usage_raw + extra[i]);
    }
  }
  for (const std::string& path : unmatched) {
    if (remote->told_unmatched.insert(path).second) {
      Log(&config, FW_LOG_INFO,
          "fairshare_clusters: the other clusters' association %s has no association here; its "
          "usage is not counted (said once)",
          path.c_str());
    }
  }
}

}  // namespace fairway::api

using fairway::api::ReportException;

extern "C" {

fw_remote_t* fw_remote_create(void) { return new (std::nothrow) fw_remote(); }

void fw_remote_destroy(fw_remote_t* remote) { delete remote; }

bool fw_remote_parse(fw_remote_t* remote, const char* bytes, size_t length, char** why) {
  if (why) *why = nullptr;
  try {
    if (!remote) throw std::invalid_argument("no remote usage");
    fairway::RemoteUsage parsed;
    std::string error;
    if (!fairway::RemoteUsage::Parse(std::string(bytes ? bytes : "", bytes ? length : 0), &parsed,
                                     &error)) {
      if (why) *why = fairway::api::MallocCopy(error);
      return false;
    }
    remote->usage = std::move(parsed);
    remote->used_view.clear();  // pointed into the usage replaced
    remote->used_pending = false;
    return true;
  } catch (const std::exception& e) {
    if (why) *why = fairway::api::MallocCopy(e.what());
  } catch (...) {
    if (why) *why = fairway::api::MallocCopy("unknown error");
  }
  return false;
}

void fw_remote_prepare_used(fw_remote_t* remote, const fw_config_t* config) {
  if (!remote || !config || !remote->used_pending) return;
  try {
    const fairway::RemotePlan plan = fairway::api::PlanOf(*config);
    if (plan.wanted) {
      remote->last_used_bytes = remote->last_used.Serialize();
    } else {
      // The view the fairshare added: still valid, the caller having held
      // the mutex throughout.
      remote->last_used_bytes = fairway::RemoteUsed::SerializeView(
          remote->used_at, plan.IndexAt(remote->used_at), remote->used_synced_at,
          remote->used_view, {});
    }
    remote->used_pending = false;
    remote->used_view.clear();
  } catch (...) {
    ReportException(config, "fw_remote_prepare_used");
  }
}

char* fw_remote_serialize(const fw_remote_t* remote, size_t* length) {
  if (length) *length = 0;
  try {
    return fairway::api::MallocBytes(
        remote ? remote->usage.Serialize() : fairway::RemoteUsage().Serialize(), length);
  } catch (...) {
    ReportException(nullptr, "fw_remote_serialize");
  }
  return nullptr;
}

int64_t fw_remote_fetch_since(const fw_remote_t* remote, const fw_config_t* config,
                              const char* cluster, int64_t now) {
  if (!remote || !config || !cluster) return now;
  try {
    return remote->usage.FetchSince(cluster, now, config->params.decay_half_life_s);
  } catch (...) {
    ReportException(config, "fw_remote_fetch_since");
  }
  return now;
}

void fw_remote_sync(fw_remote_t* remote, const fw_config_t* config, const char* cluster,
                    const fw_remote_assoc_t* assocs, size_t n_assocs, const fw_remote_job_t* jobs,
                    size_t n_jobs, int64_t now, fw_remote_sync_t* out) {
  if (out) *out = fw_remote_sync_t{};
  if (!remote || !config || !cluster) return;
  try {
    auto text = [](const char* s) { return std::string(s ? s : ""); };
    std::vector<fairway::RemoteAssoc> a(assocs ? n_assocs : 0);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = {assocs[i].id, text(assocs[i].acct), text(assocs[i].user), text(assocs[i].partition),
              text(assocs[i].parent_acct)};
    }
    std::vector<fairway::RemoteJob> j;
    j.reserve(n_jobs);
    for (size_t i = 0; i < n_jobs; ++i) {
      fairway::RemoteJob job;
      job.job_id = jobs[i].job_id;
      job.submit = jobs[i].submit;
      job.assoc_id = jobs[i].assoc_id;
      job.start = jobs[i].start;
      job.end = jobs[i].end;
      // Billing as the usage bootstrap reads it: a record whose TRES do
      // not parse carries none.
      std::map<uint32_t, uint64_t> tres;
      if (fairway::ParseTresCounts(text(jobs[i].tres_alloc), &tres)) {
        job.billing = fairway::AllocationBilling(tres);
      }
      j.push_back(job);
    }
    // A view the last fairshare left for fw_remote_prepare_used points into
    // what this sync changes: dropped (the plugin never syncs between the
    // two, holding the mutex from one to the other).
    remote->used_view.clear();
    remote->used_pending = false;
    if (!assocs && remote->usage.NeedsAssocs(cluster, j, now)) {
      if (out) out->needs_assocs = true;
      return;
    }
    const fairway::RemoteSyncResult r =
        remote->usage.Sync(cluster, assocs ? &a : nullptr, j, now, config->decay_per_second,
                           config->params.decay_half_life_s, fairway::api::PlanOf(*config));
    std::vector<std::string> named;
    for (const fairway::Params::RemoteCluster& c : config->params.fairshare_clusters) {
      named.push_back(c.name);
    }
    remote->usage.Keep(named);
    if (out) {
      out->charged = r.charged;
      out->running = r.running;
      out->repeated = r.repeated;
      out->without_path = r.without_path;
      out->charged_usage = static_cast<double>(r.charged_usage);
    }
  } catch (...) {
    ReportException(config, "fw_remote_sync");
  }
}

char* fw_remote_used_serialize(const fw_remote_t* remote, size_t* length) {
  if (length) *length = 0;
  try {
    return fairway::api::MallocBytes(
        remote && !remote->last_used_bytes.empty() ? remote->last_used_bytes
                                                   : fairway::RemoteUsed().Serialize(),
        length);
  } catch (...) {
    ReportException(nullptr, "fw_remote_used_serialize");
  }
  return nullptr;
}

int64_t fw_remote_synced_at(const fw_remote_t* remote, const char* cluster) {
  if (!remote || !cluster) return 0;
  auto it = remote->usage.clusters().find(cluster);
  return it == remote->usage.clusters().end() ? 0 : it->second.high_water;
}

}  // extern "C"
