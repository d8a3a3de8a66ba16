// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway explain job|assoc|compare`: fetches the controller's state,
// recomputes with the core library (explain_model) and prints the whole
// derivation, stating loudly whether it equals what the controller has.
#include "explain.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "explain_model.h"
#include "pass_stats.h"
#include "text_util.h"

namespace fairway {

namespace {

constexpr int kMismatch = 1;
constexpr int kError = 3;

struct Options {
  bool json = false;
  std::vector<std::string> ids;
};

std::string Fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string Ld(long double value) {
  if (std::isinf(value)) return "inf";
  if (value == kNoValLd) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6Lf", value);
  return buf;
}

bool LoadModel(ExplainModel* model, std::vector<client::ControllerJob>* jobs,
               std::vector<client::ControllerFactors>* factors) {
  client::ControllerState state;
  std::string error;
  if (!client::LoadControllerState(&state, &error) ||
      (jobs && !client::LoadJobs(jobs, state.tres_names, &error)) ||
      (factors && !client::LoadFactors(factors, &error))) {
    std::fprintf(stderr, "fairway explain: %s\n", error.c_str());
    return false;
  }
  for (const Diagnostic& d : state.config_diagnostics) {
    std::fprintf(stderr, "fairway explain: warning: %s\n", d.Format().c_str());
  }
  const bool hidden = state.private_usage;
  if (!BuildExplainModel(std::move(state), model, &error)) {
    std::fprintf(stderr, "fairway explain: association tree: %s%s\n", error.c_str(),
                 hidden ? " (PrivateData=usage hides the association tree from users who are "
                          "neither operators nor coordinators)"
                        : "");
    return false;
  }
  return true;
}

std::vector<int32_t> PathToRoot(const AssocTree& tree, int32_t i) {
  std::vector<int32_t> path;
  for (int32_t a = i; a >= 0; a = tree.links(a).parent) path.push_back(a);
  std::reverse(path.begin(), path.end());
  return path;
}

const char* ModeFormula(FairshareMode mode) {
  switch (mode) {
    case FairshareMode::kClassic:
      return "classic: UE = UA + (UE_parent - UA) * S_child / S_siblings; F = 2^(-UE / S / d)";
    case FairshareMode::kDepthOblivious:
      return "depth-oblivious: UE = Rp * Rl^k * S; F = 2^(-UE / S / d)";
    case FairshareMode::kFairTree:
      return "fair tree: LevelFS = S / U per level; users ranked by LevelFS down the tree; F = rank / users";
    case FairshareMode::kRanged:
      return "ranged: f = 2^(-U / (S * d)) among siblings; F = hi_p - (1 - f) * (hi_p - lo_p)";
    case FairshareMode::kPlannedUse:
      return "planned use: R = S_machine * C; u = (1 - D) / (R * dt) * (c + D * H); F = min(1, 1/u) along the path";
  }
  return "";
}

// fairshare_clusters: each association's usage on the path, local and per
// other cluster, as the last pass added it, and how old each cluster's
// last sync was then.
void PrintRemoteUsage(const ExplainModel& m, int32_t target) {
  if (!m.have_remote) {
    std::printf("  (other clusters: %s; usage shown is local only)\n", m.remote_note.c_str());
    return;
  }
  std::printf("  usage is local plus the other clusters' (fairshare_clusters), as the pass at %lld added it:\n",
              static_cast<long long>(m.remote.at));
  for (int32_t i : PathToRoot(m.tree, target)) {
    const std::string path = LocalPath(m.tree, i);
    const AssocNode& n = m.tree.node(i);
    std::printf("  %-22s local %.0Lf", (n.is_user() ? n.acct + "/" + n.user : n.acct).c_str(),
                m.state.assocs[i].node.usage_raw);
    for (const auto& [cluster, paths] : m.remote.by_cluster) {
      std::printf(" + %s %.0Lf", cluster.c_str(), RemoteUsageUnder(paths, path));
    }
    std::printf(" = %.0Lf\n", n.usage_raw);
  }
  for (const auto& [cluster, synced] : m.remote.synced_at) {
    if (synced) {
      std::printf("  cluster %s: last synced %lld s before that pass\n", cluster.c_str(),
                  static_cast<long long>(m.remote.at - synced));
    } else {
      std::printf("  cluster %s: never synced (slurmdbd has not answered yet)\n", cluster.c_str());
    }
  }
}

// Prints the path from the root to the association with every level's
// values, recomputed and as the controller holds them.
bool PrintAssocPath(const ExplainModel& m, int32_t target) {
  const FairshareMode mode = m.fairshare.mode;
  std::printf("Fairshare mode: %s\n  %s\n", FairshareModeName(mode), ModeFormula(mode));
  std::printf("  %-22s %8s %8s %10s %14s %10s %12s %10s %10s\n", "association", "shares", "level",
              "S", "usage", "U/UE/u", "LevelFS/f", "F", "controller");
  bool all_match = true;
  for (int32_t i : PathToRoot(m.tree, target)) {
    const AssocNode& n = m.tree.node(i);
    const AssocLinks& l = m.tree.links(i);
    const AssocFairshare& fs = m.fairshare.assocs[i];
    const client::ControllerAssoc& c = m.state.assocs[i];
    std::string name = n.is_user() ? n.acct + "/" + n.user : n.acct;
    std::string shares = i == m.tree.root() ? "" :
        n.uses_parent() ? "parent" : std::to_string(n.shares_raw);
    std::string level = l.level_shares == kNoVal ? "" : std::to_string(l.level_shares);
    double factor = fs.job_factor;
    double controller_factor = 0;
    bool compare = i != m.tree.root();
    if (mode == FairshareMode::kClassic || mode == FairshareMode::kDepthOblivious) {
      controller_factor = CalcFsFactor(c.usage_efctv, c.shares_norm, m.state.params.damp_factor);
    } else {
      controller_factor = c.fs_factor;
      compare = compare && n.is_user();
    }
    std::string controller = compare ? Fmt("%.6f", controller_factor) : "";
    if (compare && std::fabs(controller_factor - factor) > 1e-6) {
      controller += " MISMATCH";
      all_match = false;
    }
    // Fair Tree ranks users only: accounts have no factor of their own.
    bool show_factor = i != m.tree.root() &&
                       (n.is_user() || mode == FairshareMode::kClassic ||
                        mode == FairshareMode::kDepthOblivious || mode == FairshareMode::kRanged);
    if (mode == FairshareMode::kRanged || mode == FairshareMode::kPlannedUse) {
      factor = n.is_user() ? fs.job_factor : fs.fs_factor;
    }
    std::printf("  %-22s %8s %8s %10.6f %14.0Lf %10s %12s %10s %10s\n", name.c_str(), shares.c_str(),
                level.c_str(), l.shares_norm, n.usage_raw, Ld(fs.usage_efctv).c_str(),
                Ld(fs.level_fs).c_str(), show_factor ? Fmt("%.6f", factor).c_str() : "",
                controller.c_str());
    if (mode == FairshareMode::kRanged && i != m.tree.root()) {
      std::printf("  %-22s slice [%.6f, %.6f]\n", "", fs.slice_lo, fs.slice_hi);
    }
    if (mode == FairshareMode::kPlannedUse && i != m.tree.root()) {
      auto e = m.ledger.entries.find(n.id);
      long double H = e == m.ledger.entries.end() ? 0 : e->second.history;
      long double c_open = e == m.ledger.entries.end() ? 0 : e->second.open;
      std::printf("  %-22s R = %.4f billing/s, dt = %lld s, H = %.1Lf, c = %.1Lf\n", "",
                  fs.planned_rate, static_cast<long long>(m.state.params.planned_use_interval_s), H,
                  c_open);
    }
  }
  if (mode == FairshareMode::kPlannedUse && !m.have_ledger) {
    std::printf("  (ledger: %s; H and c shown as 0)\n", m.ledger_note.c_str());
  }
  if (!m.state.params.fairshare_clusters.empty()) PrintRemoteUsage(m, target);
  return all_match;
}

// The refusal of a job the controller does not list, in sprio's words.
constexpr const char* kNotFound = "Unable to find jobs matching user/id(s) specified";

// Partial view: the visible associations from the topmost visible ancestor
// down to `target`, with what the core recomputes from their own values,
// then one line naming what PrivateData=usage hides. Returns false when a
// recomputed value differs from the controller's.
bool PrintVisiblePath(const ExplainModel& m, int32_t target) {
  const client::ControllerState& st = m.state;
  const FairshareMode mode = m.fairshare.mode;
  std::vector<int32_t> path;
  for (int32_t a = target; a >= 0; a = FindVisibleAssoc(st, st.assocs[a].node.parent_id)) {
    path.push_back(a);
    if (path.size() > st.assocs.size()) break;  // a cycle: never loop
  }
  std::reverse(path.begin(), path.end());
  std::printf("Fairshare mode: %s (partial view: the associations PrivateData=usage lets you see)\n  %s\n",
              FairshareModeName(mode), ModeFormula(mode));
  // The recomputed level value and, last, the controller's (Fair Tree:
  // LevelFS = S/U; ranged: f); the other modes have none to show.
  const char* level_name = mode == FairshareMode::kFairTree ? "LevelFS"
                           : mode == FairshareMode::kRanged ? "f"
                                                            : "";
  const std::string ctld_level = *level_name ? std::string("ctld ") + level_name : "";
  std::printf("  %-22s %8s %8s %10s %14s %10s %12s %10s %12s\n", "association", "shares", "level",
              "S", "usage", "U/UE/u", level_name, "F", ctld_level.c_str());
  bool all_match = true;
  VisibleFairshare last;
  for (int32_t i : path) {
    const client::ControllerAssoc& c = st.assocs[i];
    const AssocNode& n = c.node;
    VisibleFairshare v = ExplainVisibleFairshare(st, i);
    std::string name = n.is_user() ? n.acct + "/" + n.user : n.acct;
    std::string shares = n.uses_parent() ? "parent" : std::to_string(n.shares_raw);
    std::string level = c.level_shares == kNoVal ? "" : std::to_string(c.level_shares);
    std::string lfs, controller;
    if (v.has_level) {
      lfs = Ld(v.level);
      controller = Ld(v.controller_level);
      if (!v.level_match) {
        controller += " MISMATCH";
        all_match = false;
      }
    }
    // Fair Tree gives accounts no factor; elsewhere an unknown one is hidden.
    std::string factor = v.factor_known                                    ? Fmt("%.6f", v.factor)
                         : n.is_user() || mode != FairshareMode::kFairTree ? "hidden"
                                                                           : "";
    if (v.factor_known && !v.factor_recomputed) factor += "*";
    std::printf("  %-22s %8s %8s %10.6f %14.0Lf %10s %12s %10s %12s\n", name.c_str(),
                shares.c_str(), level.c_str(), c.shares_norm, n.usage_raw, Ld(c.usage_efctv).c_str(),
                lfs.c_str(), factor.c_str(), controller.c_str());
    last = v;
  }
  if (last.factor_known && !last.factor_recomputed) {
    std::printf("  (* the controller's value)\n");
  }
  std::printf("  %s\n", last.hidden.c_str());
  return all_match;
}

int ExplainAssoc(const Options& o) {
  ExplainModel m;
  if (!LoadModel(&m, nullptr, nullptr)) return kError;
  int status = 0;
  for (const std::string& id : o.ids) {
    std::vector<std::string> parts = Split(id, ',');
    std::string user = parts.size() > 1 ? parts[1] : "";
    int32_t i = FindExplainAssoc(m, parts[0], user);
    if (i < 0) {
      std::fprintf(stderr, "fairway explain: no association %s (account[,user])\n", id.c_str());
      status = kError;
      continue;
    }
    if (m.partial) {
      VisibleFairshare v = ExplainVisibleFairshare(m.state, i);
      const client::ControllerAssoc& c = m.state.assocs[i];
      if (o.json) {
        nlohmann::json j = {{"account", c.node.acct}, {"user", c.node.user},
                            {"mode", FairshareModeName(m.fairshare.mode)}, {"partial", true},
                            {"shares_norm", c.shares_norm},
                            {"usage_raw", static_cast<double>(c.node.usage_raw)},
                            {"usage_efctv", static_cast<double>(c.usage_efctv)},
                            {"factor_recomputed", v.factor_recomputed}, {"hidden", v.hidden}};
        if (v.factor_known) j["factor"] = v.factor;
        if (v.has_level) {
          j["level"] = static_cast<double>(v.level);
          j["controller_level"] = static_cast<double>(v.controller_level);
        }
        std::printf("%s\n", j.dump(2).c_str());
        if (!v.level_match) status = std::max(status, kMismatch);
        continue;
      }
      std::printf("Association %s\n", id.c_str());
      if (!PrintVisiblePath(m, i)) {
        std::printf("RESULT: MISMATCH between the recomputation from the visible values and the "
                    "controller\n");
        status = std::max(status, kMismatch);
      } else if (v.has_level) {
        std::printf("RESULT: the visible values reproduce the controller's %s; the factor F "
                    "depends on hidden associations\n",
                    m.fairshare.mode == FairshareMode::kRanged ? "local factor f" : "LevelFS");
      } else if (v.factor_recomputed) {
        std::printf("RESULT: F recomputed from the controller's UE and S; how UE arises depends "
                    "on hidden associations\n");
      } else {
        std::printf("RESULT: nothing recomputable from the visible values; F is the "
                    "controller's\n");
      }
      continue;
    }
    if (o.json) {
      const AssocFairshare& fs = m.fairshare.assocs[i];
      nlohmann::json j = {{"account", m.tree.node(i).acct}, {"user", m.tree.node(i).user},
                          {"mode", FairshareModeName(m.fairshare.mode)},
                          {"shares_norm", m.tree.links(i).shares_norm},
                          {"usage_raw", static_cast<double>(m.tree.node(i).usage_raw)},
                          {"usage_efctv", static_cast<double>(fs.usage_efctv)},
                          {"factor", fs.job_factor}};
      if (m.have_remote) {
        // usage_raw is local plus this (the subtree's, per cluster).
        const std::string path = LocalPath(m.tree, i);
        nlohmann::json remote = nlohmann::json::object();
        for (const auto& [cluster, paths] : m.remote.by_cluster) {
          remote[cluster] = {{"usage", static_cast<double>(RemoteUsageUnder(paths, path))},
                             {"synced_before_pass_s", m.remote.at - m.remote.synced_at.at(cluster)}};
        }
        j["local_usage_raw"] = static_cast<double>(m.state.assocs[i].node.usage_raw);
        j["other_clusters"] = remote;
      }
      std::printf("%s\n", j.dump(2).c_str());
      continue;
    }
    std::printf("Association %s\n", id.c_str());
    if (!PrintAssocPath(m, i)) {
      std::printf("RESULT: MISMATCH between the recomputation and the controller\n");
      status = std::max(status, kMismatch);
    } else {
      std::printf("RESULT: recomputed fairshare equals the controller's\n");
    }
  }
  return status;
}

// A job the controller did not list: absent, or another user's under
// PrivateData=jobs. slurmctld tells the two apart for no one (scontrol
// says "Invalid job id specified" for both), so neither do we; the words
// are sprio's.
void PrintNoJob(const char* who, const std::string& id, const client::ControllerState& state) {
  std::fprintf(stderr, "%s: job %s: %s%s\n", who, id.c_str(), kNotFound,
               state.private_jobs ? " (PrivateData=jobs: slurmctld lists only your own jobs and "
                                    "those of the accounts you coordinate)"
                                  : "");
}

void PrintJobRow(const ExplainModel& m, const client::ControllerJob& job, const JobExplanation& r) {
  const Params& p = m.state.params;
  const PriorityFactors& f = r.result.factors;
  const PriorityFactors& w = r.result.weighted;
  if (job.qos.find(',') != std::string::npos) {
    std::printf("\nPartition %s, QOS %s\n", r.partition.c_str(), r.qos.c_str());
  } else {
    std::printf("\nPartition %s\n", r.partition.c_str());
  }
  std::printf("  %-12s %-46s %10s %10s %14s\n", "factor", "input", "factor", "weight", "weighted");
  auto line = [](const char* name, const std::string& input, double factor, double weight,
                 double weighted) {
    std::printf("  %-12s %-46s %10.6f %10.0f %14.2f\n", name, input.c_str(), factor, weight, weighted);
  };
  const int64_t accrue_time = job.scalars.accrue_time;
  int64_t accrued = accrue_time ? std::max<int64_t>(0, time(nullptr) - accrue_time) : 0;
  line("age", "accrued " + std::to_string(accrued) + " s of PriorityMaxAge " +
                  std::to_string(p.max_age_s) + " s (now: " + Fmt("%.6f", r.age_now) + ")",
       f.age, p.weight_age, w.age);
  auto taken = [&](const char* what) {
    return std::find(r.from_controller.begin(), r.from_controller.end(), what) !=
           r.from_controller.end();
  };
  line("association", taken("association")
                          ? std::string("controller's (the largest Priority is hidden)")
                          : "priority " + std::to_string(r.inputs.assoc_priority) +
                                ((p.flags & kFlagNoNormalAssoc) ? " (NO_NORMAL_ASSOC)" : " / max"),
       f.assoc, p.weight_assoc, w.assoc);
  std::string fs_input = std::string(FairshareModeName(m.fairshare.mode)) + " (path below)";
  if (m.partial) {
    fs_input = taken("fairshare") ? "controller's (association hidden)"
               : r.visible.factor_recomputed
                   ? std::string(FairshareModeName(m.fairshare.mode)) + " F from UE, S (below)"
                   : "controller's F of the job's association (below)";
  }
  line("fairshare", fs_input, f.fairshare, p.weight_fairshare, w.fairshare);
  line("job size", std::to_string(r.inputs.min_nodes) + " of " + std::to_string(m.state.node_count) +
                       " nodes, " + std::to_string(r.inputs.min_cpus) + " of " +
                       std::to_string(m.state.cluster_cpus) + " CPUs" +
                       (p.favor_small ? " (favor small)" : ""),
       f.job_size, p.weight_job_size, w.job_size);
  line("partition", r.inputs.partition ? "PriorityJobFactor " +
                                             std::to_string(r.inputs.partition->priority_job_factor)
                                       : "none",
       f.partition, p.weight_partition, w.partition);
  line("QOS", (r.qos.empty() ? job.qos : r.qos) + " priority " + std::to_string(r.inputs.qos_priority), f.qos, p.weight_qos,
       w.qos);
  for (size_t i = 0; i < w.tres.size(); ++i) {
    if (p.weight_tres[i] == 0) continue;
    std::string name = "TRES " + (i < m.state.tres_names.size() ? m.state.tres_names[i] : "?");
    uint64_t value = i < r.inputs.tres_alloc.size() && !r.inputs.tres_alloc.empty()
                         ? r.inputs.tres_alloc[i]
                         : (i < r.inputs.tres_req.size() ? r.inputs.tres_req[i] : 0);
    uint64_t total = r.inputs.partition && i < r.inputs.partition->tres_cnt.size()
                         ? r.inputs.partition->tres_cnt[i]
                         : 0;
    line(name.c_str(), std::to_string(value) + " of " + std::to_string(total) + " in partition",
         f.tres[i], p.weight_tres[i], w.tres[i]);
  }
  long long site = static_cast<long long>(w.site) - kNiceOffset;
  long long nice = static_cast<long long>(w.nice) - kNiceOffset;
  std::printf("  %-12s %-46s %10s %10s %14lld\n", "site", "", "", "", site);
  std::printf("  %-12s %-46s %10s %10s %14lld\n", "nice", "subtracted", "", "", -nice);
  std::printf("  %-12s %-46s %10s %10s %14.2f\n", "sum", "", "", "", r.result.sum);
  std::printf("  priority = max(1, trunc(%.2f))%s = %u\n", r.result.sum,
              r.result.clamped ? ", clamped to 2^32-1" : "", r.result.priority);
  if (r.controller) {
    std::printf("  controller (sprio): %lld, scontrol Priority=%u\n",
                static_cast<long long>(r.controller_sum_priority), job.priority);
  } else {
    std::printf("  controller: scontrol Priority=%u (no sprio row: job not pending or hidden)\n",
                job.priority);
  }
  for (const std::string& mismatch : r.mismatches) std::printf("  MISMATCH %s\n", mismatch.c_str());
}

int ExplainJobs(const Options& o) {
  ExplainModel m;
  std::vector<client::ControllerJob> jobs;
  std::vector<client::ControllerFactors> factors;
  if (!LoadModel(&m, &jobs, &factors)) return kError;
  int status = 0;
  nlohmann::json out = nlohmann::json::array();
  // The plugin's last pass, when StateSaveLocation is readable here (on
  // the controller's host): how old the priorities shown are.
  PassStats pass;
  std::string pass_why;
  const bool pass_read =
      !m.state.state_save_location.empty() &&
      ReadPassStats(m.state.state_save_location + "/" + kPassStatsFile, &pass, &pass_why);
  const int64_t now = time(nullptr);
  if (!o.json) {
    if (pass_read) {
      std::printf("%s\n\n", DescribeLastPass(pass, now).c_str());
    } else {
      std::printf("Last pass: unknown (%s)\n\n",
                  m.state.state_save_location.empty() ? "no StateSaveLocation"
                                                      : pass_why.c_str());
    }
  }
  for (const std::string& id : o.ids) {
    std::optional<int64_t> job_id = ParseUnsigned(id);
    auto it = std::find_if(jobs.begin(), jobs.end(), [&](const client::ControllerJob& j) {
      return job_id && j.job_id == *job_id;
    });
    if (it == jobs.end()) {
      PrintNoJob("fairway explain", id, m.state);
      status = kError;
      continue;
    }
    std::vector<JobExplanation> rows = ExplainJob(m, *it, factors, time(nullptr));
    bool match = !rows.empty();
    bool job_priority_seen = false;
    for (const JobExplanation& r : rows) {
      match = match && r.priority_match && r.mismatches.empty();
      job_priority_seen = job_priority_seen || r.result.priority == it->priority;
    }
    // scontrol's Priority is one of the partition priorities (the current one).
    match = match && (job_priority_seen || rows.empty() || !it->pending);
    if (o.json) {
      for (const JobExplanation& r : rows) {
        const PriorityFactors& w = r.result.weighted;
        out.push_back({{"job_id", it->job_id}, {"partition", r.partition}, {"qos", r.qos},
                       {"recomputed_priority", r.result.priority},
                       {"controller_priority", r.controller ? r.controller_sum_priority : it->priority},
                       {"match", r.priority_match && r.mismatches.empty()},
                       {"weighted", {{"age", w.age}, {"assoc", w.assoc}, {"fairshare", w.fairshare},
                                     {"job_size", w.job_size}, {"partition", w.partition},
                                     {"qos", w.qos}, {"tres", w.tres}}},
                       {"mismatches", r.mismatches}});
        if (m.partial) {
          out.back()["partial"] = true;
          out.back()["from_controller"] = r.from_controller;
          out.back()["hidden"] = r.visible.assoc >= 0 ? r.visible.hidden : "the job's association";
        }
      }
    } else {
      std::printf("Job %u: user %s, account %s, partition %s, QOS %s, %s\n", it->job_id,
                  it->user.c_str(), it->account.c_str(), it->partition.c_str(), it->qos.c_str(),
                  it->pending ? "pending" : "not pending");
      if (pass_read && it->pending) {
        std::printf("  %s\n", DescribePriorityAge(pass, it->submit_time, now).c_str());
      }
      for (const JobExplanation& r : rows) PrintJobRow(m, *it, r);
      if (m.partial) {
        int32_t assoc = FindVisibleAssoc(m.state, it->assoc_id);
        std::printf("\n");
        if (assoc >= 0) {
          match = PrintVisiblePath(m, assoc) && match;
        } else {
          std::printf("Fairshare: hidden: the job's association (PrivateData=usage: slurmctld "
                      "sends only your own associations and those of the accounts you "
                      "coordinate)\n");
        }
        std::vector<std::string> taken = rows.empty() ? std::vector<std::string>{}
                                                      : rows[0].from_controller;
        std::string note;
        for (const std::string& t : taken) note += (note.empty() ? "" : ", ") + t;
        if (match) {
          std::printf("\nRESULT: the visible factors reproduce the controller's priority%s%s%s\n",
                      note.empty() ? "" : " (taken from the controller, their inputs being hidden: ",
                      note.c_str(), note.empty() ? "" : ")");
        } else {
          std::printf("\nRESULT: MISMATCH: the visible factors do not reproduce the controller's "
                      "priority\n");
        }
      } else {
        int32_t assoc = m.tree.Find(it->assoc_id);
        if (assoc >= 0) {
          std::printf("\n");
          PrintAssocPath(m, assoc);
        }
        std::printf("\nRESULT: %s\n", match ? "recomputed priority equals the controller's"
                                           : "MISMATCH between the recomputation and the controller");
      }
    }
    if (!match) status = std::max(status, kMismatch);
  }
  if (o.json) std::printf("%s\n", out.dump(2).c_str());
  return status;
}

int CompareJobs(const Options& o) {
  if (o.ids.size() != 2) {
    std::fprintf(stderr, "fairway explain compare: give two job ids\n");
    return 2;
  }
  ExplainModel m;
  std::vector<client::ControllerJob> jobs;
  std::vector<client::ControllerFactors> factors;
  if (!LoadModel(&m, &jobs, &factors)) return kError;
  std::vector<JobExplanation> rows[2];
  for (int k = 0; k < 2; ++k) {
    std::optional<int64_t> id = ParseUnsigned(o.ids[k]);
    auto it = std::find_if(jobs.begin(), jobs.end(),
                           [&](const client::ControllerJob& j) { return id && j.job_id == *id; });
    if (it == jobs.end()) {
      PrintNoJob("fairway explain compare", o.ids[k], m.state);
      return kError;
    }
    rows[k] = ExplainJob(m, *it, factors, time(nullptr));
    if (rows[k].empty()) return kError;
  }
  const PriorityFactors& a = rows[0][0].result.weighted;
  const PriorityFactors& b = rows[1][0].result.weighted;
  std::vector<std::pair<std::string, double>> diffs = {
      {"age", a.age - b.age}, {"association", a.assoc - b.assoc},
      {"fairshare", a.fairshare - b.fairshare}, {"job size", a.job_size - b.job_size},
      {"partition", a.partition - b.partition}, {"QOS", a.qos - b.qos},
      {"site", static_cast<double>(static_cast<int64_t>(a.site) - static_cast<int64_t>(b.site))},
      {"nice", -static_cast<double>(static_cast<int64_t>(a.nice) - static_cast<int64_t>(b.nice))}};
  for (size_t i = 0; i < a.tres.size() && i < b.tres.size(); ++i) {
    diffs.push_back({"TRES " + m.state.tres_names[i], a.tres[i] - b.tres[i]});
  }
  std::sort(diffs.begin(), diffs.end(), [](const auto& x, const auto& y) {
    return std::fabs(x.second) > std::fabs(y.second);
  });
  uint32_t pa = rows[0][0].result.priority, pb = rows[1][0].result.priority;
  std::printf("Job %s: %u   Job %s: %u   (%s ahead by %lld)\n", o.ids[0].c_str(), pa,
              o.ids[1].c_str(), pb, pa >= pb ? o.ids[0].c_str() : o.ids[1].c_str(),
              std::llabs(static_cast<long long>(pa) - static_cast<long long>(pb)));
  std::printf("  %-14s %14s  %s\n", "factor", "difference", "favours");
  for (const auto& d : diffs) {
    if (d.second == 0) continue;
    std::printf("  %-14s %+14.2f  job %s\n", d.first.c_str(), d.second,
                d.second > 0 ? o.ids[0].c_str() : o.ids[1].c_str());
  }
  return 0;
}

}  // namespace

void RegisterExplainCommand(CLI::App& app) {
  CLI::App* explain = app.add_subcommand(
      "explain", "Explain a job's priority or an association's fairshare, recomputed from the "
                 "running controller's state");
  explain->require_subcommand(1);
  auto options = std::make_shared<Options>();
  auto add = [&](const char* name, const char* help, const char* what) {
    CLI::App* sub = explain->add_subcommand(name, help);
    sub->add_option(what, options->ids, what)->required();
    sub->add_flag("--json", options->json, "Machine-readable output");
    return sub;
  };
  add("job", "Every factor of a job's priority, its weights and the integer; exit 1 on a mismatch",
      "jobid")
      ->callback([options]() {
        int rc = ExplainJobs(*options);
        if (rc) throw CLI::RuntimeError(rc);
      });
  add("assoc", "The fairshare path from the root to an association, given as account or account,user; exit 1 on a mismatch",
      "association")
      ->callback([options]() {
        int rc = ExplainAssoc(*options);
        if (rc) throw CLI::RuntimeError(rc);
      });
  add("compare", "Which factors put one job ahead of another", "jobs")
      ->callback([options]() {
        int rc = CompareJobs(*options);
        if (rc) throw CLI::RuntimeError(rc);
      });
}

}  // namespace fairway
