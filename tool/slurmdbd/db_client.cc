// SPDX-License-Identifier: GPL-2.0-or-later
#include "db_client.h"

#include <mysql.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "text_util.h"
#include "tres_counts.h"

namespace fairway::client {

namespace {

// Client error codes (errmsg.h) and server ones (mysqld_error.h), spelled
// out to depend on no more headers than mysql.h.
constexpr unsigned kErAccessDenied = 1045;
constexpr unsigned kErDbAccessDenied = 1044;
constexpr unsigned kErBadDb = 1049;
constexpr unsigned kErNoSuchTable = 1146;
constexpr unsigned kErBadField = 1054;
constexpr unsigned kCrConnectionError = 2002;
constexpr unsigned kCrConnHostError = 2003;
constexpr unsigned kCrUnknownHost = 2005;
constexpr unsigned kCrServerGone = 2006;
constexpr unsigned kCrServerLost = 2013;

bool SafeIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

bool ToU64(const char* text, uint64_t* out) {
  if (!text) return false;
  const std::optional<uint64_t> value = ParseUnsigned64(text);
  if (value) *out = *value;
  return value.has_value();
}

}  // namespace

struct DbClient::Impl {
  MYSQL* db = nullptr;
  usage::SlurmdbdConf conf;
  std::string where;  // "user slurm at localhost (socket /run/..)"

  ~Impl() {
    if (db) mysql_close(db);
  }

  std::string Error(const std::string& what) const {
    return what + ": " + mysql_error(db) + " (error " + std::to_string(mysql_errno(db)) + ")";
  }

  // Runs one statement; a failure is described with the table it concerns.
  bool Query(const std::string& sql, const std::string& table, std::string* error) {
    if (mysql_real_query(db, sql.data(), sql.size()) == 0) return true;
    const unsigned code = mysql_errno(db);
    if (code == kErNoSuchTable) {
      *error = "table " + table + " does not exist in database " + conf.loc +
               " (wrong --cluster, or not slurmdbd's database?)";
    } else if (code == kErBadField) {
      *error = Error("table " + table + " lacks a column fairway reads (a Slurm version other than 22.05?)");
    } else if (code == kCrServerGone || code == kCrServerLost) {
      *error = Error("lost the connection to the database server at " + where);
    } else {
      *error = Error("query on " + table + " failed");
    }
    return false;
  }
};

DbClient::DbClient() : impl_(std::make_unique<Impl>()) {}
DbClient::~DbClient() = default;

bool DbClient::Connect(const usage::SlurmdbdConf& conf, std::string* error) {
  Impl& d = *impl_;
  d.conf = conf;
  if (d.db) mysql_close(d.db);
  d.db = mysql_init(nullptr);
  if (!d.db) {
    *error = "cannot initialise the MariaDB client library (out of memory?)";
    return false;
  }
  unsigned timeout = 10;
  mysql_options(d.db, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  unsigned read_timeout = 300;
  mysql_options(d.db, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
  const char* socket = nullptr;
  const char* env = std::getenv("MYSQL_UNIX_PORT");
  if (conf.host == "localhost" && env && *env) socket = env;
  d.where = conf.host + (conf.host == "localhost"
                             ? std::string(" (unix socket ") + (socket ? socket : "default") + ")"
                             : ":" + std::to_string(conf.port));
  if (conf.user.empty()) {
    *error = conf.path + ": StorageUser is not set";
    return false;
  }
  if (!mysql_real_connect(d.db, conf.host.c_str(), conf.user.c_str(), conf.pass.c_str(), nullptr,
                          conf.port, socket, 0)) {
    const unsigned code = mysql_errno(d.db);
    if (code == kErAccessDenied) {
      *error = "the database server at " + d.where + " refused user '" + conf.user +
               "' (wrong StorageUser or StoragePass in " + conf.path + "?): " + mysql_error(d.db);
    } else if (code == kCrConnectionError || code == kCrConnHostError || code == kCrUnknownHost) {
      *error = "cannot reach the database server at " + d.where + ": " + mysql_error(d.db) +
               (conf.host == "localhost" && !socket
                    ? " (StorageHost=localhost uses a unix socket: set MYSQL_UNIX_PORT to slurmdbd's)"
                    : "");
    } else {
      *error = d.Error("cannot connect to the database server at " + d.where + " as user '" +
                       conf.user + "'");
    }
    return false;
  }
  if (mysql_select_db(d.db, conf.loc.c_str()) != 0) {
    const unsigned code = mysql_errno(d.db);
    if (code == kErBadDb || code == kErDbAccessDenied) {
      *error = "database '" + conf.loc + "' (StorageLoc in " + conf.path + ") is not there for user '" +
               conf.user + "' at " + d.where + ": " + mysql_error(d.db);
    } else {
      *error = d.Error("cannot select database '" + conf.loc + "'");
    }
    return false;
  }
  // Read-only in spirit and in fact: only SELECTs follow.
  const char* ro = "SET SESSION TRANSACTION READ ONLY";
  if (mysql_real_query(d.db, ro, std::strlen(ro)) != 0) {
    *error = d.Error("cannot make the session read-only");
    return false;
  }
  return true;
}

bool DbClient::LoadJobs(const std::string& cluster, int64_t since, std::vector<usage::DbJob>* jobs,
                        std::vector<DbSkipped>* skipped, std::string* error) {
  Impl& d = *impl_;
  if (!SafeIdentifier(cluster)) {
    *error = "cluster name '" + cluster + "' is not a valid table prefix";
    return false;
  }
  const std::string table = cluster + "_job_table";
  const std::string sql =
      "SELECT id_job, id_assoc, id_user, id_qos, state, time_submit, time_start, time_end, "
      "`partition`, tres_alloc FROM `" + table + "` WHERE deleted = 0 AND time_start > 0 AND "
      "(time_end = 0 OR time_end >= " + std::to_string(since < 0 ? 0 : since) +
      ") ORDER BY time_submit, id_job";
  if (!d.Query(sql, table, error)) return false;
  MYSQL_RES* res = mysql_use_result(d.db);
  if (!res) {
    *error = d.Error("reading " + table);
    return false;
  }
  if (mysql_num_fields(res) != 10) {
    mysql_free_result(res);
    *error = "table " + table + ": unexpected result shape";
    return false;
  }
  static const char* kNames[] = {"id_job",     "id_assoc",   "id_user",  "id_qos",    "state",
                                 "time_submit", "time_start", "time_end", "partition", "tres_alloc"};
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    usage::DbJob j;
    uint64_t v[8] = {};
    std::string bad;
    for (int i = 0; i < 8 && bad.empty(); ++i) {
      if (!row[i]) bad = std::string(kNames[i]) + " is NULL";
      else if (!ToU64(row[i], &v[i])) bad = std::string(kNames[i]) + " '" + row[i] + "' is not a number";
    }
    if (bad.empty() && (v[0] > UINT32_MAX || v[1] > UINT32_MAX)) bad = "id out of range";
    if (bad.empty() && (v[5] > INT64_MAX || v[6] > INT64_MAX || v[7] > INT64_MAX)) bad = "time out of range";
    if (bad.empty() && !row[9]) bad = "tres_alloc is NULL";
    if (bad.empty() && !ParseTresCounts(row[9], &j.tres)) {
      bad = std::string("tres_alloc '") + row[9] + "' is not a list of TRES id=count";
    }
    if (bad.empty() && v[7] != 0 && v[7] < v[6]) bad = "time_end is before time_start";
    if (!bad.empty()) {
      skipped->push_back({row[0] ? row[0] : "?", bad});
      continue;
    }
    j.job_id = static_cast<uint32_t>(v[0]);
    j.assoc_id = static_cast<uint32_t>(v[1]);
    j.user_id = static_cast<uint32_t>(v[2]);
    j.qos_id = static_cast<uint32_t>(v[3]);
    j.state = static_cast<uint32_t>(v[4]);
    j.submit = static_cast<int64_t>(v[5]);
    j.start = static_cast<int64_t>(v[6]);
    j.end = static_cast<int64_t>(v[7]);
    j.partition = row[8] ? row[8] : "";
    j.billing = AllocationBilling(j.tres);
    auto cpus = j.tres.find(kTresCpu);
    j.cpus = cpus == j.tres.end() ? 0 : cpus->second;
    jobs->push_back(std::move(j));
  }
  const bool failed = mysql_errno(d.db) != 0;
  if (failed) *error = d.Error("reading " + table);
  mysql_free_result(res);
  return !failed;
}

bool DbClient::LoadAssocs(const std::string& cluster, std::vector<DbAssoc>* assocs,
                          std::string* error) {
  Impl& d = *impl_;
  if (!SafeIdentifier(cluster)) {
    *error = "cluster name '" + cluster + "' is not a valid table prefix";
    return false;
  }
  const std::string table = cluster + "_assoc_table";
  if (!d.Query("SELECT id_assoc, acct, user, `partition`, parent_acct, deleted, shares FROM `" + table +
                   "` ORDER BY id_assoc",
               table, error)) {
    return false;
  }
  MYSQL_RES* res = mysql_store_result(d.db);
  if (!res) {
    *error = d.Error("reading " + table);
    return false;
  }
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    uint64_t id = 0, deleted = 0;
    if (!ToU64(row[0], &id) || id > UINT32_MAX) continue;
    DbAssoc a;
    a.id = static_cast<uint32_t>(id);
    a.acct = row[1] ? row[1] : "";
    a.user = row[2] ? row[2] : "";
    a.partition = row[3] ? row[3] : "";
    a.parent_acct = row[4] ? row[4] : "";
    a.deleted = ToU64(row[5], &deleted) && deleted != 0;
    uint64_t shares = 1;
    if (ToU64(row[6], &shares) && shares <= UINT32_MAX) a.shares = static_cast<uint32_t>(shares);
    assocs->push_back(std::move(a));
  }
  mysql_free_result(res);
  return true;
}

bool DbClient::LoadQos(std::map<uint32_t, std::string>* qos, std::string* error) {
  Impl& d = *impl_;
  if (!d.Query("SELECT id, name FROM qos_table", "qos_table", error)) return false;
  MYSQL_RES* res = mysql_store_result(d.db);
  if (!res) {
    *error = d.Error("reading qos_table");
    return false;
  }
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    uint64_t id = 0;
    if (!ToU64(row[0], &id) || id > UINT32_MAX) continue;
    (*qos)[static_cast<uint32_t>(id)] = row[1] ? row[1] : "";
  }
  mysql_free_result(res);
  return true;
}

bool DbClient::LoadTres(std::vector<DbTres>* tres, std::string* error) {
  Impl& d = *impl_;
  if (!d.Query("SELECT id, type, name FROM tres_table WHERE deleted = 0 ORDER BY id", "tres_table", error)) {
    return false;
  }
  MYSQL_RES* res = mysql_store_result(d.db);
  if (!res) {
    *error = d.Error("reading tres_table");
    return false;
  }
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    uint64_t id = 0;
    if (!ToU64(row[0], &id) || id > UINT32_MAX) continue;
    tres->push_back({static_cast<uint32_t>(id), row[1] ? row[1] : "", row[2] ? row[2] : ""});
  }
  mysql_free_result(res);
  return true;
}

bool DbClient::LoadRollups(const std::string& cluster, const std::string& table_kind, bool per_assoc,
                           uint32_t tres_id, int64_t start, int64_t end, std::vector<DbUsageRow>* rows,
                           std::string* error) {
  Impl& d = *impl_;
  if (!SafeIdentifier(cluster) || !SafeIdentifier(table_kind)) {
    *error = "cluster name '" + cluster + "' is not a valid table prefix";
    return false;
  }
  const std::string table = cluster + (per_assoc ? "_assoc_usage_" : "_usage_") + table_kind + "_table";
  const std::string columns = per_assoc ? "id, time_start, alloc_secs"
                                        : "time_start, count, alloc_secs, down_secs, pdown_secs, "
                                          "idle_secs, plan_secs, over_secs";
  const std::string sql = "SELECT " + columns + " FROM `" + table + "` WHERE deleted = 0 AND id_tres = " +
                          std::to_string(tres_id) + " AND time_start >= " +
                          std::to_string(start < 0 ? 0 : start) + " AND time_start < " +
                          std::to_string(end < 0 ? 0 : end);
  if (!d.Query(sql, table, error)) return false;
  MYSQL_RES* res = mysql_use_result(d.db);
  if (!res) {
    *error = d.Error("reading " + table);
    return false;
  }
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    uint64_t v[8] = {};
    const unsigned fields = per_assoc ? 3 : 8;
    bool ok = true;
    for (unsigned i = 0; i < fields && ok; ++i) ok = ToU64(row[i], &v[i]);
    if (!ok) continue;  // NOT NULL bigint columns: cannot happen in slurmdbd's schema
    DbUsageRow r;
    if (per_assoc) {
      if (v[0] > UINT32_MAX || v[1] > INT64_MAX) continue;
      r.assoc_id = static_cast<uint32_t>(v[0]);
      r.time_start = static_cast<int64_t>(v[1]);
      r.alloc_secs = v[2];
    } else {
      if (v[0] > INT64_MAX) continue;
      r.time_start = static_cast<int64_t>(v[0]);
      r.count = v[1];
      r.alloc_secs = v[2];
      r.down_secs = v[3];
      r.pdown_secs = v[4];
      r.idle_secs = v[5];
      r.plan_secs = v[6];
      r.over_secs = v[7];
    }
    rows->push_back(r);
  }
  const bool failed = mysql_errno(d.db) != 0;
  if (failed) *error = d.Error("reading " + table);
  mysql_free_result(res);
  return !failed;
}

}  // namespace fairway::client
