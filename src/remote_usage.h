// SPDX-License-Identifier: GPL-2.0-or-later
// The usage of the other clusters that share slurmdbd
// (PriorityParameters=fairshare_clusters; doc/configuration.md "One
// fairshare across clusters"), kept per cluster and per association path,
// so that fairshare is computed on local plus remote usage.
//
// Associations are matched across clusters by their path, as LSF's global
// fair share matches share accounts: the chain of accounts from the root,
// then the user and partition ("root/a/b", "root/a/b|alice",
// "root/a/b|alice|gpu"). Usage is decayed billing-seconds, as the usage
// bootstrap computes it from job records (DecayedJobUsage).
//
// A sync of one cluster takes the jobs slurmdbd returns for FetchSince
// (those that ran in [since, now]: ended since, or still running):
//  - an ended job is charged once into `ended` (its decayed usage at the
//    sync), remembered by (job id, submit time) while a later fetch can
//    return it again, so a repeated sync charges nothing twice;
//  - running jobs are recomputed at each sync into `running`, which the
//    next sync replaces: a job is in `running` until it ends, then in
//    `ended`, never both;
//  - a job seen running keeps FetchSince at or before its start until it
//    is seen ended, so an end record that reaches slurmdbd late is still
//    fetched.
// Between syncs, and when slurmdbd cannot be reached, both sums decay with
// the local half-life. Pure; not thread-safe (callers serialise).
#ifndef FAIRWAY_REMOTE_USAGE_H_
#define FAIRWAY_REMOTE_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "assoc_tree.h"
#include "planned_use.h"

namespace fairway {

// An association of a remote cluster, as slurmdbd lists it.
struct RemoteAssoc {
  uint32_t id = 0;
  std::string acct, user, partition, parent_acct;
};

// A job record of a remote cluster.
struct RemoteJob {
  uint32_t job_id = 0;
  int64_t submit = 0;
  uint32_t assoc_id = 0;
  int64_t start = 0;  // 0: never started (a federation sibling that did not run)
  int64_t end = 0;    // 0: still running
  double billing = 0;
};

// Paths of a cluster's associations, by id: an account's is its parent's
// path and its name, a user's its account's path, '|', user[, '|',
// partition]. Associations whose chain does not reach "root" get none.
std::map<uint32_t, std::string> RemotePaths(const std::vector<RemoteAssoc>& assocs);
// The same path for node i of a local tree ("" for orphans).
std::string LocalPath(const AssocTree& tree, int32_t i);

struct RemoteClusterUsage {
  int64_t high_water = 0;  // the last sync's time; 0 = never synced
  int64_t as_of = 0;       // when ended and running were last decayed to
  std::map<std::string, long double> ended;    // path -> ended jobs' usage
  std::map<std::string, long double> running;  // path -> running jobs' usage
  // Ended jobs charged, (job id, submit) -> end, while a fetch can return
  // them again (end >= the next FetchSince).
  std::map<std::pair<uint32_t, int64_t>, int64_t> charged;
  // Jobs seen running, (job id, submit) -> start.
  std::map<std::pair<uint32_t, int64_t>, int64_t> open;
  // Planned use (PlannedUseLedger's H and c per path, undecayed billing
  // charged interval by interval): the ended jobs', rolled to plan_index,
  // and the running jobs' as of the last sync (recounted each sync).
  int64_t plan_index = -1;
  std::map<std::string, PlannedUseEntry> plan_ended, plan_running;
  // Not saved: the associations' paths by id from the last associations a
  // sync was given, when, and the highest id among them. A sync given none
  // reuses them (NeedsAssocs says when it cannot).
  std::map<uint32_t, std::string> paths;
  int64_t paths_at = 0;  // 0: none since the controller started
  uint32_t paths_max_id = 0;
};

// How long a cluster's association paths are reused before a sync asks
// slurmdbd for its associations again: a reparented or renamed account
// there counts under its new path within this time.
constexpr int64_t kRemoteAssocRefreshS = 3600;

// The planned-use interval and its decay D, for the remote ledgers.
struct RemotePlan {
  int64_t interval_s = 86400;
  double per_interval_decay = 1;
  // Used() rolls and copies the ledger entries only when they are read
  // (planned use); Sync keeps them always, so that a switch to planned use
  // finds them.
  bool wanted = true;
  // The ledger's interval at t (RemoteUsed::plan_index).
  int64_t IndexAt(int64_t t) const { return interval_s > 0 ? t / interval_s : 0; }
};

// Rolls per-path ledger entries from interval `from` to `to` as
// PlannedUseLedger::Roll does (H <- c + D*H at the first boundary, H <- D*H
// at each further one, c <- 0); nothing when to <= from or from < 0.
void RollPlanEntries(std::map<std::string, PlannedUseEntry>* entries, int64_t from, int64_t to,
                     double per_interval_decay);

struct RemoteSyncResult {
  size_t charged = 0;         // ended jobs charged by this sync
  size_t running = 0;         // running jobs counted
  size_t repeated = 0;        // ended jobs charged before (not again)
  size_t without_path = 0;    // jobs of associations with no path
  long double charged_usage = 0;  // what the charged jobs added
};

// One cluster's usage per path, in path order, as a pass adds it. The
// paths point into the maps the view was made from: valid while those are
// unchanged (a pass holds the remote-usage mutex). A pass adds tens of
// thousands of paths: a view copies none.
using PathUsageView = std::vector<std::pair<const std::string*, long double>>;
// By cluster name: the order in which a path's usages are summed.
using ClustersView = std::map<std::string, PathUsageView>;

// What one fairshare computation used: per cluster and path, the scaled
// usage decayed to `at`, and each cluster's last sync. The plugin writes it
// after each pass (StateSaveLocation/fairway_remote_used), so that
// `fairway explain` reproduces the pass exactly and shows each cluster's
// part.
struct RemoteUsed {
  int64_t at = 0;
  std::map<std::string, int64_t> synced_at;  // cluster -> its last sync (0: never)
  std::map<std::string, std::map<std::string, long double>> by_cluster;  // cluster -> path -> usage
  // Planned use: cluster -> path -> the ledger entry (scaled), rolled to
  // at's interval (plan_index), ended and running jobs together.
  int64_t plan_index = -1;
  std::map<std::string, std::map<std::string, PlannedUseEntry>> plan_by_cluster;
  // Per path, the ledger entries summed over the clusters.
  std::map<std::string, PlannedUseEntry> PlanSum() const;
  // Per path, the sum over the clusters.
  std::map<std::string, long double> Sum() const;
  // by_cluster as a view (pointing into it).
  ClustersView View() const;
  // Format FWRT 2, checksummed (state_codec.h); Parse rejects damage.
  std::string Serialize() const;
  // The same text for a RemoteUsed whose by_cluster holds view's values
  // (plan_by_cluster as given): what a pass writes without copying them.
  static std::string SerializeView(int64_t at, int64_t plan_index,
                                   const std::map<std::string, int64_t>& synced_at,
                                   const ClustersView& view,
                                   const std::map<std::string, std::map<std::string, PlannedUseEntry>>&
                                       plan_by_cluster);
  static bool Parse(const std::string& bytes, RemoteUsed* out, std::string* error);
};

class RemoteUsage {
 public:
  // How far back a fetch reaches on a first sync: ten half-lives (usage
  // older than that weighs under 0.1%), at most a year, as the usage
  // bootstrap; a year without decay.
  static int64_t DecayWindow(int64_t half_life_s);

  // The start of the jobs the next sync of `cluster` fetches: the decay
  // window on its first sync; else the last sync's time, or the start of
  // the earliest job it saw running if earlier; never before the decay
  // window.
  int64_t FetchSince(const std::string& cluster, int64_t now, int64_t half_life_s) const;

  // Whether a sync of `cluster` at `now` with these jobs needs the
  // cluster's associations: none kept since the controller started, kept
  // for kRemoteAssocRefreshS or longer, or a job that ran names an
  // association newer than them (ids grow; an older id not among them is a
  // deleted association, whose jobs have no path).
  bool NeedsAssocs(const std::string& cluster, const std::vector<RemoteJob>& jobs,
                   int64_t now) const;

  // One sync of `cluster` at `now` with the jobs slurmdbd returned for
  // FetchSince and, when given (not null), the cluster's associations (for
  // the paths; kept for the next syncs). Without them the kept paths are
  // used: requires !NeedsAssocs(cluster, jobs, now).
  // plan: the planned-use ledgers are kept too (always, so that a switch
  // to planned use finds them).
  RemoteSyncResult Sync(const std::string& cluster, const std::vector<RemoteAssoc>* assocs,
                        const std::vector<RemoteJob>& jobs, int64_t now, double decay_per_second,
                        int64_t half_life_s, const RemotePlan& plan = RemotePlan());

  // Forgets the clusters not named.
  void Keep(const std::vector<std::string>& names);

  // Per cluster of `clusters` (name, scale) and path, scale x (ended +
  // running) decayed from its as_of to now, and the planned-use entries
  // rolled to now's interval (RemoteUsed::Sum and PlanSum add them up).
  RemoteUsed Used(const std::vector<std::pair<std::string, double>>& clusters, int64_t now,
                  double decay_per_second, const RemotePlan& plan = RemotePlan()) const;
  // Used(clusters, now, decay_per_second).by_cluster, the same values, as
  // a view into this object; each cluster's last sync into *synced_at
  // (Used's synced_at) when not null.
  ClustersView UsedView(const std::vector<std::pair<std::string, double>>& clusters, int64_t now,
                        double decay_per_second, std::map<std::string, int64_t>* synced_at) const;

  const std::map<std::string, RemoteClusterUsage>& clusters() const { return clusters_; }

  // The state file's bytes, and back: magic, version, each cluster's
  // state, and a checksum over all of it (state_codec.h). Parse rejects a
  // truncated, wrong-version or corrupted buffer with a reason.
  std::string Serialize() const;
  static bool Parse(const std::string& bytes, RemoteUsage* out, std::string* error);

 private:
  std::map<std::string, RemoteClusterUsage> clusters_;
};

// The usage of `path` and of every path below it (its sub-accounts and
// users) in by_path.
long double RemoteUsageUnder(const std::map<std::string, long double>& by_path, const std::string& path);

// Adds each path's ledger entry to its node of `tree` and every ancestor in
// *ledger (ids as the tree's), as ChargePath charges; paths no node has are
// dropped.
void AddRemotePlan(const AssocTree& tree, const std::map<std::string, PlannedUseEntry>& by_path,
                   PlannedUseLedger* ledger);

// Node index by LocalPath, for RemoteSubtreeUsage.
using LocalPathIndex = std::unordered_map<std::string, int32_t>;
LocalPathIndex MakeLocalPathIndex(const AssocTree& tree);
// A fingerprint of what the tree's local paths depend on (the node count;
// each node's id, parent, account, user and partition): an index made for
// one tree serves another with the same signature, but with a chance of
// 2^-64.
uint64_t LocalPathSignature(const AssocTree& tree);

// Per node of `tree`, the remote usage of its subtree: for each path, in
// path order, the sum of its usage over the clusters (in name order, from
// 0), added to the node with that path (index, made for tree) and to every
// ancestor. Paths no node has are appended to *unmatched (when not null),
// their usage dropped.
std::vector<long double> RemoteSubtreeUsage(const AssocTree& tree, const ClustersView& by_cluster,
                                            const LocalPathIndex& index,
                                            std::vector<std::string>* unmatched);
// The same for usage already summed per path (one cluster's view).
std::vector<long double> RemoteSubtreeUsage(const AssocTree& tree,
                                            const std::map<std::string, long double>& by_path,
                                            std::vector<std::string>* unmatched);

}  // namespace fairway

#endif  // FAIRWAY_REMOTE_USAGE_H_
