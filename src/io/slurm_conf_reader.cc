// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_conf_reader.h"

#include <fstream>
#include <limits>

#include "../text_util.h"
#include "../tres_weight.h"

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

class Reader {
 public:
  explicit Reader(SlurmConf* conf) : conf_(conf) {}

  void Add(int line, Severity severity, const std::string& setting, const std::string& value,
           const std::string& message, const std::string& fallback) {
    ConfDiagnostic d;
    d.line = line;
    d.diagnostic.severity = severity;
    d.diagnostic.setting = setting;
    d.diagnostic.value = value;
    d.diagnostic.message = message;
    d.diagnostic.fallback = fallback;
    conf_->diagnostics.push_back(d);
  }

  void Weight(int line, const std::string& name, const std::string& value, uint32_t* out) {
    std::optional<int64_t> v = ParseUnsigned(value);
    if (!v) {
      Add(line, Severity::kError, name, value,
          "'" + value + "' is not a whole non-negative number", "slurmctld refuses to start");
    } else if (*v > int64_t{0xffffffff}) {
      Add(line, Severity::kError, name, value,
          "'" + value + "' exceeds 4294967295 (32 bits)", "slurmctld refuses to start");
    } else {
      *out = static_cast<uint32_t>(*v);
    }
  }

  void Minutes(int line, const std::string& name, const std::string& value, int64_t* out) {
    std::optional<int64_t> seconds = ParseSlurmTimeSeconds(value);
    if (!seconds) {
      Add(line, Severity::kError, name, value,
          "'" + value + "' is not a Slurm time (minutes, or days-hh:mm:ss)",
          "slurmctld refuses to start");
    } else {
      *out = *seconds;
    }
  }

  void Flags(int line, const std::string& value) {
    uint32_t flags = kFlagFairTree;
    for (const std::string& raw : Split(value, ',')) {
      std::string token = ToLower(Trim(raw));
      if (token.empty()) continue;
      if (token == "accrue_always") flags |= kFlagAccrueAlways;
      else if (token == "small_relative_to_time") flags |= kFlagSizeRelative;
      else if (token == "calculate_running") flags |= kFlagCalculateRunning;
      else if (token == "depth_oblivious") flags = (flags | kFlagDepthOblivious) & ~kFlagFairTree;
      else if (token == "no_fair_tree") flags &= ~kFlagFairTree;
      else if (token == "incr_only") flags |= kFlagIncrOnly;
      else if (token == "max_tres") flags |= kFlagMaxTres;
      else if (token == "no_normal_all") flags |= kFlagNoNormalAll;
      else if (token == "no_normal_assoc") flags |= kFlagNoNormalAssoc;
      else if (token == "no_normal_part") flags |= kFlagNoNormalPart;
      else if (token == "no_normal_qos") flags |= kFlagNoNormalQos;
      else if (token == "no_normal_tres") flags |= kFlagNoNormalTres;
      else if (token == "fair_tree") {
        // Slurm 22.05 has no such flag: Fair Tree is the default.
        Add(line, Severity::kWarning, "PriorityFlags", Trim(raw),
            "'" + Trim(raw) + "' is not a flag in Slurm 22.05 (Fair Tree is the default)",
            "ignored");
      } else {
        Add(line, Severity::kWarning, "PriorityFlags", Trim(raw),
            "unknown flag '" + Trim(raw) + "'",
            "ignored, as Slurm ignores it; known: ACCRUE_ALWAYS, SMALL_RELATIVE_TO_TIME, "
            "CALCULATE_RUNNING, DEPTH_OBLIVIOUS, NO_FAIR_TREE, INCR_ONLY, MAX_TRES, "
            "NO_NORMAL_ALL, NO_NORMAL_ASSOC, NO_NORMAL_PART, NO_NORMAL_QOS, NO_NORMAL_TRES");
      }
    }
    // DEPTH_OBLIVIOUS wins over NO_FAIR_TREE in read_config.c; both clear FAIR_TREE.
    conf_->params.flags = flags;
  }

  void Setting(int line, const std::string& key, const std::string& value) {
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
      Diagnostics d;
      conf_->tres_weights = ParseTresWeights(value, &d);
      for (const Diagnostic& x : d) conf_->diagnostics.push_back({x, line});
    } else if (name == "PriorityFlags") {
      Flags(line, value);
    } else if (name == "PriorityDecayHalfLife") {
      Minutes(line, name, value, &p.decay_half_life_s);
    } else if (name == "PriorityMaxAge") {
      Minutes(line, name, value, &p.max_age_s);
    } else if (name == "PriorityCalcPeriod") {
      int64_t s = p.calc_period_s;
      Minutes(line, name, value, &s);
      if (s < 60 && ParseSlurmTimeSeconds(value)) {
        Add(line, Severity::kError, name, value, "must be at least 1 minute",
            "slurmctld refuses to start");
      } else {
        p.calc_period_s = s;
      }
    } else if (name == "PriorityUsageResetPeriod") {
      static const std::map<std::string, ResetPeriod> periods = {
          {"none", ResetPeriod::kNone},       {"now", ResetPeriod::kNow},
          {"daily", ResetPeriod::kDaily},     {"weekly", ResetPeriod::kWeekly},
          {"monthly", ResetPeriod::kMonthly}, {"quarterly", ResetPeriod::kQuarterly},
          {"yearly", ResetPeriod::kYearly}};
      auto period = periods.find(ToLower(value));
      if (period == periods.end()) {
        Add(line, Severity::kError, name, value,
            "'" + value + "' is not NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY",
            "slurmctld refuses to start");
      } else {
        p.reset_period = period->second;
      }
    } else if (name == "PriorityFavorSmall") {
      std::string v = ToLower(value);
      if (v == "yes" || v == "true" || v == "up" || v == "1") p.favor_small = true;
      else if (v == "no" || v == "false" || v == "down" || v == "0") p.favor_small = false;
      else Add(line, Severity::kError, name, value, "'" + value + "' is not YES or NO",
               "slurmctld refuses to start");
    } else if (name == "FairShareDampeningFactor") {
      std::optional<int64_t> v = ParseUnsigned(value);
      if (!v || *v > 65535) {
        Add(line, Severity::kError, name, value,
            "'" + value + "' is not a whole number in 0..65535", "slurmctld refuses to start");
      } else {
        p.damp_factor = static_cast<uint16_t>(*v);
      }
    } else if (name == "PriorityParameters") {
      conf_->priority_parameters = value;
      for (const Diagnostic& x : ParsePriorityParameters(value, &p)) {
        conf_->diagnostics.push_back({x, line});
      }
    } else if (name == "PriorityType") {
      conf_->priority_type = value;
    }
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

std::vector<TresWeight> ParseTresWeights(std::string_view text, Diagnostics* diagnostics) {
  std::vector<TresWeight> weights;
  auto bad = [&](const std::string& item, const std::string& why) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.setting = "PriorityWeightTRES";
    d.value = item;
    d.message = "bad item '" + item + "': " + why;
    d.fallback = "slurmctld refuses to start";
    diagnostics->push_back(d);
  };
  for (const std::string& raw : Split(std::string(text), ',')) {
    std::string item = Trim(raw);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      bad(item, "expected TYPE[/NAME]=WEIGHT[UNIT]");
      continue;
    }
    std::string name = ToLower(Trim(item.substr(0, eq)));
    std::string value = Trim(item.substr(eq + 1));
    std::string type = name.substr(0, name.find('/'));
    static const char* const kSimple[] = {"cpu", "mem", "energy", "node", "billing", "vmem", "pages"};
    static const char* const kNamed[] = {"gres", "license", "bb", "fs", "ic"};
    bool known = false;
    if (name.find('/') == std::string::npos) {
      for (const char* t : kSimple) known = known || name == t;
    } else {
      for (const char* t : kNamed) known = known || (type == t && name.size() > type.size() + 1);
    }
    if (!known) {
      bad(item, "unknown TRES '" + name + "' (cpu, mem, energy, node, billing, vmem, pages, "
                "gres/NAME, license/NAME, bb/NAME, fs/NAME, ic/NAME)");
      continue;
    }
    std::string why;
    std::optional<double> w = ParseTresWeightValue(type, value, &why);
    if (!w || *w < 0) {
      bad(item, w ? "'" + value + "' is negative" : why);
      continue;
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

SlurmConf ParseSlurmConf(std::istream& in, const std::string& source) {
  SlurmConf conf;
  conf.source = source;
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
  return conf;
}

bool ReadSlurmConfFile(const std::string& path, SlurmConf* conf, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open for reading";
    return false;
  }
  *conf = ParseSlurmConf(in, path);
  return true;
}

}  // namespace fairway
