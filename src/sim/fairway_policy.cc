// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairway_policy.h"

#include <cmath>
#include <map>

#include "../decay.h"
#include "../fairshare.h"
#include "../job_priority.h"
#include "../planned_use.h"

namespace fairway::sim {

namespace {

class FairwayPolicy : public Policy {
 public:
  FairwayPolicy(FairshareMode mode, const Scenario& s) : mode_(mode), scenario_(s) {
    params_.mode_override = mode;
    params_.flags = mode == FairshareMode::kClassic ? 0u : static_cast<uint32_t>(kFlagFairTree);
    params_.damp_factor = s.damp;
    params_.weight_fairshare = s.weight_fairshare;
    params_.decay_half_life_s = std::llround(s.half_life_s);
    params_.planned_use_interval_s = s.interval_s;
    params_.planned_use_charge = PlannedUseCharge::kStart;
    capacity_ = s.nodes * s.billing_per_node;
    params_.planned_use_capacity = capacity_;
    decay_per_s_ = DecayFactorPerSecond(params_.decay_half_life_s);
  }

  bool Init(std::string* error) {
    if (!BuildScenarioTree(scenario_, SharesNormalizedLikeFairTree(mode_), &tree_, &user_assoc_, error)) {
      return false;
    }
    own_usage_.assign(tree_.size(), 0.0L);
    if (mode_ == FairshareMode::kPlannedUse) {
      ledger_.Roll(0, scenario_.interval_s, scenario_.decay_per_interval);
    }
    return true;
  }

  void AdvanceTo(int64_t now) override {
    if (mode_ == FairshareMode::kPlannedUse) {
      ledger_.Roll(now, scenario_.interval_s, scenario_.decay_per_interval);
    } else if (now > last_) {
      double f = DecayOver(decay_per_s_, now - last_);
      for (long double& u : own_usage_) u *= f;
    }
    last_ = now;
  }

  void ChargeStart(int user, uint32_t nodes, int64_t duration_s) override {
    long double billing_s = static_cast<long double>(nodes) * scenario_.billing_per_node * duration_s;
    int32_t i = user_assoc_[user];
    if (mode_ == FairshareMode::kPlannedUse) {
      ledger_.ChargePath(tree_, i, billing_s);
    } else {
      own_usage_[i] += billing_s;
    }
  }

  void Priorities(std::vector<double>* priority) override {
    // Planned use charges the ledger, the other modes usage_raw: subtree
    // sums, as assoc_mgr keeps them.
    if (mode_ != FairshareMode::kPlannedUse) {
      std::vector<long double> subtree(own_usage_);
      for (int32_t i = static_cast<int32_t>(tree_.size()) - 1; i >= 0; --i) {
        for (int32_t p = tree_.links(i).parent; p >= 0; p = tree_.links(p).parent) {
          subtree[p] += own_usage_[i];
        }
      }
      for (int32_t i = 0; i < static_cast<int32_t>(tree_.size()); ++i) tree_.set_usage_raw(i, subtree[i]);
    }
    const FairshareResults results = ComputeFairshare(tree_, params_, &ledger_, capacity_);
    priority->resize(user_assoc_.size());
    for (size_t u = 0; u < user_assoc_.size(); ++u) {
      double f = results.assocs[user_assoc_[u]].job_factor;
      if (params_.weight_fairshare > 0) {
        bool clamped = false;
        (*priority)[u] = PriorityFromSum(params_.weight_fairshare * f, &clamped);
      } else {
        (*priority)[u] = f;
      }
    }
  }

 private:
  FairshareMode mode_;
  const Scenario& scenario_;
  Params params_;
  double capacity_ = 0;
  double decay_per_s_ = 1;
  AssocTree tree_;
  std::vector<int32_t> user_assoc_;
  std::vector<long double> own_usage_;  // decayed billing-seconds, own (not subtree)
  PlannedUseLedger ledger_;
  int64_t last_ = 0;
};

}  // namespace

bool BuildScenarioTree(const Scenario& s, bool fair_tree_shares, AssocTree* tree,
                       std::vector<int32_t>* user_assoc, std::string* error) {
  std::vector<AssocNode> nodes;
  AssocNode root;
  root.id = 1;
  root.parent_id = 0;
  root.acct = "root";
  nodes.push_back(root);
  std::map<std::string, uint32_t> account_id;
  uint32_t next_id = 2;
  for (const ScenarioAccount& a : s.accounts) {
    AssocNode n;
    n.id = next_id++;
    n.parent_id = a.parent.empty() ? 1 : account_id.at(a.parent);
    n.acct = a.name;
    n.shares_raw = a.shares;
    account_id[a.name] = n.id;
    nodes.push_back(n);
  }
  std::vector<uint32_t> user_ids;
  for (const ScenarioUser& u : s.users) {
    AssocNode n;
    n.id = next_id++;
    n.parent_id = u.account.empty() ? 1 : account_id.at(u.account);
    n.acct = u.account.empty() ? "root" : u.account;
    n.user = u.name;
    n.shares_raw = u.shares;
    user_ids.push_back(n.id);
    nodes.push_back(n);
  }
  if (!tree->Build(std::move(nodes), fair_tree_shares, error)) return false;
  user_assoc->clear();
  for (uint32_t id : user_ids) user_assoc->push_back(tree->Find(id));
  return true;
}

std::unique_ptr<Policy> MakeFairwayPolicy(FairshareMode mode, const Scenario& scenario,
                                          std::string* error) {
  auto policy = std::make_unique<FairwayPolicy>(mode, scenario);
  if (!policy->Init(error)) return nullptr;
  return policy;
}

}  // namespace fairway::sim
