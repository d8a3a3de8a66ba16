// SPDX-License-Identifier: GPL-2.0-or-later
#include "usage_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>

#include "slurm_values.h"
#include "text_util.h"

namespace fairway::usage {

std::vector<AuditRow> CompareUsage(const AssocTree& tree, const std::vector<long double>& db_subtree,
                                   const std::vector<long double>& controller,
                                   const std::vector<long double>& running_billing,
                                   const AuditTolerance& tolerance) {
  std::vector<AuditRow> rows;
  const size_t n = tree.nodes().size();
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const AssocNode& node = tree.node(static_cast<int32_t>(i));
    AuditRow r;
    r.index = static_cast<int32_t>(i);
    r.assoc_id = node.id;
    r.account = node.acct;
    r.user = node.user;
    r.partition = node.partition;
    for (int32_t p = tree.links(static_cast<int32_t>(i)).parent; p >= 0; p = tree.links(p).parent) {
      ++r.depth;
    }
    r.db = i < db_subtree.size() ? db_subtree[i] : 0;
    r.controller = i < controller.size() ? controller[i] : 0;
    r.difference = r.controller - r.db;
    const long double running = i < running_billing.size() ? running_billing[i] : 0;
    r.running = running > 0;
    const long double larger = std::max(std::fabs(r.db), std::fabs(r.controller));
    r.allowed = std::max<long double>(tolerance.relative * larger, tolerance.absolute) +
                running * static_cast<long double>(std::max<int64_t>(tolerance.calc_period_s, 0));
    r.ok = std::fabs(r.difference) <= r.allowed;
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

std::string AssocLabel(const AssocNode& n) {
  std::string s = n.is_user() ? n.acct + "/" + n.user : n.acct;
  if (!n.partition.empty()) s += "/" + n.partition;
  return s;
}

}  // namespace

bool WriteExportScenario(const ExportInput& input, std::ostream& out, std::string* error) {
  if (input.jobs.empty()) {
    *error = "no started jobs in the period: nothing to export";
    return false;
  }
  if (input.cpus == 0) {
    *error = "the machine has no CPUs";
    return false;
  }
  std::vector<const ExportJob*> jobs;
  for (const ExportJob& j : input.jobs) jobs.push_back(&j);
  std::stable_sort(jobs.begin(), jobs.end(), [](const ExportJob* a, const ExportJob* b) {
    return a->submit != b->submit ? a->submit < b->submit : a->job_id < b->job_id;
  });
  const int64_t t0 = jobs.front()->submit;
  int64_t last = t0;
  for (const ExportJob* j : jobs) {
    if (j->cpus > input.cpus) {
      *error = "job " + std::to_string(j->job_id) + " ran on " + std::to_string(j->cpus) +
               " CPUs, more than the machine's " + std::to_string(input.cpus);
      return false;
    }
    const int64_t end = j->end > 0 ? j->end : std::max(input.now, j->start + 1);
    last = std::max({last, end, j->submit});
  }
  // One day more than the recorded span: the simulated schedule may finish
  // a little later than the recorded one.
  const int64_t days = (last - t0) / 86400 + 2;

  out << "# Written by `fairway usage export`" << (input.cluster.empty() ? "" : " from cluster " + input.cluster)
      << ": " << jobs.size() << " jobs; submit and start are seconds after the\n"
      << "# earliest submission (Unix time " << t0 << "); each CPU is a node.\n"
      << "name " << input.name << "\n"
      << "nodes " << input.cpus << "\n"
      << "days " << days << "\n"
      << "half_life " << std::max<int64_t>(input.half_life_s, 0) << "s\n"
      << "policies fifo\n";

  // Accounts (tree order: parents first) and users with their shares.
  std::set<std::string> users_written;
  std::map<uint32_t, std::string> user_of_assoc;
  if (input.tree) {
    const AssocTree& tree = *input.tree;
    for (size_t i = 0; i < tree.nodes().size(); ++i) {
      const AssocNode& n = tree.node(static_cast<int32_t>(i));
      if (n.is_user() || static_cast<int32_t>(i) == tree.root() || n.acct == "root") continue;
      int32_t p = tree.links(static_cast<int32_t>(i)).parent;
      std::string parent = p < 0 || p == tree.root() ? "root" : tree.node(p).acct;
      uint32_t shares = n.uses_parent() ? 1 : n.shares_raw;
      out << "account " << n.acct << " parent " << parent << " shares " << shares << "\n";
    }
    for (size_t i = 0; i < tree.nodes().size(); ++i) {
      const AssocNode& n = tree.node(static_cast<int32_t>(i));
      if (!n.is_user()) continue;
      std::string name = AssocLabel(n);
      if (!users_written.insert(name).second) continue;
      uint32_t shares = n.uses_parent() ? 1 : n.shares_raw;
      out << "user " << name << " shares " << shares;
      if (n.acct != "root") out << " account " << n.acct;
      out << "\n";
      user_of_assoc[n.id] = name;
    }
  }
  for (const ExportJob* j : jobs) {
    std::string name = j->assoc.empty() ? "assoc" + std::to_string(j->assoc_id) : j->assoc;
    if (users_written.insert(name).second) out << "user " << name << " shares 1\n";
  }
  for (const ExportJob* j : jobs) {
    std::string name = j->assoc.empty() ? "assoc" + std::to_string(j->assoc_id) : j->assoc;
    const int64_t end = j->end > 0 ? j->end : std::max(input.now, j->start + 1);
    const int64_t duration = std::max<int64_t>(end - j->start, 1);
    out << "job " << (j->submit - t0) << " " << name << " " << std::max<uint64_t>(j->cpus, 1) << " "
        << duration << " start " << (j->start - t0) << " id " << j->job_id;
    if (j->end == 0) out << "  # still running";
    out << "\n";
  }
  return true;
}

void WriteExportTrace(const std::vector<ExportJob>& input, std::ostream& out) {
  std::vector<const ExportJob*> jobs;
  for (const ExportJob& j : input) jobs.push_back(&j);
  std::stable_sort(jobs.begin(), jobs.end(), [](const ExportJob* a, const ExportJob* b) {
    return a->submit != b->submit ? a->submit < b->submit : a->job_id < b->job_id;
  });
  out << "submit,start,end,job,association,billing,cpus,partition,qos\n";
  for (const ExportJob* j : jobs) {
    out << j->submit << ',' << j->start << ',';
    if (j->end > 0) out << j->end;
    char billing[64];
    std::snprintf(billing, sizeof billing, "%.15g", j->billing);
    out << ',' << j->job_id << ',' << j->assoc << ',' << billing << ',' << j->cpus << ','
        << j->partition << ',' << j->qos << '\n';
  }
}

}  // namespace fairway::usage
