// SPDX-License-Identifier: GPL-2.0-or-later
#include "baseline_policies.h"

#include <algorithm>
#include <cmath>

namespace fairway::sim {

namespace {

constexpr double kDay = 86400.0;

class LinearDecayPolicy : public Policy {
 public:
  explicit LinearDecayPolicy(const Scenario& s)
      : rate_(PlannedRatesNodes(s)), u_(s.users.size(), 0.0) {}

  void AdvanceTo(int64_t now) override {
    double days = static_cast<double>(now - last_) / kDay;
    last_ = now;
    for (double& u : u_) u = std::max(0.0, u - days);
  }
  void ChargeStart(int user, uint32_t nodes, int64_t duration_s) override {
    double node_days = nodes * (static_cast<double>(duration_s) / kDay);
    u_[user] += rate_[user] > 0 ? node_days / rate_[user] : HUGE_VAL;
  }
  void Priorities(std::vector<double>* priority) override {
    priority->resize(u_.size());
    for (size_t i = 0; i < u_.size(); ++i) (*priority)[i] = -u_[i];
  }

 private:
  std::vector<double> rate_;
  std::vector<double> u_;  // days of planned use consumed ahead
  int64_t last_ = 0;
};

class ExpDecayPolicy : public Policy {
 public:
  explicit ExpDecayPolicy(const Scenario& s)
      : rate_(PlannedRatesNodes(s)), d_(s.decay_per_interval), interval_s_(s.interval_s),
        history_(s.users.size(), 0.0), open_(s.users.size(), 0.0) {}

  void AdvanceTo(int64_t now) override {
    int64_t index = now / interval_s_;
    if (index <= index_) return;
    for (size_t i = 0; i < history_.size(); ++i) {
      history_[i] = open_[i] + d_ * history_[i];
      history_[i] *= std::pow(d_, static_cast<double>(index - index_ - 1));
      open_[i] = 0;
    }
    index_ = index;
  }
  void ChargeStart(int user, uint32_t nodes, int64_t duration_s) override {
    open_[user] += nodes * (static_cast<double>(duration_s) / kDay);
  }
  void Priorities(std::vector<double>* priority) override {
    priority->resize(history_.size());
    for (size_t i = 0; i < history_.size(); ++i) {
      double u = rate_[i] > 0 ? (open_[i] + d_ * history_[i]) / rate_[i] : HUGE_VAL;
      (*priority)[i] = -u;
    }
  }

 private:
  std::vector<double> rate_;
  double d_;
  int64_t interval_s_;
  int64_t index_ = 0;
  std::vector<double> history_;  // H: node-days, decayed, closed intervals
  std::vector<double> open_;     // c: node-days charged in the open interval
};

class FifoPolicy : public Policy {
 public:
  explicit FifoPolicy(size_t users) : users_(users) {}
  void AdvanceTo(int64_t) override {}
  void ChargeStart(int, uint32_t, int64_t) override {}
  void Priorities(std::vector<double>* priority) override { priority->assign(users_, 0.0); }

 private:
  size_t users_;
};

}  // namespace

std::unique_ptr<Policy> MakeFifoPolicy(const Scenario& scenario) {
  return std::make_unique<FifoPolicy>(scenario.users.size());
}

std::unique_ptr<Policy> MakeLinearDecayPolicy(const Scenario& scenario) {
  return std::make_unique<LinearDecayPolicy>(scenario);
}

std::unique_ptr<Policy> MakeExpDecayPolicy(const Scenario& scenario) {
  return std::make_unique<ExpDecayPolicy>(scenario);
}

}  // namespace fairway::sim
