// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "assoc_tree.h"
#include "local_time.h"
#include "planned_use.h"
#include "slurm_values.h"

namespace fairway::report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A parent id no association has: the core's tree keeps such a node as an
// orphan. (0 would make it a second root.)
constexpr uint32_t kNoParent = 0xffffffffu;

double Ratio(double num, double den) { return den > 0 ? num / den : kNaN; }

// Index of the bucket holding t, or -1 outside them all.
int64_t BucketOf(const std::vector<Bucket>& buckets, int64_t t) {
  auto it = std::upper_bound(buckets.begin(), buckets.end(), t,
                             [](int64_t v, const Bucket& b) { return v < b.start; });
  if (it == buckets.begin()) return -1;
  --it;
  return t < it->end ? it - buckets.begin() : -1;
}

// Whether t is where one of the bucket's roll-up rows starts.
bool RowBoundary(Granularity by, const Bucket& b, int64_t t) {
  if (by == Granularity::kHour) return t == b.start;
  if (by == Granularity::kDay) return t == b.start;
  return t == LocalMidnight(t);  // a week's rows are its local midnights
}

}  // namespace

const char* GranularityName(Granularity by) {
  switch (by) {
    case Granularity::kHour: return "hour";
    case Granularity::kDay: return "day";
    case Granularity::kWeek: return "week";
  }
  return "?";
}

std::vector<Bucket> MakeBuckets(Granularity by, int64_t start, int64_t end) {
  std::vector<Bucket> out;
  auto align = [by](int64_t t) {
    return by == Granularity::kHour  ? LocalHourStart(t)
           : by == Granularity::kDay ? LocalMidnight(t)
                                     : LocalWeekStart(t);
  };
  auto next = [by](int64_t t) {
    return by == Granularity::kHour  ? t + 3600
           : by == Granularity::kDay ? AddLocalDays(t, 1)
                                     : AddLocalDays(t, 7);
  };
  int64_t t = align(start);
  int64_t stop = align(end);
  if (stop < end) stop = next(stop);
  while (t < stop) {
    Bucket b;
    b.start = t;
    b.end = next(t);
    b.rows_expected = by == Granularity::kWeek ? 7 : 1;
    out.push_back(b);
    t = b.end;
  }
  return out;
}

bool Report::Build(const Input& in, std::string* error) {
  by_ = in.by;
  planned_use_ = in.planned_use;
  buckets_ = MakeBuckets(in.by, in.start, in.end);
  if (buckets_.empty()) {
    *error = "the period is empty (its end is not after its start)";
    return false;
  }

  // The tree: an account's parent is its parent_acct's account
  // association, a user's is its account's. (acct, user, partition) is
  // unique in the table, deleted rows included.
  std::map<std::string, uint32_t> account_id;
  for (const AssocRow& a : in.assocs) {
    if (a.user.empty() && a.partition.empty()) account_id[a.acct] = a.id;
  }
  std::vector<AssocNode> core_nodes;
  bool have_root = false;
  for (const AssocRow& a : in.assocs) {
    AssocNode n;
    n.id = a.id;
    n.acct = a.acct;
    n.user = a.user;
    n.partition = a.partition;
    // A deleted association holds no share among its siblings.
    n.shares_raw = a.deleted ? 0 : a.shares;
    const bool is_root = a.user.empty() && a.acct == "root";
    if (is_root) {
      if (have_root) continue;  // one root per cluster table
      have_root = true;
      n.parent_id = 0;
    } else {
      const std::string& parent = a.user.empty() ? a.parent_acct : a.acct;
      auto it = account_id.find(parent);
      n.parent_id = it == account_id.end() || it->second == a.id ? kNoParent : it->second;
    }
    core_nodes.push_back(std::move(n));
  }
  if (!have_root) {
    *error = "the association table has no root association (acct 'root', no user)";
    return false;
  }
  AssocTree tree;
  if (!tree.Build(std::move(core_nodes), /*fair_tree_shares=*/true, error)) return false;

  // Tree order: depth first from the root, users before sub-accounts, each
  // by name; then the orphans' subtrees.
  const int32_t n = static_cast<int32_t>(tree.size());
  std::vector<std::vector<int32_t>> children(n);
  std::vector<int32_t> tops;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t p = tree.links(i).parent;
    if (p >= 0) children[p].push_back(i);
    else if (i != tree.root()) tops.push_back(i);
  }
  auto order = [&tree](int32_t a, int32_t b) {
    const AssocNode& x = tree.node(a);
    const AssocNode& y = tree.node(b);
    if (x.is_user() != y.is_user()) return x.is_user();
    if (x.name() != y.name()) return x.name() < y.name();
    if (x.partition != y.partition) return x.partition < y.partition;
    return x.id < y.id;
  };
  for (auto& c : children) std::sort(c.begin(), c.end(), order);
  std::sort(tops.begin(), tops.end(), order);
  tops.insert(tops.begin(), tree.root());

  std::vector<int32_t> report_index(n, -1);
  nodes_.clear();
  for (int32_t top : tops) {
    std::vector<std::pair<int32_t, int>> stack{{top, 0}};
    while (!stack.empty()) {
      auto [i, depth] = stack.back();
      stack.pop_back();
      if (report_index[i] >= 0) continue;  // a cycle the core detached
      report_index[i] = static_cast<int32_t>(nodes_.size());
      const AssocNode& a = tree.node(i);
      Node r;
      r.id = a.id;
      r.acct = a.acct;
      r.user = a.user;
      r.partition = a.partition;
      r.depth = depth;
      r.orphan = top != tree.root();
      nodes_.push_back(r);
      for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back({*it, depth + 1});
    }
  }
  std::map<uint32_t, bool> deleted_by_id;
  std::map<uint32_t, uint32_t> shares_by_id;
  for (const AssocRow& a : in.assocs) {
    deleted_by_id[a.id] = a.deleted;
    shares_by_id[a.id] = a.shares;
  }
  std::unordered_map<uint32_t, int32_t> by_id;
  for (int32_t i = 0; i < n; ++i) {
    if (report_index[i] < 0) continue;
    Node& r = nodes_[report_index[i]];
    const AssocLinks& links = tree.links(i);
    r.parent = links.parent >= 0 ? report_index[links.parent] : -1;
    r.fs_parent = links.fs_parent >= 0 ? report_index[links.fs_parent] : -1;
    r.shares = shares_by_id[r.id];
    r.deleted = deleted_by_id[r.id];
    r.uses_parent = i != tree.root() && r.shares == kSharesUseParent && !r.deleted;
    if (i == tree.root()) {
      r.entitled_level = r.entitled_machine = 1;
    } else if (r.uses_parent) {
      r.entitled_level = r.entitled_machine = kNaN;
    } else if (r.orphan || r.deleted) {
      r.entitled_level = r.entitled_machine = 0;
    } else {
      r.entitled_level = links.level_shares == 0 || links.level_shares == kNoVal
                             ? 0
                             : static_cast<double>(tree.node(i).shares_raw) / links.level_shares;
      r.entitled_machine = MachineShare(tree, i);
    }
    by_id[r.id] = report_index[i];
  }

  // The cluster's rows: which of each bucket's roll-ups exist, and its
  // capacity.
  misaligned_ = 0;
  unknown_assoc_rows_ = 0;
  std::vector<std::set<int64_t>> present(buckets_.size());
  for (const ClusterRow& c : in.cluster) {
    const int64_t b = BucketOf(buckets_, c.time_start);
    if (b < 0) continue;
    // Not checked for alignment: a cluster's first hour row starts when
    // the cluster registered (slurmdbd's hourly roll-up), not on the hour.
    if (!present[b].insert(c.time_start).second) continue;  // counted once
    buckets_[b].capacity_secs += c.alloc_secs + c.down_secs + c.pdown_secs + c.idle_secs + c.plan_secs;
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b].rows_present = std::min<int>(static_cast<int>(present[b].size()), buckets_[b].rows_expected);
  }

  // Usage: each row into its association, then summed up the tree
  // (parents precede their children in tree order).
  const size_t nn = nodes_.size();
  usage_.assign(buckets_.size() * nn, 0);
  for (const UsageRow& u : in.usage) {
    const int64_t b = BucketOf(buckets_, u.time_start);
    if (b < 0) continue;
    auto it = by_id.find(u.assoc_id);
    if (it == by_id.end()) {
      ++unknown_assoc_rows_;
      continue;
    }
    if (!RowBoundary(by_, buckets_[b], u.time_start)) ++misaligned_;
    usage_[b * nn + it->second] += u.alloc_secs;
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    uint64_t* row = &usage_[b * nn];
    for (size_t i = nn; i-- > 1;) {
      if (nodes_[i].parent >= 0) row[nodes_[i].parent] += row[i];
    }
  }
  total_.assign(nn, 0);
  total_capacity_ = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    if (buckets_[b].missing()) continue;
    total_capacity_ += buckets_[b].capacity_secs;
    for (size_t i = 0; i < nn; ++i) total_[i] += usage_[b * nn + i];
  }
  return true;
}

Cell Report::Derive(size_t i, const uint64_t* usage, uint64_t capacity, bool missing) const {
  const Node& node = nodes_[i];
  Cell c;
  c.usage_secs = usage[i];
  if (missing) {
    c.delivered_parent = c.delivered_cluster = c.ratio = c.level_ratio = c.error = c.plan_u = kNaN;
    return c;
  }
  const double u = static_cast<double>(usage[i]);
  const double root = static_cast<double>(usage[0]);
  if (i == 0) {
    c.delivered_parent = Ratio(u, u);
  } else {
    c.delivered_parent = node.fs_parent >= 0 ? Ratio(u, static_cast<double>(usage[node.fs_parent])) : kNaN;
  }
  c.delivered_cluster = Ratio(u, root);
  c.ratio = node.uses_parent ? kNaN : Ratio(c.delivered_cluster, node.entitled_machine);
  c.level_ratio = node.uses_parent ? kNaN : Ratio(c.delivered_parent, node.entitled_level);
  c.error = node.uses_parent ? kNaN : c.delivered_cluster - node.entitled_machine;
  c.plan_u = planned_use_ && !node.uses_parent
                 ? Ratio(u, node.entitled_machine * static_cast<double>(capacity))
                 : kNaN;
  return c;
}

Cell Report::At(size_t node, size_t bucket) const {
  return Derive(node, &usage_[bucket * nodes_.size()], buckets_[bucket].capacity_secs,
                buckets_[bucket].missing());
}

Cell Report::Total(size_t node) const {
  return Derive(node, total_.data(), total_capacity_, missing_buckets() == buckets_.size());
}

size_t Report::missing_buckets() const {
  size_t m = 0;
  for (const Bucket& b : buckets_) m += b.missing();
  return m;
}

}  // namespace fairway::report
