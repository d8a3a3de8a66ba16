// SPDX-License-Identifier: GPL-2.0-or-later
#include "rpc_client.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>

#include <pwd.h>

#include "text_util.h"
#include "tres_weight.h"

#include <cerrno>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>
}

// libslurm's API changes between the releases Fairway supports
// (22.05 to 26.05); each difference is one #if on this.
#define FW_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#if !FW_SLURM_AT_LEAST(23, 2, 0)
// 22.05's names for the list types of 23.02 and later.
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

namespace fairway::client {

uint32_t BuiltSlurmVersion() { return SLURM_VERSION_NUMBER; }


namespace {

// errno, not slurm_get_errno (gone in 24.11): libslurm sets errno.
std::string SlurmError(const char* what) {
  return std::string(what) + ": " + slurm_strerror(errno);
}

template <typename T, typename F>
void ForEach(list_t* list, F f) {
  if (!list) return;
  list_itr_t* it = slurm_list_iterator_create(list);
  while (void* item = slurm_list_next(it)) f(static_cast<T*>(item));
  slurm_list_iterator_destroy(it);
}

std::string Str(const char* s) { return s ? s : ""; }

// libslurm's own set-up (configuration, auth and hash plugins), once,
// before the first RPC: from 23.02 a client that skips it dies in the
// first call ("No hash plugins loaded. Was slurm_init() called ...").
void InitSlurm() {
  static bool done = false;
  if (done) return;
  slurm_init(nullptr);
  done = true;
}

std::string UserName(uint32_t uid) {
  struct passwd pw, *result = nullptr;
  char buffer[4096];
  if (getpwuid_r(uid, &pw, buffer, sizeof buffer, &result) == 0 && result) return pw.pw_name;
  return std::to_string(uid);
}

// Memory may carry a unit suffix (M default, G, T, K).
uint64_t ParseCount(const std::string& text, bool is_mem) {
  if (text.empty()) return 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  double scale = 1;
  if (end && *end) {
    switch (*end) {
      case 'K': case 'k': scale = is_mem ? 1.0 / 1024 : 1e3; break;
      case 'M': case 'm': scale = is_mem ? 1 : 1e6; break;
      case 'G': case 'g': scale = is_mem ? 1024 : 1e9; break;
      case 'T': case 't': scale = is_mem ? 1024.0 * 1024 : 1e12; break;
      case 'P': case 'p': scale = is_mem ? 1024.0 * 1024 * 1024 : 1e15; break;
      default: break;
    }
  }
  return static_cast<uint64_t>(std::llround(value * scale));
}

}  // namespace

std::vector<uint64_t> ParseTresString(const std::string& text,
                                      const std::vector<std::string>& tres_names) {
  std::vector<uint64_t> counts(tres_names.size(), 0);
  for (const std::string& item : Split(text, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string name = ToLower(Trim(item.substr(0, eq)));
    for (size_t i = 0; i < tres_names.size(); ++i) {
      if (ToLower(tres_names[i]) == name) {
        counts[i] = ParseCount(Trim(item.substr(eq + 1)), name == "mem");
        break;
      }
    }
  }
  return counts;
}

bool LoadControllerState(ControllerState* state, std::string* error) {
  InitSlurm();
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) {
    *error = SlurmError("cannot load the controller's configuration");
    return false;
  }
  Params& p = state->params;
  p.weight_age = conf->priority_weight_age;
  p.weight_assoc = conf->priority_weight_assoc;
  p.weight_fairshare = conf->priority_weight_fs;
  p.weight_job_size = conf->priority_weight_js;
  p.weight_partition = conf->priority_weight_part;
  p.weight_qos = conf->priority_weight_qos;
  p.flags = conf->priority_flags;
  p.decay_half_life_s = conf->priority_decay_hl;
  p.calc_period_s = conf->priority_calc_period;
  p.max_age_s = conf->priority_max_age;
  p.reset_period = static_cast<ResetPeriod>(conf->priority_reset_period);
  p.favor_small = conf->priority_favor_small;
  p.favor_small_clamps_nodes = FW_SLURM_AT_LEAST(23, 2, 0);
  p.damp_factor = conf->fs_dampening_factor ? conf->fs_dampening_factor : 1;
  if (conf->priority_params) {
    state->config_diagnostics = ParsePriorityParameters(conf->priority_params, &p);
  }
  state->priority_type = Str(conf->priority_type);
  state->state_save_location = Str(conf->state_save_location);
  state->cluster_name = Str(conf->cluster_name);
  state->private_usage = conf->private_data & PRIVATE_DATA_USAGE;
  state->private_jobs = conf->private_data & PRIVATE_DATA_JOBS;
  std::string weight_tres = Str(conf->priority_weight_tres);
#if FW_SLURM_AT_LEAST(26, 5, 0)
  slurm_free_conf(conf);
#else
  slurm_free_ctl_conf(conf);
#endif

  assoc_mgr_info_request_msg_t request{};
  request.flags = ASSOC_MGR_INFO_FLAG_ASSOC | ASSOC_MGR_INFO_FLAG_QOS;
  assoc_mgr_info_msg_t* info = nullptr;
  if (slurm_load_assoc_mgr_info(&request, &info) != SLURM_SUCCESS || !info) {
    *error = SlurmError("cannot load the controller's associations");
    return false;
  }
  state->tres_names.clear();
  for (uint32_t i = 0; i < info->tres_cnt; ++i) state->tres_names.push_back(Str(info->tres_names[i]));
  state->assocs.clear();
  ForEach<slurmdb_assoc_rec_t>(info->assoc_list, [&](slurmdb_assoc_rec_t* a) {
    ControllerAssoc c;
    c.node.id = a->id;
    c.node.parent_id = a->parent_id;
    c.node.acct = Str(a->acct);
    c.node.user = Str(a->user);
    c.node.partition = Str(a->partition);
    c.node.shares_raw = a->shares_raw;
    c.node.priority = a->priority == INFINITE ? 0 : a->priority;
    if (a->usage) {
      c.node.usage_raw = a->usage->usage_raw;
      c.level_shares = a->usage->level_shares;
      c.shares_norm = a->usage->shares_norm;
      c.priority_norm = a->usage->priority_norm;
      c.usage_norm = a->usage->usage_norm;
      c.usage_efctv = a->usage->usage_efctv;
      c.fs_factor = a->usage->fs_factor;
      c.level_fs = a->usage->level_fs;
    }
    state->assocs.push_back(std::move(c));
  });
  state->qos.clear();
  ForEach<slurmdb_qos_rec_t>(info->qos_list, [&](slurmdb_qos_rec_t* q) {
    ControllerQos c;
    c.name = Str(q->name);
    c.priority = q->priority;
    c.norm_priority = q->usage ? q->usage->norm_priority : 0;
    state->qos.push_back(c);
  });
  slurm_free_assoc_mgr_info_msg(info);

  // PriorityWeightTRES in the controller's TRES order, each value scaled
  // by its unit as slurm_get_tres_weight_array does.
  p.weight_tres.clear();
  if (!weight_tres.empty()) {
    p.weight_tres.assign(state->tres_names.size(), 0.0);
    for (const std::string& item : Split(weight_tres, ',')) {
      size_t eq = item.find('=');
      if (eq == std::string::npos) continue;
      std::string name = ToLower(Trim(item.substr(0, eq)));
      std::string value = Trim(item.substr(eq + 1));
      std::string why;
      std::optional<double> parsed =
          ParseTresWeightValue(name.substr(0, name.find('/')), value, &why);
      if (!parsed) {
        // The plugin then disables every TRES weight (fail=false), as here.
        p.weight_tres.clear();
        break;
      }
      const double w = *parsed;
      bool configured = false;
      for (size_t i = 0; i < state->tres_names.size(); ++i) {
        if (ToLower(state->tres_names[i]) == name) {
          p.weight_tres[i] = w;
          configured = true;
        }
      }
      if (!configured) {  // a TRES the controller does not track: the same
        p.weight_tres.clear();
        break;
      }
    }
  }

  partition_info_msg_t* parts = nullptr;
  if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
    *error = SlurmError("cannot load partitions");
    return false;
  }
  uint16_t max_factor = 0;
  state->partitions.clear();
  for (uint32_t i = 0; i < parts->record_count; ++i) {
    const partition_info_t& pi = parts->partition_array[i];
    ControllerPartition c;
    c.name = Str(pi.name);
    c.priority_job_factor = pi.priority_job_factor;
    c.priority_tier = pi.priority_tier;
    c.max_time_min = pi.max_time;
    c.tres_cnt = ParseTresString(Str(pi.tres_fmt_str), state->tres_names);
    max_factor = std::max(max_factor, pi.priority_job_factor);
    state->partitions.push_back(std::move(c));
  }
  slurm_free_partition_info_msg(parts);

  node_info_msg_t* nodes = nullptr;
  if (slurm_load_node(0, &nodes, SHOW_ALL | SHOW_FUTURE) != SLURM_SUCCESS) {
    *error = SlurmError("cannot load nodes");
    return false;
  }
  state->cluster_cpus = 0;
  state->usable_cpus = 0;
  state->node_count = 0;
  for (uint32_t i = 0; i < nodes->record_count; ++i) {
    if (!nodes->node_array[i].name) continue;
    state->node_count++;
    state->cluster_cpus += nodes->node_array[i].cpus;
    if ((nodes->node_array[i].node_state & NODE_STATE_BASE) != NODE_STATE_FUTURE) {
      state->usable_cpus += nodes->node_array[i].cpus;
    }
  }
  slurm_free_node_info_msg(nodes);
  return true;
}

bool LoadJobs(std::vector<ControllerJob>* jobs, const std::vector<std::string>& tres_names,
              std::string* error) {
  InitSlurm();
  job_info_msg_t* msg = nullptr;
  if (slurm_load_jobs(0, &msg, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
    *error = SlurmError("cannot load jobs");
    return false;
  }
  jobs->clear();
  for (uint32_t i = 0; i < msg->record_count; ++i) {
    const slurm_job_info_t& j = msg->job_array[i];
    ControllerJob c;
    c.job_id = j.job_id;
    c.user_id = j.user_id;
    c.assoc_id = j.assoc_id;
    c.account = Str(j.account);
    c.partition = Str(j.partition);
    c.qos = Str(j.qos);
    c.job_state = j.job_state;
    c.pending = (j.job_state & JOB_STATE_BASE) == JOB_PENDING;
    c.priority = j.priority;
    c.submit_time = j.submit_time;
    // job_info_t's numbers in the core's meaning (what slurmctld's
    // job_record_t holds): num_cpus is the allocation once the job runs and
    // the request (min_cpus) before; max_cpus 0 is unset.
    c.scalars.accrue_time = j.accrue_time;
    c.scalars.total_cpus = c.pending ? 0 : j.num_cpus;
    c.scalars.min_cpus = j.num_cpus;
    c.scalars.max_cpus = j.max_cpus == 0 ? kNoVal : j.max_cpus;
    c.scalars.min_nodes = j.num_nodes;
    c.scalars.time_limit_min = j.time_limit;
    c.scalars.site_factor = j.site_factor;
    c.scalars.nice = j.nice;
    c.tres_req = ParseTresString(Str(j.tres_req_str), tres_names);
    if (j.tres_alloc_str && *j.tres_alloc_str) {
      c.tres_alloc = ParseTresString(Str(j.tres_alloc_str), tres_names);
    }
    c.user = UserName(j.user_id);
    jobs->push_back(std::move(c));
  }
  slurm_free_job_info_msg(msg);
  return true;
}

bool LoadFactors(std::vector<ControllerFactors>* factors, std::string* error) {
  InitSlurm();
  priority_factors_response_msg_t* resp = nullptr;
  factors->clear();
#if FW_SLURM_AT_LEAST(23, 2, 0)  // sprio's filters moved to the client
  const int rc = slurm_load_job_prio(&resp, 0);
#else
  const int rc = slurm_load_job_prio(&resp, nullptr, nullptr, nullptr, 0);
#endif
  if (rc != SLURM_SUCCESS) {
    if (errno == SLURM_SUCCESS || !resp) return true;  // no pending jobs
    *error = SlurmError("cannot load priority factors");
    return false;
  }
  if (!resp) return true;
  ForEach<priority_factors_object_t>(resp->priority_factors_list, [&](priority_factors_object_t* row) {
    ControllerFactors c;
#if FW_SLURM_AT_LEAST(26, 5, 0)
    c.job_id = row->step_id.job_id;
#else
    c.job_id = row->job_id;
#endif
    c.partition = Str(row->partition);
#if FW_SLURM_AT_LEAST(23, 2, 0)
    c.qos_name = Str(row->qos);
#endif
    c.direct_prio = row->direct_prio;
    // From 23.02 a row wraps its factors (NULL for an operator-set priority).
#if FW_SLURM_AT_LEAST(23, 2, 0)
    const priority_factors_t* o = row->prio_factors;
#else
    const priority_factors_object_t* o = row;
#endif
    if (!o) {
      factors->push_back(std::move(c));
      return;
    }
    c.age = o->priority_age;
    c.assoc = o->priority_assoc;
    c.fairshare = o->priority_fs;
    c.job_size = o->priority_js;
    c.partition_factor = o->priority_part;
    c.qos = o->priority_qos;
    c.site = o->priority_site;
    c.nice = o->nice;
    for (uint32_t i = 0; i < o->tres_cnt; ++i) {
      c.tres.push_back(o->priority_tres ? o->priority_tres[i] : 0);
      c.tres_weights.push_back(o->tres_weights ? o->tres_weights[i] : 0);
    }
    factors->push_back(std::move(c));
  });
  slurm_free_priority_factors_response_msg(resp);
  return true;
}

bool LoadDbClusterNames(std::vector<std::string>* names, std::string* why) {
  InitSlurm();
  void* db = slurmdb_connection_get(nullptr);
  if (!db) {
    *why = SlurmError("cannot connect to slurmdbd");
    return false;
  }
  slurmdb_cluster_cond_t cond;
  slurmdb_init_cluster_cond(&cond, false);
  list_t* clusters = slurmdb_clusters_get(db, &cond);
  if (!clusters) {
    *why = SlurmError("slurmdbd did not list its clusters");
    slurmdb_connection_close(&db);
    return false;
  }
  ForEach<slurmdb_cluster_rec_t>(clusters, [&](slurmdb_cluster_rec_t* c) { names->push_back(Str(c->name)); });
  slurm_list_destroy(clusters);
  slurmdb_connection_close(&db);
  return true;
}

}  // namespace fairway::client
