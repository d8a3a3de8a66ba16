// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin_config.h"

#include <atomic>

#include "decay.h"
#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

// Heap-held and never freed: no static destructor may run while slurmctld's
// RPC threads can still read the configuration at exit.
std::shared_ptr<const PluginConfig>& Config() {
  static auto* config = new std::shared_ptr<const PluginConfig>(std::make_shared<PluginConfig>());
  return *config;
}

std::vector<double> TresWeights() {
  std::vector<double> weights;
  if (!slurm_conf.priority_weight_tres || slurmctld_tres_cnt <= 0) return weights;
  // fail=false: a bad PriorityWeightTRES is logged, never fatal.
  double* array = slurm_get_tres_weight_array(slurm_conf.priority_weight_tres,
                                              slurmctld_tres_cnt, false);
  if (!array) {
    LogError("PriorityWeightTRES: cannot use '%s' (TRES factors disabled)",
             slurm_conf.priority_weight_tres);
    return weights;
  }
  weights.assign(array, array + slurmctld_tres_cnt);
  xfree(array);
  return weights;
}

}  // namespace

void LoadConfig(bool with_slurmdbd, bool log_summary) {
  auto config = std::make_shared<PluginConfig>();
  Params& p = config->params;
  p.weight_age = slurm_conf.priority_weight_age;
  p.weight_assoc = slurm_conf.priority_weight_assoc;
  p.weight_fairshare = slurm_conf.priority_weight_fs;
  p.weight_job_size = slurm_conf.priority_weight_js;
  p.weight_partition = slurm_conf.priority_weight_part;
  p.weight_qos = slurm_conf.priority_weight_qos;
  p.weight_tres = TresWeights();
  for (size_t i = 0; i < p.weight_tres.size(); ++i) {
    if (p.weight_tres[i] != 0.0) config->weighted_tres.push_back(static_cast<uint32_t>(i));
  }
  p.flags = slurm_conf.priority_flags;
  p.decay_half_life_s = slurm_conf.priority_decay_hl;
  p.calc_period_s = slurm_conf.priority_calc_period;
  p.max_age_s = slurm_conf.priority_max_age;
  p.reset_period = static_cast<ResetPeriod>(slurm_conf.priority_reset_period);
  p.favor_small = slurm_conf.priority_favor_small;
  p.damp_factor = slurm_conf.fs_dampening_factor;
  if (p.damp_factor == 0) {
    LogError("FairShareDampeningFactor: 0 would divide by zero (using 1)");
    p.damp_factor = 1;
  }
  if (slurm_conf.priority_params) {
    for (const Diagnostic& d : ParsePriorityParameters(slurm_conf.priority_params, &p)) {
      LogError("%s", d.Format().c_str());
    }
  }
  if (!with_slurmdbd) {
    if (p.weight_age) LogError("PriorityWeightAge can only be used with SlurmDBD, ignoring");
    if (p.weight_fairshare) {
      LogError("PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
    }
    p.weight_age = 0;
    p.weight_fairshare = 0;
    config->calc_fairshare = false;
  }
  if (p.WeightSum() > kMaxPriority) {
    LogError("the sum of the PriorityWeight* values (%llu) exceeds 2^32 - 1: priorities "
             "above 4294967295 are clamped", static_cast<unsigned long long>(p.WeightSum()));
  }
  config->decay_factor_per_second = DecayFactorPerSecond(p.decay_half_life_s);
  if (log_summary) {
    LogInfo("fairshare mode %s; weights age=%u assoc=%u fairshare=%u jobsize=%u "
            "partition=%u qos=%u tres=%s; half-life %llds; calc period %llds",
            FairshareModeName(p.Mode()), p.weight_age, p.weight_assoc, p.weight_fairshare,
            p.weight_job_size, p.weight_partition, p.weight_qos,
            slurm_conf.priority_weight_tres ? slurm_conf.priority_weight_tres : "(none)",
            static_cast<long long>(p.decay_half_life_s), static_cast<long long>(p.calc_period_s));
  }
  std::atomic_store(&Config(), std::shared_ptr<const PluginConfig>(config));
}

std::shared_ptr<const PluginConfig> CurrentConfig() { return std::atomic_load(&Config()); }

}  // namespace fairway::plugin
