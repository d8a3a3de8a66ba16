// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway whatif`'s changes and rankings (whatif_model.h).
#include "whatif_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "io/slurm_conf_reader.h"
#include "slurm_values.h"
#include "text_util.h"

namespace fairway {

namespace {

// The settings that change a ranking now; the others (half-life, calc
// period, reset) change usage over time, which whatif does not model.
const std::set<std::string>& RankingSettings() {
  static const std::set<std::string> names = {
      "PriorityWeightAge",      "PriorityWeightAssoc",   "PriorityWeightFairshare",
      "PriorityWeightJobSize",  "PriorityWeightPartition", "PriorityWeightQOS",
      "PriorityWeightTRES",     "PriorityFlags",         "PriorityParameters",
      "PriorityMaxAge",         "PriorityFavorSmall",    "FairShareDampeningFactor"};
  return names;
}

bool ApplySettings(const std::vector<std::string>& lines, uint32_t slurm_version,
                   client::ControllerState* state, std::string* error) {
  if (lines.empty()) return true;
  std::ostringstream text;
  for (const std::string& line : lines) text << line << "\n";
  std::istringstream in(text.str());
  SlurmConf conf = ParseSlurmConf(in, "--set", slurm_version);
  for (const ConfDiagnostic& d : conf.diagnostics) {
    if (d.diagnostic.severity == Severity::kError) {
      *error = "--set " + d.diagnostic.Format();
      return false;
    }
  }
  for (const std::string& line : lines) {
    const std::string key = Trim(line.substr(0, line.find('=')));
    bool known = false;
    for (const auto& [name, where] : conf.settings) known |= ToLower(name) == ToLower(key);
    if (!known || line.find('=') == std::string::npos) {
      *error = "--set " + line + ": not a priority setting NAME=VALUE";
      return false;
    }
  }
  Params& p = state->params;
  const Params& set = conf.params;
  for (const auto& [name, where] : conf.settings) {
    if (!RankingSettings().count(name)) {
      *error = "--set " + name + "=" + where.first +
               ": changes usage over time, not the ranking now; whatif does not model it";
      return false;
    }
    if (name == "PriorityWeightAge") p.weight_age = set.weight_age;
    if (name == "PriorityWeightAssoc") p.weight_assoc = set.weight_assoc;
    if (name == "PriorityWeightFairshare") p.weight_fairshare = set.weight_fairshare;
    if (name == "PriorityWeightJobSize") p.weight_job_size = set.weight_job_size;
    if (name == "PriorityWeightPartition") p.weight_partition = set.weight_partition;
    if (name == "PriorityWeightQOS") p.weight_qos = set.weight_qos;
    if (name == "PriorityFlags") p.flags = set.flags;
    if (name == "PriorityMaxAge") p.max_age_s = set.max_age_s;
    if (name == "PriorityFavorSmall") p.favor_small = set.favor_small;
    if (name == "FairShareDampeningFactor") p.damp_factor = set.damp_factor;
    if (name == "PriorityParameters") {
      p.mode_override.reset();
      Diagnostics d = ParsePriorityParameters(where.first, &p);
      if (!d.empty()) {
        *error = "--set " + d.front().Format();
        return false;
      }
    }
    if (name == "PriorityWeightTRES") {
      // In the controller's TRES order, as the tool's client resolves it.
      p.weight_tres.assign(state->tres_names.size(), 0.0);
      for (const TresWeight& w : conf.tres_weights) {
        bool found = false;
        for (size_t t = 0; t < state->tres_names.size(); ++t) {
          if (ToLower(state->tres_names[t]) == w.name) {
            p.weight_tres[t] = w.weight;
            found = true;
          }
        }
        if (!found) {
          *error = "--set PriorityWeightTRES: the controller has no TRES " + w.name;
          return false;
        }
      }
    }
  }
  return true;
}

// "ACCOUNT[,USER]=VALUE" -> the association's index in state->assocs.
bool FindTarget(const client::ControllerState& state, const std::string& option,
                const std::string& change, size_t* index, std::string* value, std::string* error) {
  const size_t eq = change.find('=');
  if (eq == std::string::npos) {
    *error = option + " " + change + ": expected ACCOUNT[,USER]=VALUE";
    return false;
  }
  std::vector<std::string> who = Split(change.substr(0, eq), ',');
  const std::string account = ToLower(Trim(who.empty() ? "" : who[0]));
  const std::string user = who.size() > 1 ? Trim(who[1]) : "";
  *value = Trim(change.substr(eq + 1));
  for (size_t i = 0; i < state.assocs.size(); ++i) {
    const AssocNode& n = state.assocs[i].node;
    if (n.acct == account && n.user == user && n.partition.empty()) {
      *index = i;
      return true;
    }
  }
  *error = option + " " + change + ": no association " + account + (user.empty() ? "" : "," + user);
  return false;
}

// Average ranks (ties share the mean rank) of values, larger first.
std::vector<double> AverageRanks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] > values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = (i + j) / 2.0 + 1;
    i = j + 1;
  }
  return ranks;
}

double Pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2) return 1;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return sxx == syy ? 1 : 0;
  return sxy / std::sqrt(sxx * syy);
}

// The job's priority in its best (partition, QOS), and the rows' agreement
// with the controller.
uint32_t BestPriority(const std::vector<JobExplanation>& rows) {
  uint32_t best = 0;
  for (const JobExplanation& r : rows) best = std::max<uint32_t>(best, r.result.priority);
  return best;
}

constexpr const char* kPrivateWhy =
    "PrivateData=usage: slurmctld sends you only your own associations and those of the accounts "
    "you coordinate";

// A partial view (PrivateData=usage, explain_visible.h): the changes whose
// effect depends on rows the view lacks, refused with why. A job's
// factors come from the visible rows where explain recomputes them, else
// from sprio's weighted value divided by the controller's weight; so a
// change is refused when it moves a factor that is sprio's (the fairshare
// mode, its parameters, the dampening factor, NO_NORMAL_ASSOC) or when it
// gives weight to a factor sprio shows only weighted by 0.
bool RefusedInPartialView(const client::ControllerState& state,
                          const client::ControllerState& changed, const WhatIfChanges& changes,
                          std::string* error) {
  for (const auto* list : {&changes.shares, &changes.usage}) {
    const char* option = list == &changes.shares ? "--shares" : "--usage";
    for (const std::string& change : *list) {
      size_t i;
      std::string value;
      if (!FindTarget(state, option, change, &i, &value, error)) {
        *error += " you can see (" + std::string(kPrivateWhy) + ")";
        return false;
      }
      *error = std::string(option) + " " + change +
               ": a change of shares or usage moves the fairshare of the whole tree through "
               "rows hidden from you (the siblings' shares, the parent's and the root's usage; " +
               kPrivateWhy + "); only an operator can what-if it";
      return false;
    }
  }
  const Params &was = state.params, &now = changed.params;
  const char* refused = nullptr;
  if (now.Mode() != was.Mode() || now.mode_override.has_value() != was.mode_override.has_value()) {
    refused = "PriorityFlags/PriorityParameters: a change of the fairshare mode";
  } else {
    for (const std::string& line : changes.settings) {
      if (ToLower(Trim(line.substr(0, line.find('=')))) == "priorityparameters") {
        refused = "PriorityParameters: the fairshare mode's parameters";
      }
    }
  }
  if (!refused && now.damp_factor != was.damp_factor) {
    refused = "FairShareDampeningFactor: every association's fairshare factor";
  }
  if (!refused && ((now.flags ^ was.flags) & kFlagNoNormalAssoc)) {
    refused = "PriorityFlags NO_NORMAL_ASSOC: the association factor, normalised by the largest "
              "Priority of all associations";
  }
  if (!refused && was.weight_fairshare == 0 && now.weight_fairshare != 0) {
    refused = "PriorityWeightFairshare from 0: the fairshare factors sprio shows weighted by 0";
  }
  if (!refused && was.weight_assoc == 0 && now.weight_assoc != 0) {
    refused = "PriorityWeightAssoc from 0: the association factors sprio shows weighted by 0";
  }
  if (refused) {
    *error = std::string("--set ") + refused + " needs rows hidden from you (" + kPrivateWhy +
             "); only an operator can what-if it";
    return false;
  }
  return true;
}

}  // namespace

bool WhatIfViewIsPartial(const client::ControllerState& state) {
  return state.private_usage && ViewIsPartial(state);
}

bool ApplyWhatIf(const client::ControllerState& state, const WhatIfChanges& changes,
                 uint32_t slurm_version, client::ControllerState* changed, std::string* error) {
  *changed = state;
  if (!ApplySettings(changes.settings, slurm_version, changed, error)) return false;
  if (WhatIfViewIsPartial(state) && !RefusedInPartialView(state, *changed, changes, error)) {
    return false;
  }
  for (const std::string& change : changes.shares) {
    size_t i;
    std::string value;
    if (!FindTarget(*changed, "--shares", change, &i, &value, error)) return false;
    if (changed->assocs[i].node.parent_id == 0) {
      *error = "--shares " + change + ": the root has no shares";
      return false;
    }
    if (ToLower(value) == "parent") {
      changed->assocs[i].node.shares_raw = kSharesUseParent;
      continue;
    }
    char* end = nullptr;
    const long long shares = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || shares < 0 || shares >= kSharesUseParent) {
      *error = "--shares " + change + ": '" + value + "' is not a number of shares or parent";
      return false;
    }
    changed->assocs[i].node.shares_raw = static_cast<uint32_t>(shares);
  }
  for (const std::string& change : changes.usage) {
    size_t i;
    std::string value;
    if (!FindTarget(*changed, "--usage", change, &i, &value, error)) return false;
    std::string number = value;
    for (const char* unit : {"cpu-h", "cpuh", "h"}) {
      const std::string u(unit);
      if (number.size() > u.size() && ToLower(number.substr(number.size() - u.size())) == u) {
        number.resize(number.size() - u.size());
        break;
      }
    }
    char* end = nullptr;
    const double hours = std::strtod(number.c_str(), &end);
    if (number.empty() || *end || !std::isfinite(hours) || (number[0] != '+' && number[0] != '-')) {
      *error = "--usage " + change + ": '" + value + "' is not +X or -X core-hours";
      return false;
    }
    // The association and every account above it: an account's usage_raw
    // is its subtree's.
    const long double delta = static_cast<long double>(hours) * 3600;
    std::map<uint32_t, size_t> by_id;
    for (size_t k = 0; k < changed->assocs.size(); ++k) by_id[changed->assocs[k].node.id] = k;
    for (size_t k = i;;) {
      AssocNode& n = changed->assocs[k].node;
      n.usage_raw = std::max<long double>(0, n.usage_raw + delta);
      auto up = by_id.find(n.parent_id);
      if (n.parent_id == 0 || up == by_id.end()) break;
      k = up->second;
    }
  }
  return true;
}

WhatIfResult RunWhatIf(const ExplainModel& before, const ExplainModel& after,
                       const std::vector<client::ControllerJob>& jobs,
                       const std::vector<client::ControllerFactors>& factors, int64_t now,
                       int64_t age_shift_s) {
  WhatIfResult result;
  for (const client::ControllerJob& job : jobs) {
    if (!job.pending || job.priority == 0) continue;  // held jobs are in no queue
    std::vector<JobExplanation> old_rows = ExplainJob(before, job, factors, now);
    std::vector<JobExplanation> new_rows =
        ExplainJob(after, job, factors, now, &before.state.params, age_shift_s);
    for (const JobExplanation& r : old_rows) {
      if (!r.priority_match || !r.mismatches.empty()) {
        result.baseline_matches = false;
        std::string why = r.mismatches.empty() ? "priority " + std::to_string(r.result.priority) +
                                                     ", controller " +
                                                     std::to_string(r.controller_sum_priority)
                                               : r.mismatches.front();
        result.baseline_mismatches.push_back("job " + std::to_string(job.job_id) + " (" +
                                             r.partition + "): " + why);
      }
    }
    WhatIfJob j;
    j.job_id = job.job_id;
    j.assoc_id = job.assoc_id;
    j.account = job.account;
    j.user = job.user;
    j.before = BestPriority(old_rows);
    j.after = BestPriority(new_rows);
    result.jobs.push_back(j);
  }
  auto rank = [&](uint32_t WhatIfJob::*prio, size_t WhatIfJob::*out) {
    std::vector<size_t> order(result.jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const WhatIfJob &x = result.jobs[a], &y = result.jobs[b];
      return x.*prio != y.*prio ? x.*prio > y.*prio : x.job_id < y.job_id;
    });
    for (size_t r = 0; r < order.size(); ++r) result.jobs[order[r]].*out = r + 1;
  };
  rank(&WhatIfJob::before, &WhatIfJob::rank_before);
  rank(&WhatIfJob::after, &WhatIfJob::rank_after);
  std::sort(result.jobs.begin(), result.jobs.end(),
            [](const WhatIfJob& a, const WhatIfJob& b) { return a.rank_before < b.rank_before; });
  std::vector<double> x, y;
  for (const WhatIfJob& j : result.jobs) {
    x.push_back(j.before);
    y.push_back(j.after);
    result.moved += j.rank_before != j.rank_after;
  }
  result.spearman = Pearson(AverageRanks(x), AverageRanks(y));

  if (before.partial) {
    // The associations the view holds, with the factor explain shows for
    // each (recomputed from the visible row, or the controller's; hidden:
    // NaN); an account's first job is that of the visible rows below it.
    const client::ControllerState& st = before.state;
    for (size_t i = 0; i < st.assocs.size(); ++i) {
      const AssocNode& n = st.assocs[i].node;
      if (n.parent_id == 0) continue;
      WhatIfAssoc a;
      a.account = n.acct;
      a.user = n.user;
      const VisibleFairshare v = ExplainVisibleFairshare(st, static_cast<int32_t>(i));
      const int32_t k = FindVisibleAssoc(after.state, n.id);
      const VisibleFairshare w =
          k >= 0 ? ExplainVisibleFairshare(after.state, k) : VisibleFairshare{};
      a.fs_before = v.factor_known ? v.factor : std::nan("");
      a.fs_after = w.factor_known ? w.factor : std::nan("");
      for (const WhatIfJob& j : result.jobs) {
        bool mine = false;
        int32_t k2 = FindVisibleAssoc(st, j.assoc_id);
        for (size_t steps = 0; k2 >= 0 && !mine && steps <= st.assocs.size(); ++steps) {
          mine = k2 == static_cast<int32_t>(i);
          k2 = FindVisibleAssoc(st, st.assocs[k2].node.parent_id);
        }
        if (!mine) continue;
        if (!a.first_before || j.rank_before < a.first_before) a.first_before = j.rank_before;
        if (!a.first_after || j.rank_after < a.first_after) a.first_after = j.rank_after;
      }
      (n.is_user() ? result.users : result.accounts).push_back(a);
    }
    return result;
  }
  // Users and accounts: fairshare factor and first pending job, both ways.
  for (size_t i = 0; i < before.tree.size(); ++i) {
    const AssocNode& n = before.tree.node(static_cast<int32_t>(i));
    if (n.parent_id == 0) continue;
    WhatIfAssoc a;
    a.account = n.acct;
    a.user = n.user;
    a.fs_before = before.fairshare.assocs[i].job_factor;
    const int32_t k = after.tree.Find(n.id);
    if (k >= 0) a.fs_after = after.fairshare.assocs[k].job_factor;
    for (const WhatIfJob& j : result.jobs) {
      // The job's association, or an account above it.
      bool mine = false;
      for (int32_t k = before.tree.Find(j.assoc_id); k >= 0 && !mine;
           k = before.tree.links(k).parent) {
        mine = k == static_cast<int32_t>(i);
      }
      if (!mine) continue;
      if (!a.first_before || j.rank_before < a.first_before) a.first_before = j.rank_before;
      if (!a.first_after || j.rank_after < a.first_after) a.first_after = j.rank_after;
    }
    (n.is_user() ? result.users : result.accounts).push_back(a);
  }
  return result;
}

}  // namespace fairway
