// SPDX-License-Identifier: GPL-2.0-or-later
// Read-only access to slurmdbd's MariaDB/MySQL database for `fairway usage`
// (MariaDB Connector/C), with the credentials of slurmdbd.conf. Only SELECT
// statements are sent, in a session set READ ONLY. Errors are sentences
// naming the server, user, database or table concerned, never the password.
#ifndef FAIRWAY_TOOL_SLURMDBD_DB_CLIENT_H_
#define FAIRWAY_TOOL_SLURMDBD_DB_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/slurmdbd_conf_reader.h"

namespace fairway::usage {

// A job row of <cluster>_job_table, converted.
struct DbJob {
  uint32_t job_id = 0;
  uint32_t assoc_id = 0;
  uint32_t user_id = 0;
  uint32_t qos_id = 0;
  uint32_t state = 0;
  int64_t submit = 0;
  int64_t start = 0;  // 0 = never started
  int64_t end = 0;    // 0 = not ended
  std::string partition;
  std::map<uint32_t, uint64_t> tres;  // tres_alloc
  double billing = 0;
  uint64_t cpus = 0;
};

}  // namespace fairway::usage

namespace fairway::client {

struct DbAssoc {
  uint32_t id = 0;
  std::string acct, user, partition, parent_acct;
  uint32_t shares = 1;  // Fairshare; 0x7fffffff = "parent"
  bool deleted = false;
};

// A row of <cluster>_assoc_usage_* (assoc_id set) or <cluster>_usage_*
// (assoc_id 0; the capacity columns set) for one TRES.
struct DbUsageRow {
  uint32_t assoc_id = 0;
  int64_t time_start = 0;
  uint64_t count = 0;
  uint64_t alloc_secs = 0, down_secs = 0, pdown_secs = 0, idle_secs = 0, plan_secs = 0,
           over_secs = 0;
};

// A row of tres_table.
struct DbTres {
  uint32_t id = 0;
  std::string type, name;  // "cpu", ""; "gres", "gpu"
};

// A row skipped because it could not be converted (unparsable tres_alloc,
// NULL where a number belongs): reported by job id, never fatal.
struct DbSkipped {
  std::string job;  // the id_job text ("?" when that was the bad field)
  std::string what;
};

class DbClient {
 public:
  DbClient();
  ~DbClient();
  DbClient(const DbClient&) = delete;
  DbClient& operator=(const DbClient&) = delete;

  // Connects (host "localhost": the unix socket of MYSQL_UNIX_PORT, or the
  // connector's default), selects conf.loc and makes the session read-only.
  bool Connect(const usage::SlurmdbdConf& conf, std::string* error);

  // Jobs of <cluster>_job_table that ran at some time in [since, now]: started,
  // and not ended before since (still running ones included). since 0 = all.
  bool LoadJobs(const std::string& cluster, int64_t since, std::vector<usage::DbJob>* jobs,
                std::vector<DbSkipped>* skipped, std::string* error);
  bool LoadAssocs(const std::string& cluster, std::vector<DbAssoc>* assocs, std::string* error);
  bool LoadQos(std::map<uint32_t, std::string>* qos, std::string* error);
  bool LoadTres(std::vector<DbTres>* tres, std::string* error);
  // Roll-up rows of one TRES with time_start in [start, end): table_kind is
  // "hour", "day" or "month"; per association from
  // <cluster>_assoc_usage_<kind>_table when per_assoc, else the cluster's
  // from <cluster>_usage_<kind>_table. Deleted rows are skipped.
  bool LoadRollups(const std::string& cluster, const std::string& table_kind, bool per_assoc,
                   uint32_t tres_id, int64_t start, int64_t end, std::vector<DbUsageRow>* rows,
                   std::string* error);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fairway::client

#endif  // FAIRWAY_TOOL_SLURMDBD_DB_CLIENT_H_
