// SPDX-License-Identifier: GPL-2.0-or-later
#include "params.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "text_util.h"

namespace fairway {

namespace {

constexpr const char* kKnownKeys =
    "fairshare, planned_use_interval, planned_use_capacity, planned_use_charge, "
    "usage_bootstrap, fairshare_clusters, fairshare_sync, change_check";
constexpr const char* kSetting = "PriorityParameters";

Diagnostic BadValue(const std::string& key, const std::string& value,
                    const std::string& why, const std::string& kept) {
  Diagnostic d;
  d.setting = kSetting;
  d.value = key + "=" + value;
  d.message = "bad value '" + value + "' for key '" + key + "': " + why;
  d.fallback = "using " + kept;
  return d;
}

std::optional<FairshareMode> ModeFromName(const std::string& name) {
  if (name == "classic" || name == "no_fair_tree") return FairshareMode::kClassic;
  if (name == "depth_oblivious") return FairshareMode::kDepthOblivious;
  if (name == "fair_tree") return FairshareMode::kFairTree;
  if (name == "ranged") return FairshareMode::kRanged;
  if (name == "planned_use") return FairshareMode::kPlannedUse;
  return std::nullopt;
}

std::string CurrentModeText(const Params& params) {
  return params.mode_override ? FairshareModeName(*params.mode_override)
                              : std::string("the mode from PriorityFlags");
}

}  // namespace

const char* FairshareModeName(FairshareMode mode) {
  switch (mode) {
    case FairshareMode::kClassic: return "classic";
    case FairshareMode::kDepthOblivious: return "depth_oblivious";
    case FairshareMode::kFairTree: return "fair_tree";
    case FairshareMode::kRanged: return "ranged";
    case FairshareMode::kPlannedUse: return "planned_use";
  }
  return "unknown";
}

FairshareMode Params::Mode() const {
  if (mode_override) return *mode_override;
  if (flags & kFlagFairTree) return FairshareMode::kFairTree;
  if (flags & kFlagDepthOblivious) return FairshareMode::kDepthOblivious;
  return FairshareMode::kClassic;
}

uint64_t Params::WeightSum() const {
  uint64_t sum = uint64_t{weight_age} + weight_assoc + weight_fairshare +
                 weight_job_size + weight_partition + weight_qos;
  return sum;
}

std::optional<int64_t> ParseSlurmTimeSeconds(std::string_view text) {
  std::string s = Trim(text);
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != ':') {
      return std::nullopt;
    }
  }
  int64_t days = 0;
  bool has_days = false;
  std::string rest = s;
  size_t dash = s.find('-');
  if (dash != std::string::npos) {
    std::optional<int64_t> d = ParseUnsigned(s.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    has_days = true;
    rest = s.substr(dash + 1);
  }
  std::vector<std::string> parts = Split(rest, ':');
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  std::vector<int64_t> values;
  for (const std::string& p : parts) {
    std::optional<int64_t> v = ParseUnsigned(p);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  int64_t hours = 0, minutes = 0, seconds = 0;
  if (has_days) {
    // days-hours[:minutes[:seconds]]
    hours = values[0];
    if (values.size() > 1) minutes = values[1];
    if (values.size() > 2) seconds = values[2];
  } else if (values.size() == 1) {
    minutes = values[0];
  } else if (values.size() == 2) {
    minutes = values[0];
    seconds = values[1];
  } else {
    hours = values[0];
    minutes = values[1];
    seconds = values[2];
  }
  constexpr int64_t kLimit = int64_t{1} << 40;  // far beyond any sane interval
  if (days > kLimit / 86400 || hours > kLimit / 3600 || minutes > kLimit / 60 ||
      seconds > kLimit) {
    return std::nullopt;
  }
  return days * 86400 + hours * 3600 + minutes * 60 + seconds;
}

namespace {

// slurmctld's ClusterName is a table prefix in slurmdbd: letters, digits,
// '_' and '-'.
bool ValidClusterName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

// One fairshare_clusters list (items already split): the clusters, or the
// reason the list is refused.
std::optional<std::vector<Params::RemoteCluster>> ParseRemoteClusters(
    const std::vector<std::string>& items, std::string_view local_cluster, std::string* why) {
  std::vector<Params::RemoteCluster> out;
  const std::string local = ToLower(Trim(local_cluster));
  for (const std::string& item : items) {
    Params::RemoteCluster c;
    const size_t colon = item.find(':');
    c.name = ToLower(Trim(item.substr(0, colon)));
    if (!ValidClusterName(c.name)) {
      *why = "'" + c.name + "' is not a cluster name (letters, digits, '_' and '-')";
      return std::nullopt;
    }
    if (colon != std::string::npos) {
      const std::string scale = Trim(item.substr(colon + 1));
      std::optional<double> v = ParseDouble(scale);
      if (!v || !std::isfinite(*v) || *v <= 0) {
        *why = "the scale '" + scale + "' of cluster " + c.name + " is not a finite number > 0";
        return std::nullopt;
      }
      c.scale = *v;
    }
    if (!local.empty() && c.name == local) {
      *why = "cluster " + c.name + " is this cluster (ClusterName): its usage counts already";
      return std::nullopt;
    }
    for (const Params::RemoteCluster& seen : out) {
      if (seen.name == c.name) {
        *why = "cluster " + c.name + " is named twice";
        return std::nullopt;
      }
    }
    out.push_back(c);
  }
  return out;
}

std::string RemoteClustersText(const std::vector<Params::RemoteCluster>& clusters) {
  if (clusters.empty()) return "no other cluster";
  std::string s;
  for (const Params::RemoteCluster& c : clusters) {
    if (!s.empty()) s += ",";
    s += c.name;
    if (c.scale != 1) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", c.scale);
      s += std::string(":") + buf;
    }
  }
  return s;
}

}  // namespace

Diagnostics ParsePriorityParameters(std::string_view text, Params* params,
                                    std::string_view local_cluster) {
  Diagnostics diagnostics;
  std::vector<std::string> items = Split(std::string(text), ',');
  for (size_t index = 0; index < items.size(); ++index) {
    std::string item = Trim(items[index]);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      Diagnostic d;
      d.setting = kSetting;
      d.value = item;
      d.message = "'" + item + "' is not of the form key=value";
      d.fallback = "ignored";
      diagnostics.push_back(d);
      continue;
    }
    const std::string written_key = Trim(item.substr(0, eq));
    std::string key = ToLower(written_key);
    std::string value = Trim(item.substr(eq + 1));
    if (key == "fairshare") {
      std::optional<FairshareMode> mode = ModeFromName(ToLower(value));
      if (!mode) {
        diagnostics.push_back(BadValue(
            key, value,
            "expected classic, depth_oblivious, fair_tree, ranged or planned_use",
            CurrentModeText(*params)));
      } else {
        params->mode_override = mode;
      }
    } else if (key == "planned_use_interval") {
      std::optional<int64_t> seconds = ParseSlurmTimeSeconds(value);
      if (!seconds || *seconds <= 0) {
        diagnostics.push_back(BadValue(
            key, value, "expected a positive Slurm time (minutes, or days-hh:mm:ss)",
            std::to_string(params->planned_use_interval_s) + " s"));
      } else {
        params->planned_use_interval_s = *seconds;
      }
    } else if (key == "planned_use_capacity") {
      std::optional<double> capacity = ParseDouble(value);
      if (!capacity || !std::isfinite(*capacity) || *capacity <= 0) {
        diagnostics.push_back(BadValue(
            key, value, "expected a positive number of billing units",
            params->planned_use_capacity > 0
                ? std::to_string(params->planned_use_capacity)
                : std::string("the total billing of all nodes")));
      } else {
        params->planned_use_capacity = *capacity;
      }
    } else if (key == "planned_use_charge") {
      std::string v = ToLower(value);
      if (v == "accrue") {
        params->planned_use_charge = PlannedUseCharge::kAccrue;
      } else if (v == "start") {
        params->planned_use_charge = PlannedUseCharge::kStart;
      } else {
        diagnostics.push_back(BadValue(
            key, value, "expected accrue or start",
            params->planned_use_charge == PlannedUseCharge::kStart ? "start"
                                                                   : "accrue"));
      }
    } else if (key == "fairshare_clusters") {
      // The list runs on over the items without '='.
      std::vector<std::string> list;
      if (!value.empty()) list.push_back(value);
      while (index + 1 < items.size() && Trim(items[index + 1]).find('=') == std::string::npos) {
        const std::string more = Trim(items[++index]);
        if (!more.empty()) list.push_back(more);
        value += "," + more;
      }
      std::string why;
      std::optional<std::vector<Params::RemoteCluster>> clusters =
          ParseRemoteClusters(list, local_cluster, &why);
      if (!clusters) {
        diagnostics.push_back(BadValue(key, value, why, RemoteClustersText(params->fairshare_clusters)));
      } else {
        params->fairshare_clusters = *clusters;
      }
    } else if (key == "fairshare_sync") {
      std::optional<int64_t> seconds = ParseUnsigned(value);
      if (!seconds) {
        diagnostics.push_back(BadValue(
            key, value, "expected seconds (0: every decay pass)",
            params->fairshare_sync_s ? std::to_string(params->fairshare_sync_s) + " s"
                                     : std::string("every decay pass")));
      } else {
        params->fairshare_sync_s = *seconds;
      }
    } else if (key == "change_check") {
      std::optional<int64_t> seconds = ParseUnsigned(value);
      if (!seconds || *seconds > 3600) {
        diagnostics.push_back(BadValue(
            key, value, "expected seconds from 0 (off) to 3600",
            params->change_check_s ? std::to_string(params->change_check_s) + " s"
                                   : std::string("off")));
      } else {
        params->change_check_s = *seconds;
      }
    } else if (key == "usage_bootstrap") {
      std::string v = ToLower(value);
      if (v == "auto") {
        params->usage_bootstrap = UsageBootstrap::kAuto;
      } else if (v == "force") {
        params->usage_bootstrap = UsageBootstrap::kForce;
      } else if (v == "off" || v == "no") {
        params->usage_bootstrap = UsageBootstrap::kOff;
      } else {
        const char* kept = params->usage_bootstrap == UsageBootstrap::kForce ? "force"
                           : params->usage_bootstrap == UsageBootstrap::kOff ? "off" : "auto";
        diagnostics.push_back(BadValue(key, value, "expected auto, force or off", kept));
      }
    } else {
      Diagnostic d;
      d.setting = kSetting;
      d.value = written_key;
      d.message = "unknown key '" + written_key + "'";
      d.fallback = std::string("ignored; known keys: ") + kKnownKeys;
      diagnostics.push_back(d);
    }
  }
  return diagnostics;
}

}  // namespace fairway
