// SPDX-License-Identifier: GPL-2.0-or-later
#include "report.h"

#include <cstdio>
#include <string>

namespace fairway::sim {

namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

double UsageOverAllocation(const SimResult& result, size_t user) {
  const UserOutcome& u = result.users[user];
  double allocation = u.rate_nodes * result.days;
  return allocation > 0 ? u.TotalNodeDays() / allocation : 0;
}

void WriteDailyUsageCsv(const SimResult& result, std::ostream& out) {
  out << "day,user,node_days\n";
  for (int d = 0; d < result.days; ++d) {
    for (const UserOutcome& u : result.users) {
      out << d << ',' << u.name << ',' << Fixed(u.daily_node_days[d], 4) << '\n';
    }
  }
}

void WriteCumulativeCsv(const SimResult& result, std::ostream& out) {
  out << "day,user,cumulative_node_days,cumulative_allocation_node_days,usage_over_allocation\n";
  std::vector<double> cumulative(result.users.size(), 0.0);
  for (int d = 0; d < result.days; ++d) {
    for (size_t i = 0; i < result.users.size(); ++i) {
      const UserOutcome& u = result.users[i];
      cumulative[i] += u.daily_node_days[d];
      double allocation = u.rate_nodes * (d + 1);
      out << d << ',' << u.name << ',' << Fixed(cumulative[i], 4) << ',' << Fixed(allocation, 4)
          << ',' << Fixed(allocation > 0 ? cumulative[i] / allocation : 0, 6) << '\n';
    }
  }
}

void WriteJobsCsv(const SimResult& result, std::ostream& out) {
  out << "job,user,submit,start,end,recorded_start\n";
  for (size_t i = 0; i < result.job_records.size(); ++i) {
    const SimJob& j = result.job_records[i];
    out << (j.id >= 0 ? j.id : static_cast<int64_t>(i + 1)) << ','
        << result.users[j.user].name << ',' << j.submit_s << ',';
    if (j.start_s >= 0) out << j.start_s << ',' << j.start_s + j.duration_s;
    else out << ',';
    out << ',';
    if (j.recorded_start_s >= 0) out << j.recorded_start_s;
    out << '\n';
  }
}

void WriteSummaryCsvHeader(std::ostream& out) {
  out << "policy,user,rate_nodes,submitted,started,pending_at_end,starved_days,"
         "usage_over_allocation,mean_wait_hours,max_wait_hours\n";
}

void WriteSummaryCsvRows(const SimResult& result, std::ostream& out) {
  for (size_t i = 0; i < result.users.size(); ++i) {
    const UserOutcome& u = result.users[i];
    out << result.policy << ',' << u.name << ',' << Fixed(u.rate_nodes, 3) << ',' << u.submitted
        << ',' << u.started << ',' << (u.submitted - u.started) << ',' << u.StarvedDays() << ','
        << Fixed(UsageOverAllocation(result, i), 6) << ',' << Fixed(u.MeanWaitHours(), 3) << ','
        << Fixed(u.max_wait_s / 3600, 3) << '\n';
  }
}

nlohmann::json SummaryJson(const SimResult& result) {
  nlohmann::json j;
  j["policy"] = result.policy;
  j["days"] = result.days;
  j["jobs"] = result.jobs;
  j["users"] = nlohmann::json::array();
  for (size_t i = 0; i < result.users.size(); ++i) {
    const UserOutcome& u = result.users[i];
    j["users"].push_back({{"user", u.name},
                          {"rate_nodes", u.rate_nodes},
                          {"submitted", u.submitted},
                          {"started", u.started},
                          {"pending_at_end", u.submitted - u.started},
                          {"starved_days", u.StarvedDays()},
                          {"node_days", u.TotalNodeDays()},
                          {"usage_over_allocation", UsageOverAllocation(result, i)},
                          {"mean_wait_hours", u.MeanWaitHours()},
                          {"max_wait_hours", u.max_wait_s / 3600}});
  }
  return j;
}

void WritePlotTable(const SimResult& result, std::ostream& out) {
  out << "# day";
  for (const UserOutcome& u : result.users) out << ' ' << u.name << "_node_days";
  for (const UserOutcome& u : result.users) out << ' ' << u.name << "_usage_over_allocation";
  out << '\n';
  std::vector<double> cumulative(result.users.size(), 0.0);
  for (int d = 0; d < result.days; ++d) {
    out << d;
    for (const UserOutcome& u : result.users) out << ' ' << Fixed(u.daily_node_days[d], 4);
    for (size_t i = 0; i < result.users.size(); ++i) {
      const UserOutcome& u = result.users[i];
      cumulative[i] += u.daily_node_days[d];
      double allocation = u.rate_nodes * (d + 1);
      out << ' ' << Fixed(allocation > 0 ? cumulative[i] / allocation : 0, 6);
    }
    out << '\n';
  }
}

}  // namespace fairway::sim
