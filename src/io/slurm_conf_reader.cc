// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_conf_reader.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "../text_util.h"
#include "../tres_weight.h"
#include "slurm_conf_values.h"

namespace fairway {

namespace {

// The priority settings this reader knows, by lower-case key.
const std::map<std::string, std::string>& KnownSettings() {
  static const std::map<std::string, std::string> known = {
      {"priorityweightage", "PriorityWeightAge"},
      {"priorityweightassoc", "PriorityWeightAssoc"},
      {"priorityweightfairshare", "PriorityWeightFairshare"},
      {"priorityweightjobsize", "PriorityWeightJobSize"},
      {"priorityweightpartition", "PriorityWeightPartition"},
      {"priorityweightqos", "PriorityWeightQOS"},
      {"priorityweighttres", "PriorityWeightTRES"},
      {"priorityflags", "PriorityFlags"},
      {"prioritydecayhalflife", "PriorityDecayHalfLife"},
      {"prioritymaxage", "PriorityMaxAge"},
      {"prioritycalcperiod", "PriorityCalcPeriod"},
      {"priorityusageresetperiod", "PriorityUsageResetPeriod"},
      {"priorityfavorsmall", "PriorityFavorSmall"},
      {"fairsharedampeningfactor", "FairShareDampeningFactor"},
      {"priorityparameters", "PriorityParameters"},
      {"prioritytype", "PriorityType"},
  };
  return known;
}

// A time as written, for messages.
std::string ExactText(int64_t seconds) {
  return seconds == kSlurmTimeHuge ? std::string("more than 10^12 s")
                                   : std::to_string(seconds) + " s";
}

std::string ToUpper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class Reader {
 public:
  explicit Reader(SlurmConf* conf) : conf_(conf) {}

  // A diagnostic of line `line` naming the setting and its value.
  static ConfDiagnostic Make(int line, Severity severity, const std::string& setting,
                             const std::string& value, const std::string& message) {
    ConfDiagnostic d;
    d.line = line;
    d.diagnostic.severity = severity;
    d.diagnostic.setting = setting;
    d.diagnostic.value = value;
    d.diagnostic.message = message;
    return d;
  }

  void Add(int line, Severity severity, const std::string& setting, const std::string& value,
           const std::string& message, const std::string& fallback) {
    ConfDiagnostic d = Make(line, severity, setting, value, message);
    d.diagnostic.fallback = fallback;
    conf_->diagnostics.push_back(d);
  }

  // A value Slurm's own slurm.conf reader rejects: slurmctld exits before
  // any priority plugin is loaded, whichever PriorityType is set.
  void Refuse(int line, const std::string& setting, const std::string& value,
              const std::string& message, const std::string& slurm_says) {
    ConfDiagnostic d = Make(line, Severity::kError, setting, value, message);
    d.diagnostic.fallback = "slurmctld refuses to start";
    PluginOutcome refused{false, "slurmctld exits at start: " + slurm_says +
                                     ", then 'fatal: Unable to process configuration file'"};
    d.multifactor = refused;
    d.fairway = refused;
    conf_->diagnostics.push_back(d);
  }

  // A value both plugins run with, and what they then do.
  void BothStart(int line, Severity severity, const std::string& setting,
                 const std::string& value, const std::string& message,
                 const std::string& multifactor_does, const std::string& fairway_does) {
    ConfDiagnostic d = Make(line, severity, setting, value, message);
    d.multifactor = PluginOutcome{true, multifactor_does};
    d.fairway = PluginOutcome{true, fairway_does};
    conf_->diagnostics.push_back(d);
  }

  void Weight(int line, const std::string& name, const std::string& value, uint32_t* out) {
    std::string why;
    std::optional<uint32_t> v = SlurmUint32(value, &why);
    if (!v) {
      Refuse(line, name, value, "'" + value + "' " + why,
             "'" + name + " value (" + value + ") " + why + "'");
      return;
    }
    *out = *v;
    if (!IsPlainDecimal(value)) {
      const std::string read = std::to_string(*v);
      BothStart(line, Severity::kWarning, name, value,
                "Slurm reads '" + value + "' as " + read +
                    " (strtoul base 0: a leading 0 is octal, 0x hex, K multiplies by 1024, "
                    "INFINITE is 4294967295)",
                "uses " + read, "uses " + read);
    }
  }

  void Time(int line, const std::string& name, const std::string& value, SlurmTimeKind kind,
            int64_t* out) {
    SlurmTimeSetting t = ReadSlurmTimeSetting(value, kind);
    if (!t.accepted) {
      std::string why = "'" + value + "' is not a Slurm time (minutes, or days-hh:mm:ss)";
      if (t.exact_seconds >= 0 && kind == SlurmTimeKind::kCalcPeriod &&
          t.exact_seconds < 60) {
        why = "'" + value + "' is less than 1 minute";
      } else if (t.exact_seconds >= 0) {
        why = "'" + value + "' is " + ExactText(t.exact_seconds) +
              ": Slurm's time parser computes in 32 bits and gets a negative number";
      } else if (t.exact_seconds < -1) {
        why = "'" + value + "' is negative";
      } else if (kind == SlurmTimeKind::kCalcPeriod &&
                 SlurmTimeStrToMins(value) == kSlurmTimeInfinite) {
        why = "'" + value + "' (INFINITE) is not allowed for " + name;
      }
      Refuse(line, name, value, why, "'Bad value \"" + value + "\" for " + name + "'");
      return;
    }
    *out = t.seconds;
    const std::string held = std::to_string(t.seconds) + " s (" + SlurmTimeString(t.seconds) + ")";
    if (t.infinite) {
      BothStart(line, Severity::kWarning, name, value,
                "INFINITE is not 'no limit' here: Slurm stores -1 minutes * 60, which is " + held,
                "uses " + held, "uses " + held);
    } else if (t.wrapped) {
      BothStart(line, Severity::kError, name, value,
                "'" + value + "' is " + ExactText(t.exact_seconds) +
                    ", beyond Slurm's 32-bit time parser: slurmctld holds " + held,
                "uses " + held, "uses " + held);
    } else if (t.rounded) {
      BothStart(line, Severity::kWarning, name, value,
                "Slurm rounds '" + value + "' up to whole minutes: " + held, "uses " + held,
                "uses " + held);
    }
  }

  void Flags(int line, const std::string& value) {
    // read_config.c looks for each flag name anywhere in the text
    // (xstrcasestr), so separators and unknown words do not matter, and a
    // word that contains a flag name sets that flag. From 25.05 a text
    // with MAX_TRES_GRES sets that flag and not MAX_TRES; before, Slurm
    // finds MAX_TRES in it (slurm-25-05-8-1:src/common/read_config.c).
    const bool knows_gres = conf_->slurm_version >= SlurmVersionNum(25, 5, 0);
    // read_config.c's flag names, in its order, the bit each sets and the
    // bit it clears: DEPTH_OBLIVIOUS and NO_FAIR_TREE turn Fair Tree off,
    // and MAX_TRES_GRES (25.05 on, last), which contains MAX_TRES, sets
    // that flag alone.
    struct FlagName {
      const char* name;
      uint32_t sets, clears;
    };
    std::vector<FlagName> names = {{"accrue_always", kFlagAccrueAlways, 0},
                                   {"small_relative_to_time", kFlagSizeRelative, 0},
                                   {"calculate_running", kFlagCalculateRunning, 0},
                                   {"depth_oblivious", kFlagDepthOblivious, kFlagFairTree},
                                   {"no_fair_tree", 0, kFlagFairTree},
                                   {"incr_only", kFlagIncrOnly, 0},
                                   {"max_tres", kFlagMaxTres, 0},
                                   {"no_normal_all", kFlagNoNormalAll, 0},
                                   {"no_normal_assoc", kFlagNoNormalAssoc, 0},
                                   {"no_normal_part", kFlagNoNormalPart, 0},
                                   {"no_normal_qos", kFlagNoNormalQos, 0},
                                   {"no_normal_tres", kFlagNoNormalTres, 0}};
    if (knows_gres) names.push_back({"max_tres_gres", kFlagMaxTresGres, kFlagMaxTres});
    const std::string all = ToLower(value);
    uint32_t flags = kFlagFairTree;
    for (const FlagName& f : names) {
      if (all.find(f.name) != std::string::npos) flags = (flags | f.sets) & ~f.clears;
    }
    conf_->params.flags = flags;

    std::string known;
    for (const FlagName& f : names) known += (known.empty() ? "" : ", ") + ToUpper(f.name);
    const std::string release = SlurmReleaseName(conf_->slurm_version);
    for (const std::string& raw : Split(value, ',')) {
      const std::string word = Trim(raw);
      const std::string token = ToLower(word);
      if (token.empty()) continue;
      bool exact = false;
      std::string contained;
      const bool gres_word = token.find("max_tres_gres") != std::string::npos;
      for (const FlagName& f : names) {
        const char* n = f.name;
        // From 25.05 MAX_TRES_GRES in a word hides the MAX_TRES in it.
        if (knows_gres && gres_word && std::string_view(n) == "max_tres") continue;
        if (token == n) exact = true;
        else if (token.find(n) != std::string::npos) contained += (contained.empty() ? "" : ", ") + ToUpper(n);
      }
      if (exact && knows_gres && token == "max_tres" && (flags & kFlagMaxTresGres)) {
        BothStart(line, Severity::kWarning, "PriorityFlags", word,
                  "Slurm " + release + " sets MAX_TRES_GRES and not MAX_TRES when the text "
                  "holds both; billing sums each node's GRES instead of taking their MAX",
                  "runs with MAX_TRES_GRES", "runs with MAX_TRES_GRES");
        continue;
      }
      if (exact) continue;
      if (!contained.empty()) {
        const std::string why = gres_word && !knows_gres
                                    ? " (MAX_TRES_GRES is a flag from Slurm 25.05; Slurm " +
                                          release + " finds MAX_TRES in it)"
                                    : "";
        BothStart(line, Severity::kWarning, "PriorityFlags", word,
                  "'" + word + "' is not a flag name in Slurm " + release +
                      ", but Slurm finds flag names anywhere in the text and sets " + contained +
                      why,
                  "runs with " + contained, "runs with " + contained);
      } else if (token == "fair_tree") {
        BothStart(line, Severity::kWarning, "PriorityFlags", word,
                  "'" + word + "' is not a flag in Slurm " + release +
                      " (Fair Tree is the default); Slurm ignores it",
                  "ignores it", "ignores it");
      } else {
        BothStart(line, Severity::kWarning, "PriorityFlags", word,
                  "unknown flag '" + word + "': Slurm " + release +
                      " ignores it without a word; known: " + known,
                  "ignores it", "ignores it");
      }
    }
  }

  void Setting(int line, const std::string& key, const std::string& value) {
    if (ToLower(key) == "accountingstoragetres") {
      accounting_storage_tres_ = value;
      return;
    }
    if (ToLower(key) == "clustername") {
      conf_->cluster_name = value;  // slurmdbd's table prefix (fairway report)
      return;
    }
    auto it = KnownSettings().find(ToLower(key));
    if (it == KnownSettings().end()) return;  // not a priority setting
    const std::string& name = it->second;
    auto seen = conf_->settings.find(name);
    if (seen != conf_->settings.end()) {
      Add(line, Severity::kWarning, name, value,
          "set again (first on line " + std::to_string(seen->second.second) + ")",
          "the last value is used");
    }
    conf_->settings[name] = {value, line};
    Params& p = conf_->params;
    if (name == "PriorityWeightAge") Weight(line, name, value, &p.weight_age);
    else if (name == "PriorityWeightAssoc") Weight(line, name, value, &p.weight_assoc);
    else if (name == "PriorityWeightFairshare") Weight(line, name, value, &p.weight_fairshare);
    else if (name == "PriorityWeightJobSize") Weight(line, name, value, &p.weight_job_size);
    else if (name == "PriorityWeightPartition") Weight(line, name, value, &p.weight_partition);
    else if (name == "PriorityWeightQOS") Weight(line, name, value, &p.weight_qos);
    else if (name == "PriorityWeightTRES") {
      conf_->priority_weight_tres = value;
      tres_line_ = line;
    } else if (name == "PriorityFlags") {
      Flags(line, value);
    } else if (name == "PriorityDecayHalfLife") {
      Time(line, name, value, SlurmTimeKind::kHalfLifeOrMaxAge, &p.decay_half_life_s);
    } else if (name == "PriorityMaxAge") {
      Time(line, name, value, SlurmTimeKind::kHalfLifeOrMaxAge, &p.max_age_s);
    } else if (name == "PriorityCalcPeriod") {
      Time(line, name, value, SlurmTimeKind::kCalcPeriod, &p.calc_period_s);
    } else if (name == "PriorityUsageResetPeriod") {
      static const std::map<std::string, ResetPeriod> periods = {
          {"none", ResetPeriod::kNone},       {"now", ResetPeriod::kNow},
          {"daily", ResetPeriod::kDaily},     {"weekly", ResetPeriod::kWeekly},
          {"monthly", ResetPeriod::kMonthly}, {"quarterly", ResetPeriod::kQuarterly},
          {"yearly", ResetPeriod::kYearly}};
      auto period = periods.find(ToLower(value));
      if (period == periods.end()) {
        Refuse(line, name, value,
               "'" + value + "' is not NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY",
               "'Bad value \"" + value + "\" for " + name + "'");
      } else {
        p.reset_period = period->second;
      }
    } else if (name == "PriorityFavorSmall") {
      std::optional<bool> v = SlurmBoolean(value);
      if (v) p.favor_small = *v;
      else Refuse(line, name, value, "'" + value + "' is not YES or NO",
                  "'\"" + value + "\" is not a valid option for \"" + name + "\"'");
    } else if (name == "FairShareDampeningFactor") {
      std::string why;
      std::optional<uint16_t> v = SlurmUint16(value, &why);
      if (!v) {
        Refuse(line, name, value, "'" + value + "' " + why,
               "'" + name + " value \"" + value + "\" " + why + "'");
      } else {
        p.damp_factor = *v;
        if (!IsPlainDecimal(value)) {
          BothStart(line, Severity::kWarning, name, value,
                    "Slurm reads '" + value + "' as " + std::to_string(*v),
                    "uses " + std::to_string(*v), "uses " + std::to_string(*v));
        }
      }
    } else if (name == "PriorityParameters") {
      // Parsed in Finish(): fairshare_clusters is checked against
      // ClusterName, wherever that stands in the file.
      conf_->priority_parameters = value;
      priority_parameters_line_ = line;
    } else if (name == "PriorityType") {
      conf_->priority_type = value;
    }
  }

  // After the last line: the TRES weights, which depend on
  // AccountingStorageTRES wherever it stands in the file.
  void Finish() {
    if (priority_parameters_line_) {
      for (const Diagnostic& x :
           ParsePriorityParameters(conf_->priority_parameters, &conf_->params, conf_->cluster_name)) {
        ConfDiagnostic d{x, priority_parameters_line_,
                         PluginOutcome{true, "ignores PriorityParameters entirely"},
                         PluginOutcome{true, "logs \"" + x.Format() + "\""}};
        conf_->diagnostics.push_back(d);
      }
    }
    conf_->configured_tres = DefaultTres();
    for (const std::string& raw : Split(accounting_storage_tres_, ',')) {
      std::string t = ToLower(Trim(raw));
      if (!t.empty()) conf_->configured_tres.push_back(t);
    }
    if (conf_->priority_weight_tres.empty()) return;
    Diagnostics d;
    conf_->tres_weights = ParseTresWeights(conf_->priority_weight_tres, &d, conf_->configured_tres);
    for (const Diagnostic& x : d) {
      ConfDiagnostic c{x, tres_line_, std::nullopt, std::nullopt};
      if (x.severity == Severity::kError) {
        conf_->tres_weights_usable = false;
        c.multifactor = PluginOutcome{
            false, "slurmctld exits when the plugin loads: 'fatal: failed to parse tres weights "
                   "str'"};
        c.fairway = PluginOutcome{
            true, "runs with every TRES factor off: logs \"PriorityWeightTRES: cannot use ... "
                  "(TRES factors disabled)\""};
      } else {
        c.multifactor = PluginOutcome{true, x.fallback};
        c.fairway = PluginOutcome{true, x.fallback};
      }
      conf_->diagnostics.push_back(c);
    }
    if (!conf_->tres_weights_usable) conf_->tres_weights.clear();
  }

  void NodeLine(int line, const std::vector<std::pair<std::string, std::string>>& pairs) {
    const std::string& names = pairs[0].second;
    std::optional<int64_t> cpus, sockets, cores, threads, boards;
    for (size_t i = 1; i < pairs.size(); ++i) {
      std::string key = ToLower(pairs[i].first);
      std::optional<int64_t> v = ParseUnsigned(pairs[i].second);
      if (key == "cpus" || key == "procs") cpus = v;
      else if (key == "sockets" || key == "socketsperboard") sockets = v;
      else if (key == "corespersocket") cores = v;
      else if (key == "threadspercore") threads = v;
      else if (key == "boards") boards = v;
    }
    int64_t per_node = 0;
    if (cpus) {
      per_node = *cpus;
    } else {
      per_node = boards.value_or(1) * sockets.value_or(1) * cores.value_or(1) * threads.value_or(1);
    }
    if (ToLower(names) == "default") {
      default_cpus_ = per_node;
      default_has_cpus_ = cpus || sockets || cores || threads || boards;
      return;
    }
    if (!(cpus || sockets || cores || threads || boards) && default_has_cpus_) per_node = default_cpus_;
    std::optional<uint64_t> n = CountHostList(names);
    if (!n) {
      Add(line, Severity::kWarning, "NodeName", names, "cannot expand host list '" + names + "'",
          "these nodes are not counted");
      return;
    }
    conf_->node_count += *n;
    conf_->cpu_count += *n * static_cast<uint64_t>(per_node);
  }

 private:
  SlurmConf* conf_;
  std::string accounting_storage_tres_;
  int tres_line_ = 0;
  int priority_parameters_line_ = 0;  // 0: no PriorityParameters line
  int64_t default_cpus_ = 1;
  bool default_has_cpus_ = false;
};

// Splits a line into whitespace-separated tokens; double quotes group.
std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> tokens;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : line) {
    if (c == '"') { quoted = !quoted; any = true; continue; }
    if (!quoted && (c == ' ' || c == '\t')) {
      if (any) tokens.push_back(cur);
      cur.clear();
      any = false;
      continue;
    }
    cur += c;
    any = true;
  }
  if (any) tokens.push_back(cur);
  return tokens;
}

}  // namespace

std::vector<std::string> DefaultTres() {
  return {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"};
}

std::vector<TresWeight> ParseTresWeights(std::string_view text, Diagnostics* diagnostics,
                                         const std::vector<std::string>& configured_tres) {
  const std::vector<std::string> configured =
      configured_tres.empty() ? DefaultTres() : configured_tres;
  std::vector<TresWeight> weights;
  auto bad = [&](const std::string& item, const std::string& why) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.setting = "PriorityWeightTRES";
    d.value = item;
    d.message = "bad item '" + item + "': " + why;
    d.fallback = "Slurm's parser drops the whole PriorityWeightTRES";
    diagnostics->push_back(d);
  };
  // _tres_weight_item (slurm-22-05-8-1:src/common/slurm_protocol_api.c):
  // items split at ',' (empty ones skipped), TYPE[/NAME] up to the first '=',
  // the weight through strtod, then an optional unit letter.
  for (const std::string& raw : Split(std::string(text), ',')) {
    std::string item = Trim(raw);
    if (item.empty()) continue;
    size_t start = item.find_first_not_of('=');
    if (start == std::string::npos) continue;
    size_t eq = item.find('=', start);
    if (eq == std::string::npos || eq + 1 == item.size()) {
      bad(item, "expected TYPE[/NAME]=WEIGHT[UNIT]");
      continue;
    }
    std::string name = ToLower(item.substr(start, eq - start));
    std::string value = item.substr(eq + 1);
    std::string type = name.substr(0, name.find('/'));
    bool known = false;
    for (const std::string& t : configured) known = known || t == name;
    if (!known) {
      std::string list;
      for (const std::string& t : configured) list += (list.empty() ? "" : ", ") + t;
      bad(item, "'" + name + "' is not a configured TRES (configured: " + list +
                    "; others need AccountingStorageTRES)");
      continue;
    }
    // Slurm accepts anything strtod accepts without ERANGE, inf and nan too.
    errno = 0;
    char* end = nullptr;
    double raw_weight = std::strtod(value.c_str(), &end);
    if (errno != 0) {
      bad(item, "'" + value + "' is out of the range of a double");
      continue;
    }
    std::string why;
    std::optional<double> w = ParseTresWeightValue(type, value, &why);
    if (!w && std::isfinite(raw_weight)) {
      bad(item, why);
      continue;
    }
    if (!w) w = raw_weight;
    if (!std::isfinite(*w) || *w < 0) {
      Diagnostic d;
      d.severity = Severity::kWarning;
      d.setting = "PriorityWeightTRES";
      d.value = item;
      d.message = "weight '" + value + "' is " +
                  (std::isnan(*w) ? std::string("not a number")
                                  : !std::isfinite(*w) ? std::string("infinite")
                                                       : std::string("negative")) +
                  ", and Slurm accepts it: jobs asking for more " + name +
                  " get a lower or undefined priority";
      d.fallback = "uses it as written";
      diagnostics->push_back(d);
    }
    weights.push_back({name, *w, item});
  }
  return weights;
}

std::optional<uint64_t> CountHostList(std::string_view hostlist) {
  // Split at commas outside brackets; each item multiplies its bracket groups.
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : hostlist) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return std::nullopt;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return std::nullopt;
  items.push_back(cur);
  uint64_t total = 0;
  for (const std::string& item : items) {
    if (Trim(item).empty()) return std::nullopt;
    uint64_t count = 1;
    size_t pos = 0;
    while ((pos = item.find('[', pos)) != std::string::npos) {
      size_t close = item.find(']', pos);
      uint64_t group = 0;
      for (const std::string& range : Split(item.substr(pos + 1, close - pos - 1), ',')) {
        size_t dash = range.find('-');
        std::optional<int64_t> lo = ParseUnsigned(range.substr(0, dash));
        std::optional<int64_t> hi =
            dash == std::string::npos ? lo : ParseUnsigned(range.substr(dash + 1));
        if (!lo || !hi || *hi < *lo) return std::nullopt;
        group += static_cast<uint64_t>(*hi - *lo + 1);
      }
      count *= group;
      pos = close + 1;
    }
    total += count;
  }
  return total;
}

std::string SlurmReleaseName(uint32_t slurm_version) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u.%02u", slurm_version >> 16, (slurm_version >> 8) & 0xff);
  return buf;
}

std::optional<uint32_t> ParseSlurmRelease(const std::string& text) {
  uint32_t part[3] = {0, 0, 0};
  int parts = 0;
  size_t i = 0;
  while (parts < 3) {
    size_t digits = 0;
    uint32_t value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 3) {
      value = value * 10 + static_cast<uint32_t>(text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || value > 255) return std::nullopt;
    part[parts++] = value;
    if (i == text.size()) break;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
  if (i != text.size() || parts < 2) return std::nullopt;
  const uint32_t v = SlurmVersionNum(part[0], part[1], part[2]);
  if (v < SlurmVersionNum(22, 5, 0) || v >= SlurmVersionNum(26, 6, 0)) return std::nullopt;
  return v;
}

SlurmConf ParseSlurmConf(std::istream& in, const std::string& source, uint32_t slurm_version) {
  SlurmConf conf;
  conf.source = source;
  conf.slurm_version = slurm_version;
  Reader reader(&conf);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string text = StripConfComment(raw);
    if (text.empty()) continue;
    std::vector<std::string> tokens = Tokens(text);
    if (tokens.empty()) continue;
    if (ToLower(tokens[0]) == "include") {
      conf.notes.push_back("line " + std::to_string(line) + ": '" + text +
                           "' ignored (included files are not read)");
      continue;
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& t : tokens) {
      size_t eq = t.find('=');
      if (eq == std::string::npos) {
        if (pairs.empty()) {
          reader.Add(line, Severity::kWarning, "slurm.conf", t,
                     "'" + t + "' is not of the form Key=Value", "ignored");
        } else {
          // A value with spaces ("PriorityParameters=a=1, b=2"): append.
          pairs.back().second += " " + t;
        }
        continue;
      }
      pairs.emplace_back(t.substr(0, eq), t.substr(eq + 1));
    }
    if (pairs.empty()) continue;
    std::string first = ToLower(pairs[0].first);
    if (first == "nodename") {
      reader.NodeLine(line, pairs);
    } else if (first == "partitionname" || first == "nodeset" || first == "frontendname" ||
               first == "downnodes" || first == "switchname") {
      continue;  // multi-key lines that hold no priority setting
    } else {
      for (const auto& [key, value] : pairs) reader.Setting(line, key, Trim(value));
    }
  }
  reader.Finish();
  return conf;
}

bool ReadSlurmConfFile(const std::string& path, SlurmConf* conf, std::string* error,
                       uint32_t slurm_version) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open for reading";
    return false;
  }
  *conf = ParseSlurmConf(in, path, slurm_version);
  return true;
}

}  // namespace fairway
