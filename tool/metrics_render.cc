// SPDX-License-Identifier: GPL-2.0-or-later
// RenderMetrics (metrics.h): the OpenMetrics text of the controller's
// associations and queue. No RPC here, so that it is unit-tested.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "fairshare.h"
#include "metrics.h"
#include "slurm_values.h"

namespace fairway {

namespace {

// Slurm's release numbering (SLURM_VERSION_NUM).
constexpr uint32_t Release(uint32_t major, uint32_t minor) { return (major << 16) | (minor << 8); }

// A label value as OpenMetrics escapes it: backslash, double quote and
// line feed.
std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value: shortest exact decimal of the double, +Inf for an
// infinite LevelFS (sshare's "inf").
std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Whether Slurm holds v as "not computed" (NO_VAL or INFINITE, as doubles;
// sshare prints nothing for them).
bool Unset(long double v) {
  return v == static_cast<long double>(kNoVal) || v == static_cast<long double>(kInfinite) ||
         v == static_cast<long double>(kNoVal64) || std::isnan(static_cast<double>(v));
}

struct Family {
  std::string name, help;
  std::vector<std::string> samples;  // "labels} value" lines, without the name
};

class Exposition {
 public:
  // The family, declared once, in first-use order.
  Family& Of(const std::string& name, const std::string& help) {
    auto it = index_.find(name);
    if (it != index_.end()) return families_[it->second];
    index_[name] = families_.size();
    families_.push_back({name, help, {}});
    return families_.back();
  }
  void Add(const std::string& name, const std::string& help, const std::string& labels,
           double value) {
    Of(name, help).samples.push_back("{" + labels + "} " + Number(value));
  }
  // A sample without labels.
  void Add(const std::string& name, const std::string& help, double value) {
    Of(name, help).samples.push_back(" " + Number(value));
  }
  std::string Text() const {
    std::string out;
    for (const Family& f : families_) {
      if (f.samples.empty()) continue;
      out += "# HELP " + f.name + " " + f.help + "\n";
      out += "# TYPE " + f.name + " gauge\n";
      for (const std::string& s : f.samples) out += f.name + s + "\n";
    }
    out += "# EOF\n";
    return out;
  }

 private:
  std::vector<Family> families_;
  std::map<std::string, size_t> index_;
};

// Per association: its jobs, pending and running, and what they ask for
// (pending: requested TRES) or hold (running: allocated TRES).
struct Queue {
  uint32_t pending = 0, running = 0;
  std::vector<double> tres_pending, tres_running;
  bool has_first = false;
  uint32_t first_priority = 0;  // the highest priority of its pending jobs
};

constexpr uint32_t kJobStateBase = 0xff;  // slurm.h JOB_STATE_BASE
constexpr uint32_t kJobRunning = 1;       // slurm.h JOB_RUNNING

// The plugin's last decay pass (pass_stats.h): times in seconds, counts.
void AddPassStats(const PassStatsReading& pass, Exposition* out) {
  out->Add("fairway_pass_stats_available",
           "1 when the plugin's pass statistics (StateSaveLocation/fairway_pass_stats) were "
           "read, 0 when not (fairway metrics says why on stderr)",
           pass.read ? 1 : 0);
  if (!pass.read) return;
  const PassStats& s = pass.stats;
  out->Add("fairway_pass_last_timestamp_seconds",
           "When the last decay pass of priority/fairway ended (Unix time)",
           static_cast<double>(s.pass_end));
  out->Add("fairway_pass_duration_seconds", "Wall time of the last decay pass",
           s.duration_ms / 1e3);
  if (s.cpu_ms >= 0) {
    out->Add("fairway_pass_cpu_seconds", "CPU time of the last decay pass (its thread)",
             s.cpu_ms / 1e3);
  }
  out->Add("fairway_pass_jobs_computed",
           "Jobs whose priority the last pass computed (pending, not held)",
           static_cast<double>(s.jobs_computed));
  out->Add("fairway_pass_jobs_stored",
           "Jobs of them whose priority or factors changed and were stored",
           static_cast<double>(s.jobs_stored));
  out->Add("fairway_pass_jobs_recomputed",
           "Jobs that changed between the pass's computation and its store, recomputed",
           static_cast<double>(s.jobs_recomputed));
  if (s.jobs_charged >= 0) {
    out->Add("fairway_pass_jobs_charged", "Running jobs whose usage the last pass charged",
             static_cast<double>(s.jobs_charged));
  }
  if (s.job_write_lock_held_ms >= 0) {
    out->Add("fairway_pass_job_write_lock_held_seconds",
             "Time the last pass held slurmctld's job write lock, all holds together",
             s.job_write_lock_held_ms / 1e3);
  }
  if (s.job_write_lock_longest_ms >= 0) {
    out->Add("fairway_pass_job_write_lock_longest_hold_seconds",
             "Longest single hold of the job write lock in the last pass",
             s.job_write_lock_longest_ms / 1e3);
  }
  if (s.job_write_lock_holds >= 0) {
    out->Add("fairway_pass_job_write_lock_holds",
             "How many times the last pass took the job write lock",
             static_cast<double>(s.job_write_lock_holds));
  }
}

// Delivered against entitled over slurmdbd's roll-ups (fairway report).
void AddDelivered(const DeliveredReading& d, Exposition* out) {
  out->Add("fairway_delivered_window_seconds",
           "Length of the window of slurmdbd's roll-ups the delivered shares cover",
           static_cast<double>(d.window_s));
  for (const DeliveredRow& r : d.rows) {
    const std::string labels = "account=\"" + Escape(r.account) + "\",user=\"" + Escape(r.user) +
                               "\",partition=\"" + Escape(r.partition) + "\"";
    if (!std::isnan(r.delivered)) {
      out->Add("slurm_assoc_delivered_share",
               "Its subtree's usage over the root's in the window (fairway report's DelivCluster)",
               labels, r.delivered);
    }
    if (!std::isnan(r.entitled)) {
      out->Add("slurm_assoc_entitled_share",
               "Its share of the machine by its shares (fairway report's EntMachine)", labels,
               r.entitled);
    }
    if (!std::isnan(r.ratio)) {
      out->Add("slurm_assoc_delivered_entitled_ratio",
               "Delivered over entitled share of the machine in the window (1: exactly served)",
               labels, r.ratio);
    }
  }
}

}  // namespace

bool FairShareIsStored(const client::ControllerState& state, uint32_t slurm_version) {
  return slurm_version >= Release(25, 11) || (state.params.flags & kFlagFairTree) != 0;
}

std::string RenderMetrics(const client::ControllerState& state,
                          const std::vector<client::ControllerJob>& jobs, uint32_t slurm_version,
                          const std::vector<long double>* efctv,
                          const PassStatsReading* pass,
                          const DeliveredReading* delivered) {
  const size_t n_tres = state.tres_names.size();
  std::map<uint32_t, Queue> queues;
  for (const client::ControllerJob& job : jobs) {
    Queue& q = queues[job.assoc_id];
    if (q.tres_pending.empty()) {
      q.tres_pending.assign(n_tres, 0);
      q.tres_running.assign(n_tres, 0);
    }
    if (job.pending) {
      ++q.pending;
      for (size_t t = 0; t < n_tres && t < job.tres_req.size(); ++t) {
        q.tres_pending[t] += static_cast<double>(job.tres_req[t]);
      }
      // A held job (priority 0) is not first in any queue.
      if (job.priority && (!q.has_first || job.priority > q.first_priority)) {
        q.has_first = true;
        q.first_priority = job.priority;
      }
    } else if ((job.job_state & kJobStateBase) == kJobRunning) {
      ++q.running;
      for (size_t t = 0; t < n_tres && t < job.tres_alloc.size(); ++t) {
        q.tres_running[t] += static_cast<double>(job.tres_alloc[t]);
      }
    }
  }

  // sshare's FairShare: the stored fs_factor of users from 25.11 and in
  // Fair Tree's modes; before 25.11 in classic modes the factor of
  // EffectvUsage and NormShares (sshare computes it, as CalcFsFactor).
  const bool stored_fs = FairShareIsStored(state, slurm_version);
  Exposition out;
  for (size_t index = 0; index < state.assocs.size(); ++index) {
    const client::ControllerAssoc& a = state.assocs[index];
    const AssocNode& n = a.node;
    const bool root = n.parent_id == 0;
    const std::string labels = "account=\"" + Escape(n.acct) + "\",user=\"" + Escape(n.user) +
                               "\",partition=\"" + Escape(n.partition) + "\"";
    if (!root && !n.uses_parent() && n.shares_raw != kNoVal) {
      out.Add("slurm_assoc_shares", "Fairshare of the association (sshare RawShares)", labels,
              n.shares_raw);
    }
    if (!Unset(a.shares_norm)) {
      out.Add("slurm_assoc_shares_norm", "Normalised share of the machine (sshare NormShares)",
              labels, a.shares_norm);
    }
    out.Add("slurm_assoc_usage_raw", "Decayed usage in billing-seconds (sshare RawUsage)", labels,
            static_cast<double>(n.usage_raw));
    if (!Unset(a.usage_norm)) {
      out.Add("slurm_assoc_usage_norm", "Usage over the root's (sshare NormUsage)", labels,
              static_cast<double>(a.usage_norm));
    }
    if (!Unset(a.usage_efctv)) {
      out.Add("slurm_assoc_usage_effective", "Effective usage (sshare EffectvUsage)", labels,
              static_cast<double>(a.usage_efctv));
    }
    if (!root && !n.uses_parent() && !Unset(a.level_fs)) {
      out.Add("slurm_assoc_level_fs",
              "Fair Tree's LevelFS: share over usage among siblings (sshare LevelFS)", labels,
              static_cast<double>(a.level_fs));
    }
    if (stored_fs) {
      if (n.is_user() && !Unset(a.fs_factor)) {
        out.Add("slurm_assoc_fairshare", "Fairshare factor (sshare FairShare)", labels,
                a.fs_factor);
      }
    } else if (!Unset(a.usage_efctv) && !Unset(a.shares_norm)) {
      // Every row, the root's too, as sshare computes it; from the full
      // precision effective usage when the caller recomputed it.
      const long double usage =
          efctv && index < efctv->size() ? (*efctv)[index] : a.usage_efctv;
      out.Add("slurm_assoc_fairshare", "Fairshare factor (sshare FairShare)", labels,
              CalcFsFactor(usage, a.shares_norm, state.params.damp_factor));
    }
    auto q = queues.find(n.id);
    const Queue empty;
    const Queue& queue = q == queues.end() ? empty : q->second;
    out.Add("slurm_assoc_jobs_pending", "Pending jobs of the association", labels, queue.pending);
    out.Add("slurm_assoc_jobs_running", "Running jobs of the association", labels, queue.running);
    for (size_t t = 0; t < n_tres && !queue.tres_pending.empty(); ++t) {
      const std::string tres = labels + ",tres=\"" + Escape(state.tres_names[t]) + "\"";
      if (queue.tres_pending[t] != 0) {
        out.Add("slurm_assoc_tres_pending", "TRES its pending jobs request (memory in MB)", tres,
                queue.tres_pending[t]);
      }
      if (queue.tres_running[t] != 0) {
        out.Add("slurm_assoc_tres_running", "TRES its running jobs hold (memory in MB)", tres,
                queue.tres_running[t]);
      }
    }
    if (queue.has_first) {
      out.Add("slurm_assoc_first_pending_priority",
              "Priority of its first pending job (the highest; held jobs aside)", labels,
              queue.first_priority);
    }
  }
  if (pass) AddPassStats(*pass, &out);
  if (delivered) AddDelivered(*delivered, &out);
  return out.Text();
}

}  // namespace fairway
