// SPDX-License-Identifier: GPL-2.0-or-later
// fw_config_*: slurm.conf's priority settings and PriorityParameters, read
// once per (re)configuration into an immutable, reference-counted object,
// and the logger every later call reports through.
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "api/api_internal.h"
#include "decay.h"
#include "diagnostic.h"

namespace fairway::api {

namespace {

// Formats into a string of whatever length the message needs (a hostile
// PriorityParameters value can be kilobytes long; it must not cut off the
// part of the line that says what is used instead).
std::string FormatV(const char* format, va_list args) {
  std::string text;
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (needed > 0) {
    text.resize(static_cast<size_t>(needed) + 1);
    std::vsnprintf(&text[0], text.size(), format, args);
    text.resize(static_cast<size_t>(needed));
  }
  return text;
}

}  // namespace

void Log(const fw_config* config, fw_log_level_t level, const char* format, ...) {
  if (!config || !config->log) return;
  if (level == FW_LOG_PRIO && !config->prio_debug) return;
  va_list args;
  va_start(args, format);
  const std::string text = FormatV(format, args);
  va_end(args);
  config->log(level, text.c_str());
}

void LogTo(fw_log_fn log, fw_log_level_t level, const char* format, ...) {
  if (!log) return;
  va_list args;
  va_start(args, format);
  const std::string text = FormatV(format, args);
  va_end(args);
  log(level, text.c_str());
}

void ReportException(const fw_config* config, const char* function) {
  // Logging may itself fail (no memory): then nothing more can be done.
  try {
    try {
      throw;
    } catch (const std::exception& e) {
      Log(config, FW_LOG_ERROR, "%s failed: %s", function, e.what());
    } catch (...) {
      Log(config, FW_LOG_ERROR, "%s failed", function);
    }
  } catch (...) {
  }
}

namespace {

void Derive(fw_config* c) {
  const Params& p = c->params;
  c->weighted_tres.clear();
  for (size_t i = 0; i < p.weight_tres.size(); ++i) {
    if (p.weight_tres[i] != 0.0) c->weighted_tres.push_back(static_cast<uint32_t>(i));
  }
  c->decay_per_second = DecayFactorPerSecond(p.decay_half_life_s);
  fw_settings_t& s = c->settings;
  s.mode = static_cast<fw_mode_t>(p.Mode());
  s.flags = p.flags;
  s.calc_fairshare = c->calc_fairshare;
  s.fair_tree_shares = SharesNormalizedLikeFairTree(p.Mode());
  s.weight_fairshare = p.weight_fairshare;
  s.damp_factor = p.damp_factor;
  s.decay_per_second = c->decay_per_second;
  s.decay_half_life_s = p.decay_half_life_s;
  s.calc_period_s = p.calc_period_s;
  s.reset_period = static_cast<uint16_t>(p.reset_period);
  s.usage_bootstrap = static_cast<fw_bootstrap_mode_t>(p.usage_bootstrap);
  s.tres_cnt = static_cast<uint32_t>(p.weight_tres.size());
  s.tres_weights = p.weight_tres.empty() ? nullptr : p.weight_tres.data();
  s.prio_debug = c->prio_debug;
  c->remote_cluster_names.clear();
  for (const Params::RemoteCluster& r : p.fairshare_clusters) c->remote_cluster_names.push_back(r.name.c_str());
  s.remote_cluster_cnt = c->remote_cluster_names.size();
  s.remote_clusters = c->remote_cluster_names.empty() ? nullptr : c->remote_cluster_names.data();
  s.fairshare_sync_s = p.fairshare_sync_s;
  s.change_check_s = p.change_check_s;
}

static_assert(static_cast<int>(FairshareMode::kClassic) == FW_MODE_CLASSIC &&
                  static_cast<int>(FairshareMode::kDepthOblivious) == FW_MODE_DEPTH_OBLIVIOUS &&
                  static_cast<int>(FairshareMode::kFairTree) == FW_MODE_FAIR_TREE &&
                  static_cast<int>(FairshareMode::kRanged) == FW_MODE_RANGED &&
                  static_cast<int>(FairshareMode::kPlannedUse) == FW_MODE_PLANNED_USE,
              "fw_mode_t must follow FairshareMode");
static_assert(static_cast<int>(UsageBootstrap::kAuto) == FW_BOOTSTRAP_AUTO &&
                  static_cast<int>(UsageBootstrap::kForce) == FW_BOOTSTRAP_FORCE &&
                  static_cast<int>(UsageBootstrap::kOff) == FW_BOOTSTRAP_OFF,
              "fw_bootstrap_mode_t must follow UsageBootstrap");
static_assert(FW_NO_VAL == kNoVal && FW_NO_CONSUME_VAL64 == kNoConsumeVal64 &&
                  FW_NICE_OFFSET == kNiceOffset,
              "fairway_api.h restates Slurm's sentinels as slurm_values.h does");

// The configuration from the slurm_conf fields the boundary copied
// (host.c, fw_load_config).
void Load(const fw_config_input_t& in, bool log_summary, fw_config* config) {
  const fw_log_fn log = config->log;
  Params& p = config->params;
  p.weight_age = in.weight_age;
  p.weight_assoc = in.weight_assoc;
  p.weight_fairshare = in.weight_fairshare;
  p.weight_job_size = in.weight_job_size;
  p.weight_partition = in.weight_partition;
  p.weight_qos = in.weight_qos;
  if (in.weight_tres_text && in.tres_cnt > 0) {
    if (in.weight_tres) {
      p.weight_tres.assign(in.weight_tres, in.weight_tres + in.tres_cnt);
    } else {
      // slurm_get_tres_weight_array refused it (fail=false: logged, never
      // fatal).
      LogTo(log, FW_LOG_ERROR, "PriorityWeightTRES: cannot use '%s' (TRES factors disabled)",
            in.weight_tres_text);
    }
  }
  config->tres_cnt = in.tres_cnt;
  p.flags = in.flags;
  p.decay_half_life_s = in.decay_half_life_s;
  p.calc_period_s = in.calc_period_s;
  p.max_age_s = in.max_age_s;
  p.reset_period = static_cast<ResetPeriod>(in.reset_period);
  p.favor_small = in.favor_small != 0;
  p.favor_small_clamps_nodes = in.favor_small_clamps_nodes;
  p.damp_factor = in.damp_factor;
  if (p.damp_factor == 0) {
    LogTo(log, FW_LOG_ERROR, "FairShareDampeningFactor: 0 would divide by zero (using 1)");
    p.damp_factor = 1;
  }
  if (in.priority_parameters) {
    for (const Diagnostic& d :
         ParsePriorityParameters(in.priority_parameters, &p, in.cluster_name ? in.cluster_name : "")) {
      LogTo(log, FW_LOG_ERROR, "%s", d.Format().c_str());
    }
  }
  if (!in.with_slurmdbd) {
    if (p.weight_age) {
      LogTo(log, FW_LOG_ERROR, "PriorityWeightAge can only be used with SlurmDBD, ignoring");
    }
    if (p.weight_fairshare) {
      LogTo(log, FW_LOG_ERROR,
            "PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
    }
    p.weight_age = 0;
    p.weight_fairshare = 0;
    config->calc_fairshare = false;
  }
  if (p.WeightSum() > kMaxPriority) {
    LogTo(log, FW_LOG_ERROR,
          "the sum of the PriorityWeight* values (%llu) exceeds 2^32 - 1: priorities "
          "above 4294967295 are clamped",
          static_cast<unsigned long long>(p.WeightSum()));
  }
  config->prio_debug = in.prio_debug;
  Derive(config);
  if (log_summary) {
    LogTo(log, FW_LOG_INFO,
          "fairshare mode %s; weights age=%u assoc=%u fairshare=%u jobsize=%u "
          "partition=%u qos=%u tres=%s; half-life %llds; calc period %llds; %s",
          FairshareModeName(p.Mode()), p.weight_age, p.weight_assoc, p.weight_fairshare,
          p.weight_job_size, p.weight_partition, p.weight_qos,
          in.weight_tres_text ? in.weight_tres_text : "(none)",
          static_cast<long long>(p.decay_half_life_s), static_cast<long long>(p.calc_period_s),
          p.change_check_s
              ? ("changes looked for every " + std::to_string(p.change_check_s) + "s").c_str()
              : "no passes on change (change_check=0)");
  }
}

}  // namespace

}  // namespace fairway::api

using fairway::api::ReportException;

extern "C" {

fw_config_t* fw_config_create(const fw_config_input_t* in, fw_log_fn log, bool log_summary) {
  fw_config* config = nullptr;
  try {
    config = new fw_config();
    config->log = log;
    fairway::api::Derive(config);
    if (in) fairway::api::Load(*in, log_summary, config);
    return config;
  } catch (...) {
    fw_config stand_in;
    stand_in.log = log;
    ReportException(&stand_in, "fw_config_create");
  }
  // Never NULL: the defaults (as far as memory allows), fairshare off.
  if (!config) config = new (std::nothrow) fw_config();
  if (config) {
    config->log = log;
    config->calc_fairshare = false;
    try {
      config->params = fairway::Params();
      fairway::api::Derive(config);
    } catch (...) {
    }
  }
  return config;
}

fw_config_t* fw_config_ref(fw_config_t* config) {
  if (config) config->refs.fetch_add(1, std::memory_order_relaxed);
  return config;
}

void fw_config_unref(fw_config_t* config) {
  if (config && config->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete config;
}

const fw_settings_t* fw_settings(const fw_config_t* config) {
  return config ? &config->settings : nullptr;
}

}  // extern "C"
