// SPDX-License-Identifier: GPL-2.0-or-later
#include "check_config.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "assoc_tree.h"
#include "io/slurm_conf_values.h"
#include "io/tree_file.h"
#include "text_util.h"

namespace fairway {

namespace {

constexpr uint64_t kMaxPriority64 = 0xffffffffu;

std::string FormatSeconds(int64_t s) {
  char buf[64];
  if (s % 86400 == 0) std::snprintf(buf, sizeof buf, "%" PRId64 " days", s / 86400);
  else if (s % 3600 == 0) std::snprintf(buf, sizeof buf, "%" PRId64 " hours", s / 3600);
  else std::snprintf(buf, sizeof buf, "%" PRId64 " s", s);
  return buf;
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Nominal length of a reset period in seconds (months of 30 days).
int64_t ResetPeriodSeconds(ResetPeriod p) {
  switch (p) {
    case ResetPeriod::kDaily: return 86400;
    case ResetPeriod::kWeekly: return 7 * 86400;
    case ResetPeriod::kMonthly: return 30 * 86400;
    case ResetPeriod::kQuarterly: return 91 * 86400;
    case ResetPeriod::kYearly: return 365 * 86400;
    default: return 0;
  }
}

const char* ResetPeriodName(ResetPeriod p) {
  switch (p) {
    case ResetPeriod::kNone: return "NONE";
    case ResetPeriod::kNow: return "NOW";
    case ResetPeriod::kDaily: return "DAILY";
    case ResetPeriod::kWeekly: return "WEEKLY";
    case ResetPeriod::kMonthly: return "MONTHLY";
    case ResetPeriod::kQuarterly: return "QUARTERLY";
    case ResetPeriod::kYearly: return "YEARLY";
  }
  return "?";
}

class Checker {
 public:
  Checker(const SlurmConf& conf, CheckReport* report) : conf_(conf), report_(report) {}

  // Whether Slurm's own reader rejects this setting's value (the reader's
  // finding says both controllers refuse).
  bool Refused(const std::string& setting) const {
    for (const ConfDiagnostic& d : conf_.diagnostics) {
      if (d.diagnostic.setting == setting && d.multifactor && !d.multifactor->starts &&
          d.fairway && !d.fairway->starts) {
        return true;
      }
    }
    return false;
  }
  int LineOf(const std::string& setting) const {
    auto it = conf_.settings.find(setting);
    return it == conf_.settings.end() ? 0 : it->second.second;
  }
  std::string ValueOf(const std::string& setting) const {
    auto it = conf_.settings.find(setting);
    return it == conf_.settings.end() ? "" : it->second.first;
  }
  void Add(Severity severity, const std::string& setting, const std::string& message,
           const std::string& fallback = "") {
    ConfDiagnostic d;
    d.line = LineOf(setting);
    d.diagnostic.severity = severity;
    d.diagnostic.setting = setting;
    d.diagnostic.value = ValueOf(setting);
    d.diagnostic.message = message;
    d.diagnostic.fallback = fallback;
    report_->findings.push_back(d);
  }
  // A finding with its claim about each plugin's controller.
  void AddOutcome(Severity severity, const std::string& setting, const std::string& message,
                  const PluginOutcome& multifactor, const PluginOutcome& fairway,
                  const std::string& fallback = "") {
    Add(severity, setting, message, fallback);
    report_->findings.back().multifactor = multifactor;
    report_->findings.back().fairway = fairway;
  }
  void Info(const std::string& setting, const std::string& text) {
    report_->info.push_back({setting, text});
  }

 private:
  const SlurmConf& conf_;
  CheckReport* report_;
};

}  // namespace

int CheckReport::errors() const {
  int n = 0;
  for (const ConfDiagnostic& d : findings) n += d.diagnostic.severity == Severity::kError;
  return n;
}

int CheckReport::warnings() const {
  return static_cast<int>(findings.size()) - errors();
}

CheckReport CheckSlurmConf(const SlurmConf& conf, const CheckOptions& options) {
  CheckReport report;
  report.findings = conf.diagnostics;
  Checker c(conf, &report);
  const Params& p = conf.params;

  // PriorityType.
  std::string type = conf.priority_type;
  if (type.empty()) {
    c.Add(Severity::kWarning, "PriorityType",
          "not set: Slurm uses priority/basic (FIFO), which ignores every priority setting",
          "set PriorityType=priority/fairway");
  } else if (type != "priority/fairway" && type != "priority/multifactor") {
    c.Add(Severity::kWarning, "PriorityType",
          "'" + type + "' is neither priority/fairway nor priority/multifactor; the weights "
          "and fairshare settings below have no effect");
  } else if (type == "priority/multifactor" && p.mode_override) {
    c.Add(Severity::kWarning, "PriorityParameters",
          "priority/multifactor ignores PriorityParameters: fairshare=" +
              std::string(FairshareModeName(*p.mode_override)) + " needs PriorityType=priority/fairway");
  }

  // Overflow of the weighted sum. Slurm itself only logs it (read_config.c,
  // integer weights only); both plugins clamp each priority to 2^32 - 1.
  double tres_max = 0;
  for (const TresWeight& w : conf.tres_weights) tres_max += w.weight > 0 ? w.weight : 0;
  const double max_sum = static_cast<double>(p.WeightSum()) + tres_max;
  if (max_sum > static_cast<double>(kMaxPriority64)) {
    c.AddOutcome(Severity::kError, "PriorityWeight*",
                 "the weights sum to " + Num(max_sum) + " (integer weights " +
                     std::to_string(p.WeightSum()) + " + TRES weights " + Num(tres_max) +
                     "), above 4294967295: the highest priorities are clamped and lose their order",
                 {true, "clamps each priority above 4294967295 to 4294967295, logging "
                        "'exceeds 32 bits' per job"},
                 {true, "logs \"the sum of the PriorityWeight* values ... exceeds 2^32 - 1\" "
                        "and clamps each priority above 4294967295"},
                 "lower the weights");
  }
  if (p.flags & kFlagNoNormalAll) {
    std::string which;
    if (p.flags & kFlagNoNormalAssoc) which += " NO_NORMAL_ASSOC";
    if (p.flags & kFlagNoNormalPart) which += " NO_NORMAL_PART";
    if (p.flags & kFlagNoNormalQos) which += " NO_NORMAL_QOS";
    if (p.flags & kFlagNoNormalTres) which += " NO_NORMAL_TRES";
    c.Add(Severity::kWarning, "PriorityFlags",
          "with" + which + " the factors are not normalised to [0, 1], so the weighted sum "
          "has no upper bound and can exceed 4294967295");
  }

  // Resolution of each weight.
  struct NamedWeight { const char* name; uint32_t weight; };
  const NamedWeight weights[] = {
      {"PriorityWeightAge", p.weight_age},         {"PriorityWeightAssoc", p.weight_assoc},
      {"PriorityWeightFairshare", p.weight_fairshare}, {"PriorityWeightJobSize", p.weight_job_size},
      {"PriorityWeightPartition", p.weight_partition}, {"PriorityWeightQOS", p.weight_qos}};
  for (const NamedWeight& w : weights) {
    if (w.weight == 0) continue;
    c.Info(w.name, "resolution 1/" + std::to_string(w.weight) + " = " + Num(1.0 / w.weight) +
                       ": factor values closer than that can get the same priority");
    if (std::string(w.name) == "PriorityWeightFairshare") continue;
    if (w.weight < 1000) {
      c.Add(Severity::kWarning, w.name,
            std::to_string(w.weight) + " cannot distinguish factor values closer than 1/" +
                std::to_string(w.weight) + " (truncated to whole priority points)",
            "use at least 1000");
    }
  }
  if (p.weight_fairshare == 0) {
    if (p.mode_override) {
      c.Add(Severity::kWarning, "PriorityWeightFairshare",
            "is 0, so PriorityParameters=fairshare=" +
                std::string(FairshareModeName(*p.mode_override)) + " has no effect on priorities");
    }
  } else if (options.user_assocs && p.weight_fairshare < *options.user_assocs) {
    c.Add(Severity::kWarning, "PriorityWeightFairshare",
          std::to_string(p.weight_fairshare) + " is below the number of user associations (" +
              std::to_string(*options.user_assocs) +
              "): their fairshare factors cannot all get distinct priorities",
          "use a weight well above the number of users");
  } else if (!options.user_assocs && p.weight_fairshare < 1000) {
    c.Add(Severity::kWarning, "PriorityWeightFairshare",
          std::to_string(p.weight_fairshare) + " cannot distinguish fairshare factors closer than 1/" +
              std::to_string(p.weight_fairshare),
          "use at least 1000 (or more than the number of users)");
  }
  if (p.weight_job_size > 0 && conf.node_count > 1 && p.weight_job_size < conf.node_count) {
    c.Add(Severity::kWarning, "PriorityWeightJobSize",
          std::to_string(p.weight_job_size) + " is below the node count (" +
              std::to_string(conf.node_count) +
              "): jobs differing by one node can get the same job-size priority");
  }

  // Decay and reset (read_config.c): half-life 0 needs a
  // PriorityUsageResetPeriod line, whatever its value; with NONE written out
  // both plugins start and usage only ever grows.
  const bool half_life_ok = !c.Refused("PriorityDecayHalfLife");
  if (half_life_ok && p.decay_half_life_s == 0 && !conf.Has("PriorityUsageResetPeriod")) {
    const PluginOutcome refused{
        false, "slurmctld exits at start: 'You have to either have PriorityDecayHalfLife != 0 or "
               "PriorityUsageResetPeriod set to something or the priority plugin will result in "
               "rolling over.'"};
    c.AddOutcome(Severity::kError, "PriorityDecayHalfLife",
                 "is 0 (no decay) and PriorityUsageResetPeriod is not set", refused, refused,
                 "set a half-life, or write PriorityUsageResetPeriod (NONE to keep usage for ever)");
  } else if (half_life_ok && p.decay_half_life_s == 0 && p.reset_period == ResetPeriod::kNone) {
    const PluginOutcome grows{true, "usage is never decayed nor reset: it only grows"};
    c.AddOutcome(Severity::kWarning, "PriorityDecayHalfLife",
                 "is 0 (no decay) and PriorityUsageResetPeriod=NONE: usage only ever grows, so "
                 "old usage weighs as much as new",
                 grows, grows);
  } else if (p.decay_half_life_s > 0) {
    int64_t period = ResetPeriodSeconds(p.reset_period);
    if (period > 0 && period < 3 * p.decay_half_life_s) {
      c.Add(Severity::kWarning, "PriorityUsageResetPeriod",
            std::string(ResetPeriodName(p.reset_period)) + " (about " + FormatSeconds(period) +
                ") is shorter than or comparable to PriorityDecayHalfLife (" +
                FormatSeconds(p.decay_half_life_s) +
                "): usage is wiped before decay has any effect, the two fight",
            "use either decay or a reset period much longer than the half-life");
    }
  }
  if (p.reset_period == ResetPeriod::kNow) {
    c.Add(Severity::kWarning, "PriorityUsageResetPeriod",
          "NOW clears all usage at every slurmctld start");
  }
  if (conf.Has("PriorityMaxAge") && !c.Refused("PriorityMaxAge") && p.max_age_s == 0 &&
      p.weight_age > 0) {
    const PluginOutcome full{true, "the age factor is 1 (full PriorityWeightAge) from "
                                   "the moment a job may accrue age"};
    c.AddOutcome(Severity::kWarning, "PriorityMaxAge",
                 "is 0: every eligible job gets the whole age weight at once, so age no longer "
                 "orders jobs",
                 full, full);
  }

  if (p.damp_factor == 0) {
    const bool used = p.Mode() != FairshareMode::kFairTree;
    c.AddOutcome(used ? Severity::kError : Severity::kWarning, "FairShareDampeningFactor",
                 std::string("0 divides by zero in the fairshare formula 2^(-U/S/d)") +
                     (used ? "" : "; the fairshare mode in force (fair_tree) does not use it"),
                 {true, "unused under Fair Tree (the default); under NO_FAIR_TREE or "
                        "DEPTH_OBLIVIOUS its 2^(-U/S/d) divides by zero "
                        "(slurm-22-05-8-1:src/plugins/priority/multifactor/"
                        "priority_multifactor.c, priority_p_calc_fs_factor)"},
                 {true, "logs \"FairShareDampeningFactor: 0 would divide by zero (using 1)\" "
                        "and uses 1"},
                 "use 1 (no dampening) or more");
  }

  if (p.planned_use_capacity > 0 && conf.cpu_count > 0 && p.Mode() == FairshareMode::kPlannedUse &&
      p.planned_use_capacity > static_cast<double>(conf.cpu_count) * 1000) {
    c.Add(Severity::kWarning, "PriorityParameters",
          "planned_use_capacity=" + Num(p.planned_use_capacity) +
              " is more than 1000 billing units per CPU of the " +
              std::to_string(conf.cpu_count) + " CPUs on NodeName lines");
  }
  if (conf.node_count > 0) {
    c.Info("NodeName", std::to_string(conf.node_count) + " nodes, " +
                           std::to_string(conf.cpu_count) + " CPUs");
  }

  // Ranged tree precision: each level halves the slice (at least).
  if (options.tree_depth) {
    int depth = *options.tree_depth;
    if (p.weight_fairshare > 0) {
      int limit = static_cast<int>(std::floor(std::log2(static_cast<double>(p.weight_fairshare))));
      c.Info("PriorityWeightFairshare",
             "ranged tree: with slices halving at each level, siblings are separated down to "
             "depth " + std::to_string(limit) + " (2^-depth * " +
                 std::to_string(p.weight_fairshare) + " >= 1); the tree is " +
                 std::to_string(depth) + " deep");
      if (depth > limit) {
        c.Add(Severity::kWarning, "PriorityWeightFairshare",
              "ranged tree: at depth " + std::to_string(depth) + " a slice can be 2^-" +
                  std::to_string(depth) + " wide, and 2^-" + std::to_string(depth) + " * " +
                  std::to_string(p.weight_fairshare) +
                  " < 1: siblings there may get the same priority (separation ends at depth " +
                  std::to_string(limit) + ")",
              "raise PriorityWeightFairshare to at least 2^" + std::to_string(depth));
      }
    }
    if (depth > 52) {
      c.Add(Severity::kWarning, "PriorityParameters",
            "ranged tree: depth " + std::to_string(depth) +
                " exceeds double precision (52 halvings): sibling factors collapse");
    }
  }

  // fairshare_clusters: names slurmdbd does not know count nothing.
  if (!p.fairshare_clusters.empty()) {
    if (options.known_clusters) {
      for (const Params::RemoteCluster& r : p.fairshare_clusters) {
        const auto& known = *options.known_clusters;
        if (std::find(known.begin(), known.end(), r.name) == known.end()) {
          c.Add(Severity::kWarning, "PriorityParameters",
                "fairshare_clusters: slurmdbd knows no cluster '" + r.name +
                    "' (sacctmgr show clusters): it adds no usage",
                "check the name");
        }
      }
    } else {
      report.info.push_back({"PriorityParameters",
                             "fairshare_clusters: the names were not checked against slurmdbd (" +
                                 options.clusters_not_checked + ")"});
    }
  }

  // Severity follows the PriorityType in force: a value its controller
  // refuses is an error; one only the other plugin refuses, or that only
  // the other plugin reads, is not this site's problem.
  const bool is_fairway = type == "priority/fairway";
  const bool is_multifactor = type == "priority/multifactor";
  for (ConfDiagnostic& d : report.findings) {
    if (!d.multifactor || !d.fairway) continue;
    bool refused = is_fairway ? !d.fairway->starts
                   : is_multifactor ? !d.multifactor->starts
                                    : !d.fairway->starts && !d.multifactor->starts;
    if (refused) {
      d.diagnostic.severity = Severity::kError;
      d.diagnostic.fallback = "slurmctld refuses to start";
    } else if (is_multifactor && d.diagnostic.setting == "PriorityParameters") {
      d.diagnostic.severity = Severity::kWarning;
      d.diagnostic.fallback = "priority/multifactor ignores PriorityParameters";
    } else if (!is_fairway && !is_multifactor && !d.multifactor->starts) {
      d.diagnostic.severity = Severity::kWarning;  // e.g. TRES weights under priority/basic
    }
  }
  return report;
}

ControllerClaims ClaimsOf(const CheckReport& report, const SlurmConf& conf) {
  ControllerClaims claims;
  for (const ConfDiagnostic& d : report.findings) {
    if (d.multifactor && !d.multifactor->starts) claims.multifactor_starts = false;
    if (d.fairway && !d.fairway->starts) claims.fairway_starts = false;
  }
  const Params& p = conf.params;
  claims.max_age_s = p.max_age_s;
  claims.decay_half_life_s = p.decay_half_life_s;
  claims.calc_period_s = p.calc_period_s;
  if (conf.priority_weight_tres.empty()) {
    claims.tres_factors = "none";
  } else {
    claims.tres_factors = conf.tres_weights_usable ? "on" : "off";
  }
  return claims;
}

namespace {

struct CheckConfigArgs {
  std::string path;
  std::string tree;
  int max_depth = -1;
  bool parsable = false;
  bool long_format = false;
  bool json = false;
  std::string slurm_version;       // --slurm-version as given
  uint32_t built_slurm_version = kSlurm2205;
  bool no_slurmdbd = false;        // --no-slurmdbd
  ClusterLister list_clusters;
};

const char* SeverityName(Severity s) { return s == Severity::kError ? "error" : "warning"; }

std::string OutcomeText(const std::optional<PluginOutcome>& o) {
  if (!o) return "";
  return (o->starts ? "starts: " : "REFUSES TO START: ") + o->does;
}

int RunCheckConfig(const CheckConfigArgs& args) {
  std::string path = args.path;
  if (path.empty()) {
    const char* env = std::getenv("SLURM_CONF");
    path = env && *env ? env : "/etc/slurm/slurm.conf";
  }
  uint32_t version = args.built_slurm_version;
  if (!args.slurm_version.empty()) {
    std::optional<uint32_t> v = ParseSlurmRelease(args.slurm_version);
    if (!v) {
      std::fprintf(stderr,
                   "fairway check-config: --slurm-version '%s' is not a release such as 24.11 "
                   "or 25.05.8 (22.05 to 26.05)\n",
                   args.slurm_version.c_str());
      return 2;
    }
    version = *v;
  }
  SlurmConf conf;
  std::string error;
  if (!ReadSlurmConfFile(path, &conf, &error, version)) {
    std::fprintf(stderr, "fairway check-config: %s\n", error.c_str());
    return 2;
  }
  CheckOptions options;
  if (!args.tree.empty()) {
    std::vector<AssocNode> nodes;
    AssocTree tree;
    if (!ReadTreeCsvFile(args.tree, &nodes, &error) || !tree.Build(std::move(nodes), true, &error)) {
      std::fprintf(stderr, "fairway check-config: %s\n", error.c_str());
      return 2;
    }
    int max_depth = 0;
    for (int32_t i = 0; i < static_cast<int32_t>(tree.size()); ++i) {
      int d = 0;
      for (int32_t a = tree.links(i).parent; a >= 0; a = tree.links(a).parent) ++d;
      max_depth = std::max(max_depth, d);
    }
    options.tree_depth = max_depth;
    options.user_assocs = tree.user_assoc_count();
  }
  if (args.max_depth >= 0) options.tree_depth = args.max_depth;
  if (!conf.params.fairshare_clusters.empty()) {
    std::vector<std::string> names;
    std::string why = args.no_slurmdbd ? "--no-slurmdbd" : "this build cannot ask slurmdbd";
    // libslurm reads $SLURM_CONF (or /etc/slurm/slurm.conf) and exits on
    // one it cannot use: asked only when that is the file checked.
    const char* env = std::getenv("SLURM_CONF");
    const std::string in_use = env && *env ? env : "/etc/slurm/slurm.conf";
    std::error_code ec;  // a path that does not exist is not the same file
    const bool same = std::filesystem::equivalent(path, in_use, ec);
    if (!args.no_slurmdbd && !same) why = "the file checked is not the slurm.conf in use, " + in_use;
    if (!args.no_slurmdbd && same && args.list_clusters && args.list_clusters(&names, &why)) {
      for (std::string& n : names) n = ToLower(n);
      options.known_clusters = names;
    } else {
      options.clusters_not_checked = why;
    }
  }
  CheckReport report = CheckSlurmConf(conf, options);
  const Params& p = conf.params;

  if (args.json) {
    nlohmann::json j;
    j["file"] = path;
    j["errors"] = report.errors();
    j["warnings"] = report.warnings();
    j["findings"] = nlohmann::json::array();
    for (const ConfDiagnostic& d : report.findings) {
      nlohmann::json f = {{"severity", SeverityName(d.diagnostic.severity)},
                          {"line", d.line},
                          {"setting", d.diagnostic.setting},
                          {"value", d.diagnostic.value},
                          {"message", d.diagnostic.message},
                          {"fallback", d.diagnostic.fallback},
                          {"text", d.diagnostic.Format()}};
      if (d.multifactor) {
        f["priority/multifactor"] = {{"starts", d.multifactor->starts}, {"does", d.multifactor->does}};
      }
      if (d.fairway) {
        f["priority/fairway"] = {{"starts", d.fairway->starts}, {"does", d.fairway->does}};
      }
      j["findings"].push_back(f);
    }
    const ControllerClaims claims = ClaimsOf(report, conf);
    j["controllers"] = {
        {"priority/multifactor", {{"starts", claims.multifactor_starts}}},
        {"priority/fairway",
         {{"starts", claims.fairway_starts},
          {"tres_factors", claims.tres_factors},
          {"mode", FairshareModeName(p.Mode())}}},
        {"scontrol_show_config",
         {{"PriorityMaxAge", SlurmTimeString(static_cast<uint32_t>(claims.max_age_s))},
          {"PriorityDecayHalfLife", SlurmTimeString(static_cast<uint32_t>(claims.decay_half_life_s))},
          {"PriorityCalcPeriod", SlurmTimeString(static_cast<uint32_t>(claims.calc_period_s))},
          {"PriorityFlags", SlurmPriorityFlagsString(p.flags, conf.slurm_version)},
          {"PriorityWeightAge", std::to_string(p.weight_age)},
          {"PriorityWeightAssoc", std::to_string(p.weight_assoc)},
          {"PriorityWeightFairshare", std::to_string(p.weight_fairshare)},
          {"PriorityWeightJobSize", std::to_string(p.weight_job_size)},
          {"PriorityWeightPartition", std::to_string(p.weight_partition)},
          {"PriorityWeightQOS", std::to_string(p.weight_qos)}}}};
    j["info"] = nlohmann::json::array();
    for (const CheckInfo& i : report.info) j["info"].push_back({{"setting", i.setting}, {"text", i.text}});
    j["notes"] = conf.notes;
    j["effective"] = {{"mode", FairshareModeName(p.Mode())},
                      {"weight_sum", p.WeightSum()},
                      {"decay_half_life_s", p.decay_half_life_s},
                      {"max_age_s", p.max_age_s},
                      {"calc_period_s", p.calc_period_s},
                      {"damp_factor", p.damp_factor},
                      {"flags", p.flags},
                      {"nodes", conf.node_count},
                      {"cpus", conf.cpu_count}};
    std::printf("%s\n", j.dump(2).c_str());
  } else if (args.parsable) {
    std::printf("Severity|Line|Setting|Value|Message|Fallback|Multifactor|Fairway\n");
    for (const ConfDiagnostic& d : report.findings) {
      std::printf("%s|%d|%s|%s|%s|%s|%s|%s\n", SeverityName(d.diagnostic.severity), d.line,
                  d.diagnostic.setting.c_str(), d.diagnostic.value.c_str(),
                  d.diagnostic.message.c_str(), d.diagnostic.fallback.c_str(),
                  OutcomeText(d.multifactor).c_str(), OutcomeText(d.fairway).c_str());
    }
    if (args.long_format) {
      for (const CheckInfo& i : report.info) std::printf("info|0|%s||%s|\n", i.setting.c_str(), i.text.c_str());
    }
  } else {
    if (args.long_format) {
      std::printf("Effective priority settings of %s:\n", path.c_str());
      std::printf("  PriorityType            %s\n", conf.priority_type.empty() ? "(unset: priority/basic)" : conf.priority_type.c_str());
      std::printf("  fairshare mode          %s\n", FairshareModeName(p.Mode()));
      std::printf("  weights                 age %u, assoc %u, fairshare %u, jobsize %u, partition %u, qos %u\n",
                  p.weight_age, p.weight_assoc, p.weight_fairshare, p.weight_job_size,
                  p.weight_partition, p.weight_qos);
      for (const TresWeight& w : conf.tres_weights) {
        std::printf("  TRES weight             %s = %.10g\n", w.name.c_str(), w.weight);
      }
      if (!conf.tres_weights_usable) {
        std::printf("  TRES weights            none usable: multifactor exits, Fairway runs without TRES factors\n");
      }
      std::printf("  PriorityDecayHalfLife   %" PRId64 " s (%s)\n", p.decay_half_life_s,
                  SlurmTimeString(static_cast<uint32_t>(p.decay_half_life_s)).c_str());
      std::printf("  PriorityMaxAge          %" PRId64 " s (%s)\n", p.max_age_s,
                  SlurmTimeString(static_cast<uint32_t>(p.max_age_s)).c_str());
      std::printf("  PriorityCalcPeriod      %" PRId64 " s (%s)\n", p.calc_period_s,
                  SlurmTimeString(static_cast<uint32_t>(p.calc_period_s)).c_str());
      std::printf("  UsageResetPeriod        %s\n", ResetPeriodName(p.reset_period));
      std::printf("  FairShareDampening      %u\n", p.damp_factor);
      std::printf("  nodes / CPUs            %" PRIu64 " / %" PRIu64 "\n", conf.node_count, conf.cpu_count);
      for (const CheckInfo& i : report.info) std::printf("info: %s: %s\n", i.setting.c_str(), i.text.c_str());
      for (const std::string& n : conf.notes) std::printf("note: %s\n", n.c_str());
      std::printf("\n");
    } else {
      for (const std::string& n : conf.notes) std::printf("%s: note: %s\n", path.c_str(), n.c_str());
    }
    for (const ConfDiagnostic& d : report.findings) {
      std::string where = d.line > 0 ? path + ":" + std::to_string(d.line) : path;
      std::printf("%s: %s: %s\n", where.c_str(), SeverityName(d.diagnostic.severity),
                  d.diagnostic.Format().c_str());
      if (d.multifactor) std::printf("    priority/multifactor: %s\n", OutcomeText(d.multifactor).c_str());
      if (d.fairway) std::printf("    priority/fairway:     %s\n", OutcomeText(d.fairway).c_str());
    }
    std::printf("%s: %d error%s, %d warning%s\n", path.c_str(), report.errors(),
                report.errors() == 1 ? "" : "s", report.warnings(), report.warnings() == 1 ? "" : "s");
  }
  return report.errors() > 0 ? 1 : 0;
}

}  // namespace

void RegisterCheckConfigCommand(CLI::App& app, uint32_t built_slurm_version,
                                ClusterLister list_clusters) {
  auto args = std::make_shared<CheckConfigArgs>();
  args->built_slurm_version = built_slurm_version;
  args->list_clusters = std::move(list_clusters);
  CLI::App* sub = app.add_subcommand(
      "check-config",
      "Check the priority settings of a slurm.conf (default $SLURM_CONF or "
      "/etc/slurm/slurm.conf). Exit 0: no errors, 1: errors, 2: usage error.");
  sub->add_option("slurm.conf", args->path, "slurm.conf to check");
  sub->add_option("--tree", args->tree,
                  "association tree CSV (id,parent,account,user,shares,usage): user count and depth");
  sub->add_option("--max-depth", args->max_depth, "deepest association level, for the ranged-tree check")
      ->check(CLI::Range(0, 1000));
  sub->add_flag("-P,--parsable", args->parsable, "'|'-separated output");
  sub->add_flag("-l,--long", args->long_format, "also show the effective settings and informational notes");
  sub->add_flag("--json", args->json, "JSON output");
  sub->add_flag("--no-slurmdbd", args->no_slurmdbd,
                "do not ask slurmdbd whether fairshare_clusters' names exist");
  sub->add_option("--slurm-version", args->slurm_version,
                  "read slurm.conf as this Slurm release does (e.g. 25.05; default " +
                      SlurmReleaseName(built_slurm_version) +
                      ", the release this tool was built for): PriorityFlags differ by release");
  sub->callback([args]() {
    int rc = RunCheckConfig(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
