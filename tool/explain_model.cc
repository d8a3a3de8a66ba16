// SPDX-License-Identifier: GPL-2.0-or-later
#include "explain_model.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "text_util.h"

namespace fairway {

namespace {

const client::ControllerPartition* FindPartition(const client::ControllerState& state,
                                                 const std::string& name) {
  for (const auto& p : state.partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

PartitionInputs PartitionFrom(const client::ControllerState& state,
                              const client::ControllerPartition& p) {
  uint16_t max_factor = 0;
  for (const auto& q : state.partitions) max_factor = std::max(max_factor, q.priority_job_factor);
  PartitionInputs in;
  in.name = p.name;
  in.priority_job_factor = p.priority_job_factor;
  in.norm_priority = max_factor ? static_cast<double>(p.priority_job_factor) / max_factor : 0.0;
  in.max_time_min = p.max_time_min;
  in.tres_cnt = p.tres_cnt;
  return in;
}

bool Close(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

void ReadLedger(ExplainModel* model) {
  const std::string path = model->state.state_save_location + "/fairway_planned_use";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    model->ledger_note = "cannot read " + path + " (run on the controller host as SlurmUser or root)";
    return;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string why;
  if (!ParseLedger(bytes.str(), &model->ledger, &why)) {
    model->ledger_note = path + ": " + why;
    return;
  }
  model->have_ledger = true;
}

// The other clusters' usage the last pass added, into the tree: the pass
// computed fairshare on local plus this.
void AddRemoteUsed(ExplainModel* model) {
  const std::string path = model->state.state_save_location + "/fairway_remote_used";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    model->remote_note = "cannot read " + path +
                         " (run on the controller host as SlurmUser or root; or no pass has run "
                         "with fairshare_clusters yet)";
    return;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string why;
  if (!RemoteUsed::Parse(bytes.str(), &model->remote, &why)) {
    model->remote_note = path + ": " + why;
    return;
  }
  model->have_remote = true;
  // Planned use: the pass's ledger had the other clusters' entries too.
  if (model->state.params.Mode() == FairshareMode::kPlannedUse) {
    AddRemotePlan(model->tree, model->remote.PlanSum(), &model->ledger);
  }
  // The pass's function, on the values it wrote: the same sums in the same
  // order (api_remote.cc's AddRemoteUsage).
  const std::vector<long double> extra = RemoteSubtreeUsage(
      model->tree, model->remote.View(), MakeLocalPathIndex(model->tree), nullptr);
  for (size_t i = 0; i < extra.size(); ++i) {
    const int32_t node = static_cast<int32_t>(i);
    if (extra[i] != 0) model->tree.set_usage_raw(node, model->tree.node(node).usage_raw + extra[i]);
  }
}

}  // namespace

bool BuildExplainModel(client::ControllerState state, ExplainModel* model, std::string* error) {
  model->state = std::move(state);
  std::vector<AssocNode> nodes;
  for (const auto& a : model->state.assocs) nodes.push_back(a.node);
  const FairshareMode mode = model->state.params.Mode();
  if (model->state.private_usage && ViewIsPartial(model->state)) {
    model->partial = true;
    model->fairshare.mode = mode;
    return true;
  }
  if (!model->tree.Build(std::move(nodes), SharesNormalizedLikeFairTree(mode), error)) return false;
  if (mode == FairshareMode::kPlannedUse) ReadLedger(model);
  if (!model->state.params.fairshare_clusters.empty()) AddRemoteUsed(model);
  model->fairshare = ComputeFairshare(model->tree, model->state.params, &model->ledger,
                                      model->state.cluster_cpus);
  return true;
}

int32_t FindExplainAssoc(const ExplainModel& model, const std::string& account,
                         const std::string& user, const std::string& partition) {
  const std::string acct = ToLower(account);
  for (int32_t i = 0; i < static_cast<int32_t>(model.state.assocs.size()); ++i) {
    const AssocNode& n = model.state.assocs[i].node;
    if (n.acct == acct && n.user == user && (partition.empty() || n.partition == partition)) {
      return i;
    }
  }
  return -1;
}

std::vector<JobExplanation> ExplainJob(const ExplainModel& model, const client::ControllerJob& job,
                                       const std::vector<client::ControllerFactors>& factors,
                                       int64_t now, const Params* controller_params,
                                       int64_t age_shift_s) {
  const client::ControllerState& state = model.state;
  const Params& params = state.params;
  // The weights sprio's factors were multiplied by.
  const Params& weighted = controller_params ? *controller_params : params;
  JobInputs base;
  base.job_id = job.job_id;
  // The job's scalars as LoadJobs made them; the association's and QOS's
  // are set below, from the tree and the QOS table.
  static_cast<fw_job_scalars_t&>(base) = job.scalars;
  VisibleFairshare visible;
  bool fairshare_hidden = false, assoc_priority_hidden = false;
  if (!model.partial) {
    int32_t assoc = model.tree.Find(job.assoc_id);
    base.has_assoc = assoc >= 0;
    if (assoc >= 0) {
      base.fairshare_factor = model.fairshare.assocs[assoc].job_factor;
      base.assoc_priority = model.tree.node(assoc).priority;
      base.assoc_priority_norm = model.tree.links(assoc).priority_norm;
    }
  } else {
    // The controller found the job's association (it has an id) even when
    // this user may not see it.
    base.has_assoc = job.assoc_id != 0;
    int32_t assoc = FindVisibleAssoc(state, job.assoc_id);
    if (assoc >= 0) {
      visible = ExplainVisibleFairshare(state, assoc);
      base.assoc_priority = state.assocs[assoc].node.priority;
      assoc_priority_hidden = !VisibleAssocPriorityNorm(state, assoc, &base.assoc_priority_norm);
    } else {
      assoc_priority_hidden = true;
    }
    fairshare_hidden = !visible.factor_known;
    if (!fairshare_hidden) base.fairshare_factor = visible.factor;
  }
  // A pending job's QOS is what it asked for: "a,b" for several QOS.
  std::vector<std::string> qos_names = Split(job.qos, ',');
  if (qos_names.empty()) qos_names.push_back("");
  const bool several_qos = qos_names.size() > 1;
  auto with_qos = [&state](const std::string& name, JobInputs* in) {
    for (const auto& q : state.qos) {
      if (q.name == name) {
        in->has_qos = true;
        in->qos_priority = q.priority;
        in->qos_norm_priority = q.norm_priority;
      }
    }
  };
  base.tres_req = job.tres_req;
  base.tres_alloc = job.tres_alloc;
  const ClusterInputs cluster{state.cluster_cpus, state.node_count};

  std::vector<JobExplanation> rows;
  for (const std::string& name : Split(job.partition, ',')) {
    for (const std::string& qos : qos_names) {
      JobExplanation row;
      row.partition = name;
      row.qos = qos;
      row.inputs = base;
      with_qos(qos, &row.inputs);
      if (const auto* p = FindPartition(state, name)) row.inputs.partition = PartitionFrom(state, *p);
      for (const auto& f : factors) {
        if (f.job_id == job.job_id && f.partition == name && (!several_qos || f.qos_name == qos)) {
          row.controller = &f;
        }
      }
      row.visible = visible;
      // Hidden inputs: the controller's factor, recovered from sprio's
      // weighted value, so the core still computes the sum and the integer.
      if (fairshare_hidden) {
        row.from_controller.push_back("fairshare");
        if (row.controller && weighted.weight_fairshare) {
          row.inputs.fairshare_factor = row.controller->fairshare / weighted.weight_fairshare;
        }
      }
      if (assoc_priority_hidden && weighted.weight_assoc) {
        row.from_controller.push_back("association");
        if (row.controller) {
          const double factor = row.controller->assoc / weighted.weight_assoc;
          row.inputs.assoc_priority_norm = factor;
          if (weighted.flags & kFlagNoNormalAssoc) {
            row.inputs.assoc_priority = static_cast<uint32_t>(std::llround(factor));
          }
        }
      }
      auto taken = [&](const char* what) {
        return std::find(row.from_controller.begin(), row.from_controller.end(), what) !=
               row.from_controller.end();
      };
      row.age_now = ComputeJobPriority(row.inputs, params, cluster, now).factors.age;
      // Age at the controller's last computation: its weighted value / weight.
      int64_t age_time = now;
      if (row.controller && weighted.weight_age && weighted.max_age_s > 0 &&
          job.scalars.accrue_time) {
        double age_factor = row.controller->age / weighted.weight_age;
        age_time = job.scalars.accrue_time + static_cast<int64_t>(std::llround(age_factor * weighted.max_age_s));
        if (age_factor >= 1.0) age_time = std::max<int64_t>(age_time, now);
      }
      row.result = ComputeJobPriority(row.inputs, params, cluster, age_time + age_shift_s);
      if (row.controller) {
        const auto& c = *row.controller;
        const auto& w = row.result.weighted;
        auto check = [&](const char* what, double mine, double theirs) {
          if (!Close(mine, theirs)) {
            std::ostringstream text;
            text.precision(10);
            text << what << ": recomputed " << mine << ", controller " << theirs;
            row.mismatches.push_back(text.str());
          }
        };
        check("age", w.age, c.age);
        if (!taken("association")) check("association", w.assoc, c.assoc);
        if (!taken("fairshare")) check("fairshare", w.fairshare, c.fairshare);
        check("job size", w.job_size, c.job_size);
        check("partition", w.partition, c.partition_factor);
        check("QOS", w.qos, c.qos);
        for (size_t i = 0; i < w.tres.size() && i < c.tres.size(); ++i) {
          check(("TRES " + (i < state.tres_names.size() ? state.tres_names[i] : std::to_string(i))).c_str(),
                w.tres[i], c.tres[i]);
        }
        row.factors_match = row.mismatches.empty();
        double sum = c.age + c.assoc + c.fairshare + c.job_size + c.partition_factor + c.qos;
        for (double t : c.tres) sum += t;
        sum += static_cast<double>(static_cast<int64_t>(c.site) - kNiceOffset);
        sum -= static_cast<double>(static_cast<int64_t>(c.nice) - kNiceOffset);
        row.controller_sum_priority = PriorityFromSum(sum, nullptr);
        if (c.direct_prio) row.controller_sum_priority = c.direct_prio;
        row.priority_match = row.result.priority == row.controller_sum_priority;
      } else {
        row.priority_match = row.result.priority == job.priority;
      }
      if (visible.has_level && !visible.level_match) {
        std::ostringstream text;
        text.precision(10);
        text << (params.Mode() == FairshareMode::kRanged ? "local factor f" : "LevelFS")
             << ": recomputed " << visible.level << ", controller " << visible.controller_level;
        row.mismatches.push_back(text.str());
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace fairway
