// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulator.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <queue>

#include "policy.h"

namespace fairway::sim {

namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

}  // namespace

int UserOutcome::StarvedDays() const {
  int n = 0;
  for (size_t d = 0; d < waited.size(); ++d) n += waited[d] && daily_node_days[d] == 0;
  return n;
}

double UserOutcome::TotalNodeDays() const {
  double sum = 0;
  for (double v : daily_node_days) sum += v;
  return sum;
}

std::vector<SimJob> GenerateJobs(const Scenario& s) {
  std::map<std::string, int> user_index;
  for (size_t i = 0; i < s.users.size(); ++i) user_index[s.users[i].name] = static_cast<int>(i);
  std::vector<SimJob> jobs;
  const int64_t end = s.duration_s();
  for (const SubmitPattern& p : s.patterns) {
    SimJob job;
    job.user = user_index.at(p.user);
    job.nodes = p.nodes ? p.nodes : s.job_nodes;
    job.duration_s = p.duration_s ? p.duration_s : s.job_duration_s;
    const int64_t to = p.to_s < 0 ? end : std::min(p.to_s, end);
    if (p.day_step == 0) {
      for (int64_t t = p.from_s; t < to; t += p.every_s) {
        job.submit_s = t;
        jobs.push_back(job);
      }
    } else {
      for (int64_t day = p.from_s; day < to; day += int64_t{p.day_step} * kDay) {
        for (int64_t t = day; t < day + kDay && t < to; t += p.every_s) {
          job.submit_s = t;
          jobs.push_back(job);
        }
      }
    }
  }
  for (const TraceJob& t : s.trace) {
    if (t.submit_s >= end) continue;
    SimJob job;
    job.submit_s = t.submit_s;
    job.user = user_index.at(t.user);
    job.nodes = t.nodes;
    job.duration_s = t.duration_s;
    job.id = t.id;
    job.recorded_start_s = t.recorded_start_s;
    jobs.push_back(job);
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const SimJob& a, const SimJob& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

bool RunSimulation(const Scenario& s, const std::string& policy_name,
                   const std::function<void(double)>& progress, SimResult* result,
                   std::string* error) {
  std::unique_ptr<Policy> policy = MakePolicy(policy_name, s, error);
  if (!policy) return false;
  std::vector<SimJob> jobs = GenerateJobs(s);
  const int64_t end = s.duration_s();
  const size_t nusers = s.users.size();
  std::vector<double> rates = PlannedRatesNodes(s);

  *result = SimResult();
  result->policy = policy_name;
  result->days = s.days;
  result->jobs = static_cast<int64_t>(jobs.size());
  result->users.resize(nusers);
  for (size_t u = 0; u < nusers; ++u) {
    result->users[u].name = s.users[u].name;
    result->users[u].rate_nodes = rates[u];
    result->users[u].daily_node_days.assign(s.days, 0.0);
    result->users[u].waited.assign(s.days, false);
  }

  std::vector<std::deque<size_t>> pending(nusers);
  std::vector<int64_t> pending_since(nusers, -1);
  using Running = std::pair<int64_t, size_t>;  // (end, job)
  std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running;
  int64_t free_nodes = s.nodes;
  size_t next_submit = 0;
  std::vector<double> priority;

  auto mark_waited = [&](size_t u, int64_t from, int64_t to) {
    if (to <= from) return;
    int64_t last = std::min<int64_t>((to - 1) / kDay, s.days - 1);
    for (int64_t d = from / kDay; d <= last; ++d) result->users[u].waited[d] = true;
  };
  auto record_run = [&](const SimJob& job) {
    int64_t a = job.start_s, b = std::min(job.start_s + job.duration_s, end);
    UserOutcome& out = result->users[job.user];
    while (a < b) {
      int64_t day = a / kDay;
      int64_t stop = std::min(b, (day + 1) * kDay);
      out.daily_node_days[day] += job.nodes * static_cast<double>(stop - a) / kDay;
      a = stop;
    }
  };

  auto schedule = [&](int64_t now) {
    ++result->scheduling_passes;
    policy->AdvanceTo(now);
    while (true) {
      bool any = false;
      for (size_t u = 0; u < nusers; ++u) any = any || !pending[u].empty();
      if (!any) return;
      policy->Priorities(&priority);
      int best = -1;
      for (size_t u = 0; u < nusers; ++u) {
        if (pending[u].empty()) continue;
        if (best < 0 || priority[u] > priority[best] ||
            (priority[u] == priority[best] && pending[u].front() < pending[best].front())) {
          best = static_cast<int>(u);
        }
      }
      SimJob& job = jobs[pending[best].front()];
      if (job.nodes > free_nodes) return;  // strict priority order: no backfill
      size_t id = pending[best].front();
      pending[best].pop_front();
      job.start_s = now;
      free_nodes -= job.nodes;
      policy->ChargeStart(best, job.nodes, job.duration_s);
      running.push({now + job.duration_s, id});
      record_run(job);
      UserOutcome& out = result->users[best];
      ++out.started;
      double wait = static_cast<double>(now - job.submit_s);
      out.total_wait_s += wait;
      out.max_wait_s = std::max(out.max_wait_s, wait);
      if (pending[best].empty()) {
        mark_waited(best, pending_since[best], now);
        pending_since[best] = -1;
      }
    }
  };

  int64_t now = 0;
  int last_progress = -1;
  while (now < end) {
    while (!running.empty() && running.top().first <= now) {
      free_nodes += jobs[running.top().second].nodes;
      running.pop();
    }
    while (next_submit < jobs.size() && jobs[next_submit].submit_s <= now) {
      const SimJob& job = jobs[next_submit];
      if (pending[job.user].empty()) pending_since[job.user] = now;
      pending[job.user].push_back(next_submit);
      ++result->users[job.user].submitted;
      ++next_submit;
    }
    if (s.step_s == 0 || now % s.step_s == 0) schedule(now);

    int64_t next = kNever;
    if (next_submit < jobs.size()) next = std::min(next, jobs[next_submit].submit_s);
    if (!running.empty()) next = std::min(next, running.top().first);
    if (s.step_s > 0) {
      bool any = false;
      for (size_t u = 0; u < nusers; ++u) any = any || !pending[u].empty();
      if (any) next = std::min(next, (now / s.step_s + 1) * s.step_s);
    }
    if (next == kNever) break;
    now = next;
    if (progress) {
      int pct = static_cast<int>(200.0 * std::min(now, end) / end);
      if (pct != last_progress) {
        last_progress = pct;
        progress(std::min(1.0, static_cast<double>(now) / end));
      }
    }
  }
  for (size_t u = 0; u < nusers; ++u) {
    if (pending_since[u] >= 0) mark_waited(u, pending_since[u], end);
  }
  if (progress) progress(1.0);
  result->job_records = std::move(jobs);
  return true;
}

}  // namespace fairway::sim
