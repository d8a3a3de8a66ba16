// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_source.h"

#include <cstdlib>

#include "io/slurmdbd_conf_reader.h"
#include "slurmdbd/db_client.h"
#include "text_util.h"

namespace fairway {

namespace {

std::vector<report::AssocRow> AssocRows(const std::vector<client::DbAssoc>& assocs) {
  std::vector<report::AssocRow> out;
  for (const client::DbAssoc& a : assocs) {
    out.push_back({a.id, a.acct, a.user, a.partition, a.parent_acct, a.shares, a.deleted});
  }
  return out;
}

std::vector<report::UsageRow> UsageRows(const std::vector<client::DbUsageRow>& rows) {
  std::vector<report::UsageRow> out;
  for (const client::DbUsageRow& u : rows) out.push_back({u.assoc_id, u.time_start, u.alloc_secs});
  return out;
}

std::vector<report::ClusterRow> ClusterRows(const std::vector<client::DbUsageRow>& rows) {
  std::vector<report::ClusterRow> out;
  for (const client::DbUsageRow& c : rows) {
    out.push_back({c.time_start, c.count, c.alloc_secs, c.down_secs, c.pdown_secs, c.idle_secs,
                   c.plan_secs, c.over_secs});
  }
  return out;
}

}  // namespace

bool LoadReportInput(const ReportSource& source, report::Input* in, size_t* unmatched,
                     std::string* error, bool* bad_input) {
  *bad_input = false;
  const std::string dbd_path = source.slurmdbd_conf.empty()
                                   ? usage::DefaultSlurmdbdConfPath(std::getenv("SLURM_CONF"))
                                   : source.slurmdbd_conf;
  usage::SlurmdbdConf dbd;
  client::DbClient db;
  if (!usage::ReadSlurmdbdConf(dbd_path, &dbd, error) || !db.Connect(dbd, error)) return false;
  std::vector<client::DbTres> tres;
  std::vector<client::DbAssoc> assocs;
  if (!db.LoadTres(&tres, error) || !db.LoadAssocs(source.cluster, &assocs, error)) return false;
  const std::string want = ToLower(source.tres);
  const size_t slash = want.find('/');
  const std::string want_type = want.substr(0, slash);
  const std::string want_name = slash == std::string::npos ? "" : want.substr(slash + 1);
  uint32_t tres_id = 0;
  std::string known;
  for (const client::DbTres& t : tres) {
    const std::string name = t.name.empty() ? t.type : t.type + "/" + t.name;
    known += (known.empty() ? "" : ", ") + name;
    if (ToLower(t.type) == want_type && ToLower(t.name) == want_name) tres_id = t.id;
  }
  if (!tres_id) {
    *error = "TRES '" + source.tres + "' is not one slurmdbd knows (" + known + ")";
    *bad_input = true;
    return false;
  }
  const std::vector<report::Bucket> buckets = report::MakeBuckets(in->by, in->start, in->end);
  if (buckets.empty()) {
    *error = "the period is empty";
    *bad_input = true;
    return false;
  }
  const std::string kind = in->by == report::Granularity::kHour ? "hour" : "day";
  const int64_t from = buckets.front().start, to = buckets.back().end;
  std::vector<client::DbUsageRow> usage, capacity;
  if (!db.LoadRollups(source.cluster, kind, true, tres_id, from, to, &usage, error) ||
      !db.LoadRollups(source.cluster, kind, false, tres_id, from, to, &capacity, error)) {
    return false;
  }
  in->assocs = AssocRows(assocs);
  in->usage = UsageRows(usage);
  in->cluster = ClusterRows(capacity);
  for (const Params::RemoteCluster& other : source.others) {
    std::vector<client::DbAssoc> their_assocs;
    std::vector<client::DbUsageRow> their_usage, their_capacity;
    if (!db.LoadAssocs(other.name, &their_assocs, error) ||
        !db.LoadRollups(other.name, kind, true, tres_id, from, to, &their_usage, error) ||
        !db.LoadRollups(other.name, kind, false, tres_id, from, to, &their_capacity, error)) {
      *error = "cluster " + other.name + ": " + *error;
      return false;
    }
    for (const report::UsageRow& u : report::UsageByPath(in->assocs, AssocRows(their_assocs),
                                                         UsageRows(their_usage), other.scale, unmatched)) {
      in->usage.push_back(u);
    }
    report::AddCapacity(&in->cluster, ClusterRows(their_capacity), other.scale);
  }
  return true;
}

}  // namespace fairway
