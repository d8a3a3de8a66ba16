// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway report`'s computation, with no I/O: slurmdbd's usage roll-ups of
// one TRES, bucketed by hour, day or week, summed up the association tree,
// and set against each association's entitled share (doc/report.md).
//
// The shares come from the core's AssocTree (level shares and
// MachineShare), as the plugin normalises them; the report adds only
// ratios of sums.
//
// Defined behaviours (each tested in test/unit/report_test.cc):
//  - Time zone: buckets are local calendar hours, days (midnight to
//    midnight, 23 or 25 hours across DST) and weeks (Monday to Monday) in
//    the process's time zone, which must be slurmdbd's: its roll-ups start
//    at its local hours and midnights. A row that starts elsewhere than at
//    a bucket's row boundary is still counted in the bucket holding it, and
//    an association's row is counted in `misaligned_rows` (the report
//    warns: wrong --tz?). Cluster rows are not: a cluster's first hour row
//    starts when it registered.
//  - Missing roll-ups: a bucket whose cluster row (the <cluster>_usage_*
//    table) is absent is "missing": no share is computed for it and it is
//    left out of the period's totals. A week with some of its days
//    missing is "partial" (coverage < 1); its totals count its present
//    days.
//  - Deleted associations: listed under their last parent, flagged, with
//    an entitled share of 0 (they are no longer among their siblings); their
//    usage counts in their parent's.
//  - Reparented associations: the tree is the database's current one for
//    the whole period. An account moved to another parent (the same id)
//    counts under its new parent in every bucket. A user moved to another
//    account is a new association in Slurm: the old one is listed, deleted,
//    under the old account with the usage it had there.
//  - Fairshare=parent: such an association has no entitled share of its own
//    (it competes as its fairshare parent): its entitled shares, ratio and
//    error are not defined (NaN).
//  - Orphans (a parent that is not in the table): listed after the tree,
//    entitled 0, not summed into any parent.
#ifndef FAIRWAY_TOOL_REPORT_MODEL_H_
#define FAIRWAY_TOOL_REPORT_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace fairway::report {

enum class Granularity { kHour, kDay, kWeek };

// A row of <cluster>_assoc_table.
struct AssocRow {
  uint32_t id = 0;
  std::string acct, user, partition, parent_acct;
  uint32_t shares = 1;  // Fairshare; 0x7fffffff = "parent"
  bool deleted = false;
};

// A row of <cluster>_assoc_usage_{hour,day}_table for the report's TRES.
struct UsageRow {
  uint32_t assoc_id = 0;
  int64_t time_start = 0;
  uint64_t alloc_secs = 0;
};

// A row of <cluster>_usage_{hour,day}_table for the report's TRES.
struct ClusterRow {
  int64_t time_start = 0;
  uint64_t count = 0;
  uint64_t alloc_secs = 0, down_secs = 0, pdown_secs = 0, idle_secs = 0, plan_secs = 0,
           over_secs = 0;
};

struct Input {
  std::vector<AssocRow> assocs;
  std::vector<UsageRow> usage;      // hour rows for kHour, day rows otherwise
  std::vector<ClusterRow> cluster;  // the same table granularity
  Granularity by = Granularity::kDay;
  int64_t start = 0, end = 0;  // [start, end): local bucket boundaries
  bool planned_use = false;    // compute the planned-use measure u
};

struct Bucket {
  int64_t start = 0, end = 0;
  int rows_expected = 0;  // roll-up rows that make it up (hours or days)
  int rows_present = 0;   // of them, with a cluster row
  uint64_t capacity_secs = 0;  // TRES-seconds that existed (alloc+down+pdown+idle+plan)
  bool missing() const { return rows_present == 0; }
  double coverage() const { return rows_expected ? double(rows_present) / rows_expected : 0; }
};

struct Node {
  uint32_t id = 0;
  std::string acct, user, partition;
  int32_t parent = -1;     // index in Report::nodes; -1 for the root and orphans
  int32_t fs_parent = -1;  // the node whose usage "delivered of parent" divides by
  int depth = 0;
  uint32_t shares = 1;
  bool deleted = false;
  bool uses_parent = false;
  bool orphan = false;
  double entitled_level = 0;    // shares / level shares among fs siblings
  double entitled_machine = 0;  // the core's MachineShare
  bool is_user() const { return !user.empty(); }
};

// One node in one bucket (or over the period). NaN where not defined.
struct Cell {
  uint64_t usage_secs = 0;       // alloc seconds of the subtree
  double delivered_parent = 0;   // usage / fs parent's usage
  double delivered_cluster = 0;  // usage / the root's usage
  double ratio = 0;              // delivered_cluster / entitled_machine
  double level_ratio = 0;        // delivered_parent / entitled_level
  double error = 0;              // delivered_cluster - entitled_machine
  double plan_u = 0;             // planned use: usage / (entitled_machine x capacity)
};

class Report {
 public:
  // Builds the report; false with *error when the table has no root
  // association or the period is empty.
  bool Build(const Input& in, std::string* error);

  const std::vector<Node>& nodes() const { return nodes_; }  // tree order
  const std::vector<Bucket>& buckets() const { return buckets_; }
  Granularity by() const { return by_; }
  bool planned_use() const { return planned_use_; }
  // Node i in bucket b; NaN shares in a missing bucket.
  Cell At(size_t node, size_t bucket) const;
  // Node i over the period's present buckets.
  Cell Total(size_t node) const;
  uint64_t total_capacity_secs() const { return total_capacity_; }
  size_t missing_buckets() const;
  size_t misaligned_rows() const { return misaligned_; }
  size_t unknown_assoc_rows() const { return unknown_assoc_rows_; }

 private:
  Cell Derive(size_t node, const uint64_t* usage, uint64_t capacity, bool missing) const;

  Granularity by_ = Granularity::kDay;
  bool planned_use_ = false;
  std::vector<Node> nodes_;
  std::vector<Bucket> buckets_;
  std::vector<uint64_t> usage_;  // [bucket * nodes + node], subtree sums
  std::vector<uint64_t> total_;  // [node], over present buckets
  uint64_t total_capacity_ = 0;
  size_t misaligned_ = 0;
  size_t unknown_assoc_rows_ = 0;
};

// The buckets of [start, end) (local boundaries; see local_time.h), with
// rows_expected set: one row per hour, or per day. start and end are first
// aligned down to the bucket's boundary (end up to one, unless aligned).
std::vector<Bucket> MakeBuckets(Granularity by, int64_t start, int64_t end);

// "hour", "day", "week".
const char* GranularityName(Granularity by);

}  // namespace fairway::report

#endif  // FAIRWAY_TOOL_REPORT_MODEL_H_
