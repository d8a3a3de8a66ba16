// SPDX-License-Identifier: GPL-2.0-or-later
// State file format (version 2), ASCII text with '\n' line ends:
//   FWRU 2
//   clusters <count>
//   then per cluster, by name:
//   cluster <name> <high_water> <as_of> <ended> <running> <charged> <open>
//           <plan_index> <plan ended> <plan running>
//   e <path> <hi> <lo>        (<ended> lines)
//   r <path> <hi> <lo>        (<running> lines)
//   c <job id> <submit> <end> (<charged> lines)
//   o <job id> <submit> <start> (<open> lines)
//   p <path> <H hi> <H lo> <c hi> <c lo>   (<plan ended> lines)
//   q <path> <H hi> <H lo> <c hi> <c lo>   (<plan running> lines)
//   checksum <FNV-1a 64 of every byte before this line, 16 lowercase hex>
// Names and paths are written with '%', ' ' and control characters as
// %XX. Values are double-doubles (state_codec.h), as in the ledger.
#include "remote_usage.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "state_codec.h"
#include "planned_use.h"
#include "usage_bootstrap.h"

namespace fairway {

namespace {

constexpr const char* kMagic = "FWRU";
constexpr int kVersion = 2;
// End records that reach slurmdbd up to this late after a sync passed
// their job's end are still fetched (a remote slurmctld queues them while
// it cannot reach slurmdbd).
constexpr int64_t kLateRecordLagS = 3600;
constexpr int64_t kMaxWindowS = 365 * 86400;

// s with '%', spaces and control characters as %XX, appended to *out (a
// state file writes tens of thousands of paths a pass: no temporaries).
void AppendEscaped(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  const auto plain = [](unsigned char c) { return c != '%' && c != ' ' && c >= 0x20 && c != 0x7f; };
  if (std::all_of(s.begin(), s.end(), plain)) {  // nearly every path
    out->append(s);
    return;
  }
  for (unsigned char c : s) {
    if (c == '%' || c == ' ' || c < 0x20 || c == 0x7f) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

std::string Escape(const std::string& s) {
  std::string out;
  AppendEscaped(s, &out);
  return out;
}

bool Unescape(const std::string& s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      *out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    int v = 0;
    for (int k = 1; k <= 2; ++k) {
      const char c = s[i + k];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) return false;
      v = v * 16 + digit;
    }
    *out += static_cast<char>(v);
    i += 2;
  }
  return true;
}

bool Fail(std::string* error, const std::string& why) {
  if (error) *error = "remote clusters' usage: " + why;
  return false;
}

bool ParseValue(const std::string& hi_text, const std::string& lo_text, long double* out) {
  uint64_t hi_bits, lo_bits;
  if (!ParseHex64(hi_text, &hi_bits) || !ParseHex64(lo_text, &lo_bits)) return false;
  const double hi = BitsDouble(hi_bits), lo = BitsDouble(lo_bits);
  if (!std::isfinite(hi) || !std::isfinite(lo) || std::signbit(hi)) return false;
  *out = static_cast<long double>(hi) + static_cast<long double>(lo);
  return *out >= 0;
}

long double DecayFactor(double decay_per_second, int64_t seconds) {
  if (seconds <= 0) return 1;
  return std::pow(static_cast<long double>(decay_per_second), static_cast<long double>(seconds));
}

void AppendEntry(const PlannedUseEntry& e, std::string* out) {
  AppendLongDouble(e.history, out);
  out->push_back(' ');
  AppendLongDouble(e.open, out);
}

}  // namespace

void RollPlanEntries(std::map<std::string, PlannedUseEntry>* entries, int64_t from, int64_t to,
                     double per_interval_decay) {
  if (from < 0 || to <= from) return;
  const long double d = per_interval_decay;
  const long double further = std::pow(d, static_cast<long double>(to - from - 1));
  for (auto& [path, e] : *entries) {
    e.history = (e.open + d * e.history) * further;
    e.open = 0;
  }
}

std::map<std::string, PlannedUseEntry> RemoteUsed::PlanSum() const {
  std::map<std::string, PlannedUseEntry> out;
  for (const auto& [cluster, paths] : plan_by_cluster) {
    for (const auto& [path, e] : paths) {
      out[path].history += e.history;
      out[path].open += e.open;
    }
  }
  return out;
}

void AddRemotePlan(const AssocTree& tree, const std::map<std::string, PlannedUseEntry>& by_path,
                   PlannedUseLedger* ledger) {
  if (by_path.empty()) return;
  const LocalPathIndex node_of = MakeLocalPathIndex(tree);
  for (const auto& [path, entry] : by_path) {
    auto it = node_of.find(path);
    if (it == node_of.end()) continue;
    int32_t at = it->second;
    for (size_t steps = 0; steps <= tree.size() && at >= 0; ++steps) {
      PlannedUseEntry& e = ledger->entries[tree.node(at).id];
      e.history += entry.history;
      e.open += entry.open;
      at = tree.links(at).parent;
    }
  }
}

std::map<uint32_t, std::string> RemotePaths(const std::vector<RemoteAssoc>& assocs) {
  std::map<std::string, std::string> parent_of;  // account -> parent account
  for (const RemoteAssoc& a : assocs) {
    if (a.user.empty() && a.partition.empty()) parent_of[a.acct] = a.parent_acct;
  }
  std::map<std::string, std::string> account_path;
  // An account's path, or "" when its chain does not reach root (or loops).
  auto path_of = [&](const std::string& acct) {
    auto known = account_path.find(acct);
    if (known != account_path.end()) return known->second;
    std::vector<std::string> chain;
    std::string at = acct;
    for (size_t steps = 0; steps <= parent_of.size() && at != "root"; ++steps) {
      auto up = parent_of.find(at);
      if (up == parent_of.end()) return account_path[acct] = "";
      chain.push_back(at);
      at = up->second;
    }
    if (at != "root") return account_path[acct] = "";
    std::string path = "root";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) path += "/" + *it;
    return account_path[acct] = path;
  };
  std::map<uint32_t, std::string> out;
  for (const RemoteAssoc& a : assocs) {
    std::string path = path_of(a.acct);
    if (path.empty()) continue;
    if (!a.user.empty()) {
      path += "|" + a.user;
      if (!a.partition.empty()) path += "|" + a.partition;
    } else if (!a.partition.empty()) {
      continue;  // slurmdbd makes no partition account associations
    }
    out[a.id] = path;
  }
  return out;
}

std::string LocalPath(const AssocTree& tree, int32_t i) {
  if (i < 0 || static_cast<size_t>(i) >= tree.size()) return "";
  std::vector<int32_t> chain;
  int32_t at = i;
  for (size_t steps = 0; steps <= tree.size() && at >= 0 && at != tree.root(); ++steps) {
    chain.push_back(at);
    at = tree.links(at).parent;
  }
  if (at != tree.root()) return "";  // an orphan
  std::string path = "root";
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const AssocNode& n = tree.node(*it);
    if (n.is_user()) {
      path += "|" + n.user;
      if (!n.partition.empty()) path += "|" + n.partition;
    } else {
      path += "/" + n.acct;
    }
  }
  return path;
}

int64_t RemoteUsage::DecayWindow(int64_t half_life_s) {
  if (half_life_s <= 0) return kMaxWindowS;
  return std::min<int64_t>(10 * half_life_s, kMaxWindowS);
}

int64_t RemoteUsage::FetchSince(const std::string& cluster, int64_t now, int64_t half_life_s) const {
  const int64_t floor = now - DecayWindow(half_life_s);
  auto it = clusters_.find(cluster);
  if (it == clusters_.end() || it->second.high_water == 0) return floor;
  int64_t since = it->second.high_water - kLateRecordLagS;
  for (const auto& [key, start] : it->second.open) since = std::min(since, start);
  return std::max(since, floor);
}

bool RemoteUsage::NeedsAssocs(const std::string& cluster, const std::vector<RemoteJob>& jobs,
                              int64_t now) const {
  auto it = clusters_.find(cluster);
  if (it == clusters_.end() || it->second.paths_at == 0) return true;
  const RemoteClusterUsage& c = it->second;
  if (now - c.paths_at >= kRemoteAssocRefreshS || now < c.paths_at) return true;
  for (const RemoteJob& job : jobs) {
    if (job.start > 0 && job.assoc_id > c.paths_max_id) return true;
  }
  return false;
}

RemoteSyncResult RemoteUsage::Sync(const std::string& cluster, const std::vector<RemoteAssoc>* assocs,
                                   const std::vector<RemoteJob>& jobs, int64_t now,
                                   double decay_per_second, int64_t half_life_s,
                                   const RemotePlan& plan) {
  RemoteSyncResult result;
  RemoteClusterUsage& c = clusters_[cluster];
  // The planned-use ledger of ended jobs, rolled to now's interval; the
  // running jobs' is recounted below.
  const int64_t plan_now = plan.IndexAt(now);
  RollPlanEntries(&c.plan_ended, c.plan_index, plan_now, plan.per_interval_decay);
  c.plan_index = plan_now;
  c.plan_running.clear();
  if (assocs) {
    c.paths = RemotePaths(*assocs);
    c.paths_at = now;
    c.paths_max_id = 0;
    for (const RemoteAssoc& a : *assocs) c.paths_max_id = std::max(c.paths_max_id, a.id);
  }
  const std::map<uint32_t, std::string>& paths = c.paths;
  // The ended jobs' usage, decayed to now; the running ones are recounted.
  const long double factor = c.as_of ? DecayFactor(decay_per_second, now - c.as_of) : 1;
  for (auto& [path, usage] : c.ended) usage *= factor;
  c.running.clear();
  std::map<std::pair<uint32_t, int64_t>, int64_t> open;
  for (const RemoteJob& job : jobs) {
    if (job.start <= 0) continue;  // never ran here (a federation sibling)
    auto path = paths.find(job.assoc_id);
    if (path == paths.end()) {
      ++result.without_path;
      continue;
    }
    const std::pair<uint32_t, int64_t> key{job.job_id, job.submit};
    JobUsageRecord record;
    record.assoc_id = job.assoc_id;
    record.start = job.start;
    record.billing = job.billing;
    if (job.end != 0 && job.end <= now) {
      if (c.charged.count(key)) {
        ++result.repeated;
        continue;
      }
      record.end = job.end;
      const long double usage = DecayedJobUsage(record, now, decay_per_second);
      c.ended[path->second] += usage;
      ChargeIntervals(job.start, job.end, job.billing, plan_now, plan.interval_s,
                      plan.per_interval_decay, &c.plan_ended[path->second]);
      c.charged[key] = job.end;
      ++result.charged;
      result.charged_usage += usage;
    } else {
      record.end = 0;  // counts up to now
      c.running[path->second] += DecayedJobUsage(record, now, decay_per_second);
      ChargeIntervals(job.start, now, job.billing, plan_now, plan.interval_s,
                      plan.per_interval_decay, &c.plan_running[path->second]);
      open[key] = job.start;
      ++result.running;
    }
  }
  c.open = std::move(open);
  c.high_water = now;
  c.as_of = now;
  // A job ended before the next fetch's start cannot be returned again.
  const int64_t next_since = FetchSince(cluster, now, half_life_s);
  for (auto it = c.charged.begin(); it != c.charged.end();) {
    it = it->second < next_since ? c.charged.erase(it) : std::next(it);
  }
  return result;
}

void RemoteUsage::Keep(const std::vector<std::string>& names) {
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    const bool named = std::find(names.begin(), names.end(), it->first) != names.end();
    it = named ? std::next(it) : clusters_.erase(it);
  }
}

namespace {
// (*out)[path] += usage * factor for every entry of from, in path order:
// each place found from the last (a hint), not searched from the root,
// since both maps are sorted by path; every path of one cluster is usually
// in the next (the pass adds tens of thousands a time).
void AddSorted(const std::map<std::string, long double>& from, long double factor,
               std::map<std::string, long double>* out) {
  auto hint = out->begin();
  for (const auto& [path, usage] : from) {
    auto it = out->try_emplace(hint, path, 0.0L);
    it->second += usage * factor;
    hint = std::next(it);
  }
}
}  // namespace

ClustersView RemoteUsage::UsedView(const std::vector<std::pair<std::string, double>>& clusters,
                                   int64_t now, double decay_per_second,
                                   std::map<std::string, int64_t>* synced_at) const {
  ClustersView view;
  for (const auto& [name, scale] : clusters) {
    auto it = clusters_.find(name);
    if (synced_at) (*synced_at)[name] = it == clusters_.end() ? 0 : it->second.high_water;
    if (it == clusters_.end()) continue;
    const RemoteClusterUsage& c = it->second;
    const long double factor = DecayFactor(decay_per_second, now - c.as_of) * scale;
    PathUsageView& out = view[name];
    out.reserve(c.ended.size() + c.running.size());
    // ended and running merged in path order, a path's usage
    // (0 + ended x factor) + running x factor.
    auto e = c.ended.begin();
    auto r = c.running.begin();
    while (e != c.ended.end() || r != c.running.end()) {
      if (r == c.running.end() || (e != c.ended.end() && e->first < r->first)) {
        out.emplace_back(&e->first, 0.0L + e->second * factor);
        ++e;
      } else if (e == c.ended.end() || r->first < e->first) {
        out.emplace_back(&r->first, 0.0L + r->second * factor);
        ++r;
      } else {
        out.emplace_back(&e->first, (0.0L + e->second * factor) + r->second * factor);
        ++e;
        ++r;
      }
    }
  }
  return view;
}

RemoteUsed RemoteUsage::Used(const std::vector<std::pair<std::string, double>>& clusters,
                             int64_t now, double decay_per_second, const RemotePlan& plan) const {
  RemoteUsed used;
  used.at = now;
  used.plan_index = plan.IndexAt(now);
  for (const auto& [name, paths] : UsedView(clusters, now, decay_per_second, &used.synced_at)) {
    std::map<std::string, long double>& out = used.by_cluster[name];
    for (const auto& [path, usage] : paths) out.emplace_hint(out.end(), *path, usage);
  }
  if (!plan.wanted) return used;
  for (const auto& [name, scale] : clusters) {
    auto it = clusters_.find(name);
    if (it == clusters_.end()) continue;
    const RemoteClusterUsage& c = it->second;
    // Both ledgers rolled to now's interval (copies), scaled.
    std::map<std::string, PlannedUseEntry> ended = c.plan_ended, running = c.plan_running;
    RollPlanEntries(&ended, c.plan_index, used.plan_index, plan.per_interval_decay);
    RollPlanEntries(&running, c.plan_index, used.plan_index, plan.per_interval_decay);
    std::map<std::string, PlannedUseEntry>& plan_out = used.plan_by_cluster[name];
    for (const auto* part : {&ended, &running}) {
      for (const auto& [path, e] : *part) {
        plan_out[path].history += e.history * scale;
        plan_out[path].open += e.open * scale;
      }
    }
  }
  return used;
}

std::map<std::string, long double> RemoteUsed::Sum() const {
  std::map<std::string, long double> out;
  for (const auto& [cluster, paths] : by_cluster) AddSorted(paths, 1, &out);
  return out;
}

ClustersView RemoteUsed::View() const {
  ClustersView view;
  for (const auto& [cluster, paths] : by_cluster) {
    PathUsageView& out = view[cluster];
    out.reserve(paths.size());
    for (const auto& [path, usage] : paths) out.emplace_back(&path, usage);
  }
  return view;
}

std::string RemoteUsed::Serialize() const {
  return SerializeView(at, plan_index, synced_at, View(), plan_by_cluster);
}

std::string RemoteUsed::SerializeView(
    int64_t at, int64_t plan_index, const std::map<std::string, int64_t>& synced_at,
    const ClustersView& view,
    const std::map<std::string, std::map<std::string, PlannedUseEntry>>& plan_by_cluster) {
  std::string out = "FWRT 2\nat " + std::to_string(at) + " " + std::to_string(plan_index) +
                    "\nclusters " + std::to_string(synced_at.size()) + "\n";
  for (const auto& [name, synced] : synced_at) {
    auto paths = view.find(name);
    auto plans = plan_by_cluster.find(name);
    const size_t n = paths == view.end() ? 0 : paths->second.size();
    const size_t m = plans == plan_by_cluster.end() ? 0 : plans->second.size();
    out += "cluster " + Escape(name) + " " + std::to_string(synced) + " " + std::to_string(n) + " " +
           std::to_string(m) + "\n";
    if (paths != view.end()) {
      // About 70 bytes a path.
      out.reserve(out.size() + 80 * paths->second.size());
      for (const auto& [path, usage] : paths->second) {
        out += "u ";
        AppendEscaped(*path, &out);
        out.push_back(' ');
        AppendLongDouble(usage, &out);
        out.push_back('\n');
      }
    }
    if (plans != plan_by_cluster.end()) {
      for (const auto& [path, e] : plans->second) {
        out += "p " + Escape(path) + " ";
        AppendEntry(e, &out);
        out += "\n";
      }
    }
  }
  AppendChecksumLine(&out);
  return out;
}

bool RemoteUsed::Parse(const std::string& bytes, RemoteUsed* out, std::string* error) {
  auto fail = [error](const std::string& why) {
    if (error) *error = "remote usage used by the last pass: " + why;
    return false;
  };
  if (bytes.compare(0, 7, "FWRT 2\n") != 0) return fail("not a FWRT 2 file");
  size_t sum_at = 0;
  std::string why;
  if (!CheckChecksumLine(bytes, &sum_at, &why)) return fail(why);
  LineReader reader(bytes, 7, sum_at);
  std::string line;
  RemoteUsed parsed;
  int64_t count = 0;
  std::vector<std::string> head;
  if (!reader.NextLine(&line) || (head = SplitSpaces(line)).size() != 3 || head[0] != "at" ||
      !ParseDecimal(head[1], false, &parsed.at) || !ParseDecimal(head[2], true, &parsed.plan_index) ||
      !reader.NextLine(&line) || line.compare(0, 9, "clusters ") != 0 ||
      !ParseDecimal(line.substr(9), false, &count)) {
    return fail("bad header");
  }
  for (int64_t k = 0; k < count; ++k) {
    if (!reader.NextLine(&line)) return fail("fewer clusters than announced");
    const std::vector<std::string> f = SplitSpaces(line);
    std::string name;
    int64_t synced = 0, n = 0, m = 0;
    if (f.size() != 5 || f[0] != "cluster" || !Unescape(f[1], &name) ||
        !ParseDecimal(f[2], false, &synced) || !ParseDecimal(f[3], false, &n) ||
        !ParseDecimal(f[4], false, &m)) {
      return fail("bad cluster line");
    }
    parsed.synced_at[name] = synced;
    for (int64_t i = 0; i < n; ++i) {
      std::string path;
      long double usage = 0;
      if (!reader.NextLine(&line)) return fail("fewer paths than announced");
      const std::vector<std::string> g = SplitSpaces(line);
      if (g.size() != 4 || g[0] != "u" || !Unescape(g[1], &path) || !ParseValue(g[2], g[3], &usage)) {
        return fail("bad path line");
      }
      parsed.by_cluster[name][path] = usage;
    }
    for (int64_t i = 0; i < m; ++i) {
      std::string path;
      PlannedUseEntry e;
      if (!reader.NextLine(&line)) return fail("fewer plan entries than announced");
      const std::vector<std::string> g = SplitSpaces(line);
      if (g.size() != 6 || g[0] != "p" || !Unescape(g[1], &path) || !ParseValue(g[2], g[3], &e.history) ||
          !ParseValue(g[4], g[5], &e.open)) {
        return fail("bad plan line");
      }
      parsed.plan_by_cluster[name][path] = e;
    }
  }
  if (!reader.AtEnd()) return fail("more lines than announced");
  *out = std::move(parsed);
  return true;
}

long double RemoteUsageUnder(const std::map<std::string, long double>& by_path, const std::string& path) {
  long double sum = 0;
  for (auto it = by_path.lower_bound(path); it != by_path.end(); ++it) {
    const std::string& p = it->first;
    if (p.compare(0, path.size(), path) != 0) break;  // past the paths that start with it
    if (p.size() == path.size() || p[path.size()] == '/' || p[path.size()] == '|') sum += it->second;
  }
  return sum;
}

LocalPathIndex MakeLocalPathIndex(const AssocTree& tree) {
  LocalPathIndex index;
  index.reserve(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    std::string path = LocalPath(tree, static_cast<int32_t>(i));
    if (!path.empty()) index.emplace(std::move(path), static_cast<int32_t>(i));
  }
  return index;
}

uint64_t LocalPathSignature(const AssocTree& tree) {
  // FNV-1a over every input of LocalPath, each field ended by a byte no
  // name holds (0xff), so that "ab","c" and "a","bc" differ.
  uint64_t h = 0xcbf29ce484222325ull;
  auto bytes = [&h](const void* data, size_t n) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 0x100000001b3ull;
    }
  };
  auto text = [&](const std::string& s) {
    bytes(s.data(), s.size());
    const unsigned char end = 0xff;
    bytes(&end, 1);
  };
  const uint64_t n = tree.size();
  bytes(&n, sizeof(n));
  const int32_t root = tree.root();
  bytes(&root, sizeof(root));
  for (size_t i = 0; i < tree.size(); ++i) {
    const AssocNode& node = tree.node(static_cast<int32_t>(i));
    const int32_t parent = tree.links(static_cast<int32_t>(i)).parent;
    bytes(&node.id, sizeof(node.id));
    bytes(&parent, sizeof(parent));
    text(node.acct);
    text(node.user);
    text(node.partition);
  }
  return h;
}

std::vector<long double> RemoteSubtreeUsage(const AssocTree& tree, const ClustersView& by_cluster,
                                            const LocalPathIndex& index,
                                            std::vector<std::string>* unmatched) {
  std::vector<long double> out(tree.size(), 0);
  // One cursor per cluster, in name order; the paths merged in path order.
  std::vector<std::pair<PathUsageView::const_iterator, PathUsageView::const_iterator>> at;
  for (const auto& [cluster, paths] : by_cluster) at.emplace_back(paths.begin(), paths.end());
  for (;;) {
    const std::string* path = nullptr;
    for (const auto& [it, end] : at) {
      if (it != end && (!path || *it->first < *path)) path = it->first;
    }
    if (!path) break;
    long double usage = 0;
    for (auto& [it, end] : at) {
      if (it != end && *it->first == *path) {
        usage += it->second;
        ++it;
      }
    }
    auto node = index.find(*path);
    if (node == index.end()) {
      if (unmatched) unmatched->push_back(*path);
      continue;
    }
    // Charged as Slurm charges: the association and every ancestor.
    int32_t a = node->second;
    for (size_t steps = 0; steps <= tree.size() && a >= 0; ++steps) {
      out[a] += usage;
      a = tree.links(a).parent;
    }
  }
  return out;
}

std::vector<long double> RemoteSubtreeUsage(const AssocTree& tree,
                                            const std::map<std::string, long double>& by_path,
                                            std::vector<std::string>* unmatched) {
  if (by_path.empty()) return std::vector<long double>(tree.size(), 0);
  ClustersView one;
  PathUsageView& paths = one[""];
  paths.reserve(by_path.size());
  for (const auto& [path, usage] : by_path) paths.emplace_back(&path, usage);
  return RemoteSubtreeUsage(tree, one, MakeLocalPathIndex(tree), unmatched);
}

std::string RemoteUsage::Serialize() const {
  std::string out = std::string(kMagic) + " " + std::to_string(kVersion) + "\nclusters " +
                    std::to_string(clusters_.size()) + "\n";
  for (const auto& [name, c] : clusters_) {
    out += "cluster " + Escape(name) + " " + std::to_string(c.high_water) + " " +
           std::to_string(c.as_of) + " " + std::to_string(c.ended.size()) + " " +
           std::to_string(c.running.size()) + " " + std::to_string(c.charged.size()) + " " +
           std::to_string(c.open.size()) + " " + std::to_string(c.plan_index) + " " +
           std::to_string(c.plan_ended.size()) + " " + std::to_string(c.plan_running.size()) + "\n";
    for (const auto* sums : {&c.ended, &c.running}) {
      for (const auto& [path, usage] : *sums) {
        out += sums == &c.ended ? "e " : "r ";
        out += Escape(path) + " ";
        AppendLongDouble(usage, &out);
        out += "\n";
      }
    }
    for (const auto* jobs : {&c.charged, &c.open}) {
      for (const auto& [key, time] : *jobs) {
        out += jobs == &c.charged ? "c " : "o ";
        out += std::to_string(key.first) + " " + std::to_string(key.second) + " " +
               std::to_string(time) + "\n";
      }
    }
    for (const auto* plan : {&c.plan_ended, &c.plan_running}) {
      for (const auto& [path, e] : *plan) {
        out += plan == &c.plan_ended ? "p " : "q ";
        out += Escape(path) + " ";
        AppendEntry(e, &out);
        out += "\n";
      }
    }
  }
  AppendChecksumLine(&out);
  return out;
}

bool RemoteUsage::Parse(const std::string& bytes, RemoteUsage* out, std::string* error) {
  const std::string header = std::string(kMagic) + " ";
  if (bytes.compare(0, header.size(), header) != 0) {
    return Fail(error, bytes.size() < header.size() ? "truncated (no header)" : "bad magic (not a FWRU file)");
  }
  const size_t header_end = bytes.find('\n');
  if (header_end == std::string::npos) return Fail(error, "truncated in the header");
  if (bytes.substr(header.size(), header_end - header.size()) != std::to_string(kVersion)) {
    return Fail(error, "unsupported version (expected " + std::to_string(kVersion) + ")");
  }
  // The checksum line closes the file.
  size_t sum_at = 0;
  std::string why;
  if (!CheckChecksumLine(bytes, &sum_at, &why)) return Fail(error, why);
  LineReader reader(bytes, header_end + 1, sum_at);
  std::string line;
  int64_t count = 0;
  if (!reader.NextLine(&line) || line.compare(0, 9, "clusters ") != 0 ||
      !ParseDecimal(line.substr(9), false, &count)) {
    return Fail(error, "bad clusters line");
  }
  RemoteUsage parsed;
  for (int64_t k = 0; k < count; ++k) {
    if (!reader.NextLine(&line)) return Fail(error, "fewer clusters than announced");
    const std::vector<std::string> f = SplitSpaces(line);
    int64_t n[9];
    std::string name;
    bool ok = f.size() == 11 && f[0] == "cluster" && Unescape(f[1], &name) && !name.empty();
    for (int i = 0; ok && i < 9; ++i) ok = ParseDecimal(f[2 + i], i == 6, &n[i]);
    if (!ok) return Fail(error, "bad cluster line '" + line.substr(0, 80) + "'");
    RemoteClusterUsage& c = parsed.clusters_[name];
    c.high_water = n[0];
    c.as_of = n[1];
    c.plan_index = n[6];
    for (int part = 0; part < 4; ++part) {
      static const char* kTags[] = {"e", "r", "c", "o"};
      for (int64_t i = 0; i < n[2 + part]; ++i) {
        if (!reader.NextLine(&line)) return Fail(error, "cluster " + name + ": fewer lines than announced");
        const std::vector<std::string> g = SplitSpaces(line);
        bool good = g.size() == 4 && g[0] == kTags[part];
        if (good && part < 2) {
          std::string path;
          long double usage = 0;
          good = Unescape(g[1], &path) && ParseValue(g[2], g[3], &usage);
          if (good) (part == 0 ? c.ended : c.running)[path] = usage;
        } else if (good) {
          int64_t id = 0, submit = 0, time = 0;
          good = ParseDecimal(g[1], false, &id) && id <= UINT32_MAX &&
                 ParseDecimal(g[2], false, &submit) && ParseDecimal(g[3], false, &time);
          if (good) {
            (part == 2 ? c.charged : c.open)[{static_cast<uint32_t>(id), submit}] = time;
          }
        }
        if (!good) return Fail(error, "cluster " + name + ": bad line '" + line.substr(0, 80) + "'");
      }
    }
    for (int part = 0; part < 2; ++part) {
      for (int64_t i = 0; i < n[7 + part]; ++i) {
        if (!reader.NextLine(&line)) return Fail(error, "cluster " + name + ": fewer lines than announced");
        const std::vector<std::string> g = SplitSpaces(line);
        std::string path;
        PlannedUseEntry e;
        if (g.size() != 6 || g[0] != (part == 0 ? "p" : "q") || !Unescape(g[1], &path) ||
            !ParseValue(g[2], g[3], &e.history) || !ParseValue(g[4], g[5], &e.open)) {
          return Fail(error, "cluster " + name + ": bad line '" + line.substr(0, 80) + "'");
        }
        (part == 0 ? c.plan_ended : c.plan_running)[path] = e;
      }
    }
  }
  if (!reader.AtEnd()) return Fail(error, "more lines than announced");
  *out = std::move(parsed);
  return true;
}

}  // namespace fairway
