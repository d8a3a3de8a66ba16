// SPDX-License-Identifier: GPL-2.0-or-later
// fw_fairshare, fw_one_assoc_usage and fw_calc_fs_factor against the core
// (ComputeFairshare, ComputeOneAssocUsage, CalcFsFactor) on a small tree, in
// every mode: what the plugin writes into assoc_mgr's records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <string>
#include <vector>

#include "api/fairway_api.h"
#include "api_test_support.h"
#include "classic.h"
#include "fairshare.h"
#include "planned_use.h"
#include "decay.h"
#include "api/api_internal.h"
#include "remote_usage.h"
#include "usage_bootstrap.h"

namespace fairway::test {
namespace {

// root {A (3) {u1 (1), u2 (2)}, B (1) {u3 (1)}}: the tree's entries in
// depth-first order, then the whole list (each record again, and one orphan
// no children list reaches).
struct Snapshot {
  int records[8];
  std::vector<fw_assoc_input_t> in;
  std::vector<AssocNode> nodes;  // what the core is given, in tree order
};

void Add(Snapshot* s, int record, uint32_t id, uint32_t parent, const char* acct,
         const char* user, uint32_t shares, long double usage, bool listed_only) {
  fw_assoc_input_t a{};
  a.key = &s->records[record];
  a.id = id;
  a.parent_id = parent;
  // Ids are record + 1 here: the parent's record, as assoc_mgr's pointer.
  a.parent_key = parent ? &s->records[parent - 1] : nullptr;
  a.listed_only = listed_only;
  a.acct = acct;
  a.user = user;
  a.shares_raw = shares;
  a.usage_raw = usage;
  a.priority = id * 10;
  // assoc_mgr's normalisation: deliberately unlike the core's, so that a
  // test sees which one was used.
  a.level_shares = 7;
  a.shares_norm = 0.01 * id;
  a.priority_norm = 0.5;
  s->in.push_back(a);
}

Snapshot MakeSnapshot() {
  Snapshot s;
  Add(&s, 0, 1, 0, "root", nullptr, 1, 1000, false);
  Add(&s, 1, 2, 1, "a", nullptr, 3, 700, false);
  Add(&s, 2, 3, 2, "a", "u1", 1, 600, false);
  Add(&s, 3, 4, 2, "a", "u2", 2, 100, false);
  Add(&s, 4, 5, 1, "b", nullptr, 1, 300, false);
  Add(&s, 5, 6, 5, "b", "u3", 1, 300, false);
  // assoc_mgr's whole list: every record again, and an orphan.
  for (int r = 0; r < 6; ++r) {
    fw_assoc_input_t again = s.in[r];
    again.listed_only = true;
    s.in.push_back(again);
  }
  Add(&s, 6, 9, 2, "a", "lost", 1, 50, true);
  for (size_t k = 0; k < s.in.size(); ++k) {
    if (k >= 6 && k < 12) continue;
    const fw_assoc_input_t& a = s.in[k];
    AssocNode n;
    n.id = a.id;
    n.parent_id = a.listed_only ? kNoVal : a.parent_id;
    n.acct = a.acct;
    n.user = a.user ? a.user : "";
    n.shares_raw = a.shares_raw;
    n.usage_raw = a.usage_raw;
    n.priority = a.priority;
    s.nodes.push_back(n);
  }
  return s;
}

fw_config_input_t ModeInput(FairshareMode mode) {
  fw_config_input_t in = DefaultInput();
  switch (mode) {
    case FairshareMode::kClassic: in.flags = 0; break;
    case FairshareMode::kDepthOblivious: in.flags = 1u << 3; break;
    case FairshareMode::kFairTree: break;
    case FairshareMode::kRanged: in.priority_parameters = "fairshare=ranged"; break;
    case FairshareMode::kPlannedUse: in.priority_parameters = "fairshare=planned_use"; break;
  }
  return in;
}

Params ParamsOf(const fw_config_input_t& in) {
  Params p;
  p.flags = in.flags;
  p.weight_fairshare = in.weight_fairshare;
  p.decay_half_life_s = in.decay_half_life_s;
  if (in.priority_parameters) ParsePriorityParameters(in.priority_parameters, &p);
  return p;
}

// The core's results, to compare with, in tree order.
FairshareResults Expected(const Snapshot& s, const Params& p, bool override_normalization,
                          const PlannedUseLedger* ledger, double cpus) {
  AssocTree tree;
  std::string error;
  std::vector<ShareNormalization> given;
  for (size_t k = 0; k < s.in.size(); ++k) {
    if (k >= 6 && k < 12) continue;
    given.push_back(
        ShareNormalization{s.in[k].level_shares, s.in[k].shares_norm, s.in[k].priority_norm});
  }
  EXPECT_TRUE(tree.Build(s.nodes, SharesNormalizedLikeFairTree(p.Mode()), &error,
                         override_normalization ? &given : nullptr))
      << error;
  return ComputeFairshare(tree, p, ledger, cpus);
}

// Every fairshare field written, and whether it is, alike in both.
void ExpectSameWrites(const fw_assoc_result_t& got, const fw_assoc_result_t& want) {
  EXPECT_EQ(got.write_usage, want.write_usage);
  EXPECT_EQ(got.usage_norm, want.usage_norm);
  EXPECT_EQ(got.usage_efctv, want.usage_efctv);
  EXPECT_EQ(got.write_level_fs, want.write_level_fs);
  EXPECT_EQ(got.level_fs, want.level_fs);
  EXPECT_EQ(got.write_fs_factor, want.write_fs_factor);
  EXPECT_EQ(got.fs_factor, want.fs_factor);
}

constexpr FairshareMode kModes[] = {FairshareMode::kClassic, FairshareMode::kDepthOblivious,
                                    FairshareMode::kFairTree, FairshareMode::kRanged,
                                    FairshareMode::kPlannedUse};

void CheckWritten(const Snapshot& s, const FairshareResults& expected, bool fair_tree,
                  const std::vector<fw_assoc_result_t>& out, const std::string& what) {
  // Input k -> tree node: 0..5 are nodes 0..5, 6..11 duplicates, 12 node 6.
  for (size_t k = 0; k < s.in.size(); ++k) {
    const fw_assoc_result_t& r = out[k];
    SCOPED_TRACE(what + " input " + std::to_string(k));
    if (k >= 6 && k < 12) {  // duplicates: nothing written through them
      EXPECT_FALSE(r.write_usage || r.write_level_fs || r.write_fs_factor);
      continue;
    }
    if (k == 12) {  // the orphan is never computed
      EXPECT_FALSE(r.write_usage || r.write_level_fs || r.write_fs_factor);
      continue;
    }
    const AssocFairshare& e = expected.assocs[k];
    if (k == 0) {
      EXPECT_FALSE(r.write_usage);
      EXPECT_EQ(r.write_level_fs, fair_tree);
      if (fair_tree) {
        EXPECT_EQ(r.level_fs, static_cast<long double>(FW_NO_VAL));
      }
      EXPECT_FALSE(r.write_fs_factor);
      EXPECT_FALSE(r.write_usage_raw);  // the root's usage is its children's
      continue;
    }
    EXPECT_TRUE(r.write_usage);
    EXPECT_EQ(r.usage_norm, e.usage_norm);
    EXPECT_EQ(r.usage_efctv, e.usage_efctv);
    EXPECT_EQ(r.write_level_fs, fair_tree);
    if (fair_tree) {
      EXPECT_EQ(r.level_fs, e.level_fs);
    }
    // Fair Tree's modes: users'; classic modes: every association's.
    const bool user = s.in[k].user != nullptr;
    EXPECT_EQ(r.write_fs_factor, !fair_tree || user);
    if (r.write_fs_factor) {
      EXPECT_EQ(r.fs_factor, e.job_factor);
    }
    EXPECT_FALSE(r.write_usage_raw);
  }
}

TEST(ApiFairshare, EveryModeWritesWhatTheCoreComputes) {
  const Snapshot s = MakeSnapshot();
  for (FairshareMode mode : kModes) {
    const fw_config_input_t in = ModeInput(mode);
    ConfigHolder c(in);
    const Params p = ParamsOf(in);
    ASSERT_EQ(p.Mode(), mode);
    const bool family = SharesNormalizedLikeFairTree(mode);
    for (bool slurm_fair_tree : {false, true}) {
      std::vector<fw_assoc_result_t> out(s.in.size());
      ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), slurm_fair_tree, nullptr, 64,
                               out.data()));
      const bool override_normalization = slurm_fair_tree == family;
      const FairshareResults expected = Expected(s, p, override_normalization, nullptr, 64);
      CheckWritten(s, expected, family, out,
                   std::string(FairshareModeName(mode)) + (override_normalization ? " (assoc_mgr's shares)" : ""));
    }
  }
}

// PriorityParameters=fairshare_clusters: another cluster's usage, matched
// by path, joins the local usage of the association and its ancestors
// before the fairshare is computed, in every mode that reads usage_raw;
// the root's RawUsage is never written.
TEST(ApiFairshare, RemoteUsageJoinsTheLocalUsageByPath) {
  const Snapshot s = MakeSnapshot();
  const int64_t now = 1'800'000'000;
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kDepthOblivious,
                             FairshareMode::kFairTree, FairshareMode::kRanged}) {
    fw_config_input_t in = ModeInput(mode);
    std::string parameters = std::string(in.priority_parameters ? in.priority_parameters : "");
    parameters += std::string(parameters.empty() ? "" : ",") + "fairshare_clusters=other:0.5";
    in.priority_parameters = parameters.c_str();
    in.cluster_name = "here";
    ConfigHolder c(in);
    ASSERT_EQ(c.settings().remote_cluster_cnt, 1u);
    EXPECT_STREQ(c.settings().remote_clusters[0], "other");
    fw_remote_t* remote = fw_remote_create();
    const fw_remote_assoc_t assocs[] = {{100, "root", "", "", ""},
                                        {101, "b", "", "", "root"},
                                        {102, "b", "u3", "", ""},
                                        {103, "x", "", "", "root"},
                                        {104, "x", "nobody", "", ""}};
    const fw_remote_job_t jobs[] = {{1, now - 2000, 102, now - 1000, now - 100, "1=4,5=4"},
                                    {2, now - 2000, 104, now - 1000, now - 100, "1=4,5=4"}};
    fw_remote_sync_t sync;
    fw_remote_sync(remote, c.get(), "other", assocs, 5, jobs, 2, now, &sync);
    EXPECT_EQ(sync.charged, 2u);
    // What the core is to see: u3, b and the root gain half the job's
    // decayed usage (scale 0.5); x|nobody has no association here.
    const Params p = ParamsOf(in);
    JobUsageRecord job{102, now - 1000, now - 100, 4};
    const long double extra = 0.5L * DecayedJobUsage(job, now, DecayFactorPerSecond(p.decay_half_life_s));
    Snapshot want = s;
    for (size_t k : {0, 4, 5}) want.nodes[k].usage_raw += extra;
    std::vector<fw_assoc_result_t> out(s.in.size());
    Logged().clear();
    ASSERT_TRUE(fw_fairshare_with_remote(c.get(), s.in.data(), s.in.size(), false, nullptr, 64,
                                         remote, now, out.data()));
    const bool family = SharesNormalizedLikeFairTree(mode);
    CheckWritten(s, Expected(want, p, !family, nullptr, 64), family, out,
                 std::string(FairshareModeName(mode)) + " with remote usage");
    // The unmatched path is said once.
    size_t said = 0;
    for (const LoggedLine& l : Logged()) said += l.text.find("root/x|nobody") != std::string::npos;
    EXPECT_EQ(said, 1u);
    ASSERT_TRUE(fw_fairshare_with_remote(c.get(), s.in.data(), s.in.size(), false, nullptr, 64,
                                         remote, now, out.data()));
    said = 0;
    for (const LoggedLine& l : Logged()) said += l.text.find("root/x|nobody") != std::string::npos;
    EXPECT_EQ(said, 1u);
    // The file explain reads holds what was added, made after the pass.
    fw_remote_prepare_used(remote, c.get());
    size_t length = 0;
    char* bytes = fw_remote_used_serialize(remote, &length);
    ASSERT_NE(bytes, nullptr);
    RemoteUsed used;
    std::string why;
    ASSERT_TRUE(RemoteUsed::Parse(std::string(bytes, length), &used, &why)) << why;
    free(bytes);
    EXPECT_EQ(used.at, now);
    EXPECT_EQ(used.by_cluster.at("other").at("root/b|u3"), extra);
    EXPECT_EQ(used.by_cluster.at("other").count("root/x|nobody"), 1u);
    // Without the remote state, the local usage alone.
    ASSERT_TRUE(fw_fairshare_with_remote(c.get(), s.in.data(), s.in.size(), false, nullptr, 64,
                                         nullptr, now, out.data()));
    CheckWritten(s, Expected(s, p, !family, nullptr, 64), family, out, "without remote state");
    fw_remote_destroy(remote);
  }
}

TEST(ApiFairshare, UnreachedAreTheListedRecordsTheWalkMissed) {
  int records[6];
  // The walk reached 0, 1, 2 and, through a cycle, 1 again; the list holds
  // every record, 4 twice.
  const void* reached[] = {&records[0], &records[1], &records[2], &records[1]};
  const void* listed[] = {&records[3], &records[0], &records[4], &records[1],
                          &records[2], &records[5], &records[4]};
  size_t unreached[7];
  ASSERT_EQ(fw_assocs_unreached(reached, 4, listed, 7, unreached), 4u);
  EXPECT_EQ(unreached[0], 0u);
  EXPECT_EQ(unreached[1], 2u);
  EXPECT_EQ(unreached[2], 5u);
  EXPECT_EQ(unreached[3], 6u);
  // Nothing reached: all of them; nothing listed: none.
  ASSERT_EQ(fw_assocs_unreached(nullptr, 0, listed, 7, unreached), 7u);
  EXPECT_EQ(unreached[6], 6u);
  EXPECT_EQ(fw_assocs_unreached(reached, 4, nullptr, 0, unreached), 0u);
}

TEST(ApiFairshare, OnlyTheUnreachedListedRecordsWriteTheSame) {
  // The plugin gives the walk and the listed records it missed; the whole
  // list after the walk (the contract's other form) writes the same.
  const Snapshot whole = MakeSnapshot();
  std::vector<const void*> reached, listed;
  for (size_t k = 0; k < whole.in.size(); ++k) {
    (whole.in[k].listed_only ? listed : reached).push_back(whole.in[k].key);
  }
  std::vector<size_t> unreached(listed.size());
  const size_t missed = fw_assocs_unreached(reached.data(), reached.size(), listed.data(),
                                            listed.size(), unreached.data());
  ASSERT_EQ(missed, 1u);  // the orphan
  std::vector<fw_assoc_input_t> walk(whole.in.begin(), whole.in.begin() + reached.size());
  walk.push_back(whole.in[reached.size() + unreached[0]]);
  for (FairshareMode mode : kModes) {
    ConfigHolder c(ModeInput(mode));
    std::vector<fw_assoc_result_t> from_whole(whole.in.size()), from_walk(walk.size());
    ASSERT_TRUE(fw_fairshare(c.get(), whole.in.data(), whole.in.size(), true, nullptr, 64,
                             from_whole.data()));
    ASSERT_TRUE(
        fw_fairshare(c.get(), walk.data(), walk.size(), true, nullptr, 64, from_walk.data()));
    for (size_t k = 0; k < walk.size(); ++k) {
      const size_t w = k < reached.size() ? k : reached.size() + unreached[0];
      SCOPED_TRACE(std::string(FairshareModeName(mode)) + " entry " + std::to_string(k));
      ExpectSameWrites(from_walk[k], from_whole[w]);
    }
  }
}

TEST(ApiFairshare, AssocMgrNormalisationChangesTheResult) {
  // The override is visible: a test that could not tell the two apart
  // would prove nothing above.
  const Snapshot s = MakeSnapshot();
  ConfigHolder c(ModeInput(FairshareMode::kClassic));
  std::vector<fw_assoc_result_t> own(s.in.size()), slurms(s.in.size());
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, nullptr, 64, own.data()));
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), false, nullptr, 64, slurms.data()));
  EXPECT_NE(own[2].usage_efctv, slurms[2].usage_efctv);
}

TEST(ApiFairshare, PlannedUseReadsTheLedgerAndCapacity) {
  const Snapshot s = MakeSnapshot();
  const fw_config_input_t in = ModeInput(FairshareMode::kPlannedUse);
  ConfigHolder c(in);
  const Params p = ParamsOf(in);
  // Charge u1 through the C interface (its path: u1, a, root).
  fw_ledger_t* ledger = fw_ledger_create();
  fw_ledger_roll(ledger, c.get(), 1700000000);
  const uint32_t path[] = {3, 2, 1};
  fw_charge_input_t job{};
  job.start_time = 1700000000;
  job.end_period = 1700000000 + 72000;
  job.end_time_exp = job.end_period + 100;
  job.time_limit_min = 600;
  job.billable_tres = 2000;
  job.assoc_path = path;
  job.assoc_path_length = 3;
  fw_charge_t charge{};
  fw_charge_job(c.get(), &job, ledger, &charge);
  fw_ledger_roll(ledger, c.get(), 1700000000 + 86400);
  std::vector<fw_assoc_result_t> out(s.in.size());
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, ledger, 64, out.data()));
  size_t length = 0;
  char* bytes = fw_ledger_serialize(ledger, &length);
  PlannedUseLedger copy;
  std::string why;
  ASSERT_TRUE(ParseLedger(std::string(bytes, length), &copy, &why));
  std::free(bytes);
  const FairshareResults expected = Expected(s, p, true, &copy, 64);
  CheckWritten(s, expected, true, out, "planned use with a ledger");
  EXPECT_LT(out[2].fs_factor, 1.0);  // u1 is beyond its plan
  // Without the ledger every factor is 1.
  std::vector<fw_assoc_result_t> empty(s.in.size());
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, nullptr, 64, empty.data()));
  EXPECT_EQ(empty[2].fs_factor, 1.0);
  // NO_VAL CPUs: no capacity (every rate 0), as the plugin had it.
  std::vector<fw_assoc_result_t> none(s.in.size());
  ASSERT_TRUE(
      fw_fairshare(c.get(), s.in.data(), s.in.size(), true, ledger, FW_NO_VAL, none.data()));
  CheckWritten(s, Expected(s, p, true, &copy, 0), true, none, "planned use, no capacity");

  // fairshare_clusters: another cluster's ledger entries join a copy of
  // the ledger along the path (b/u3, b, root), nothing else changes.
  fw_config_input_t remote_in = in;
  remote_in.priority_parameters = "fairshare=planned_use,fairshare_clusters=other";
  ConfigHolder rc(remote_in);
  const int64_t now = 1700000000 + 86400;
  fw_remote_t* remote = fw_remote_create();
  const fw_remote_assoc_t assocs[] = {{100, "root", "", "", ""}, {101, "b", "", "", "root"},
                                      {102, "b", "u3", "", ""}};
  const fw_remote_job_t jobs[] = {{1, now - 90000, 102, now - 80000, now - 100, "1=4,5=4000"}};
  fw_remote_sync_t sync;
  fw_remote_sync(remote, rc.get(), "other", assocs, 3, jobs, 1, now, &sync);
  ASSERT_EQ(sync.charged, 1u);
  std::vector<fw_assoc_result_t> with_remote(s.in.size());
  ASSERT_TRUE(fw_fairshare_with_remote(rc.get(), s.in.data(), s.in.size(), true, ledger, 64, remote, now,
                                       with_remote.data()));
  const RemoteUsed used = remote->last_used;
  PlannedUseLedger combined = copy;
  AssocTree tree;
  ASSERT_TRUE(tree.Build(s.nodes, true, &why)) << why;
  AddRemotePlan(tree, used.PlanSum(), &combined);
  ASSERT_GT(combined.entries.at(6).history + combined.entries.at(6).open, 0);
  // Its usage joins the tree's too (usage_norm), as in the other modes.
  Snapshot want = s;
  const std::vector<long double> extra = RemoteSubtreeUsage(tree, used.Sum(), nullptr);
  for (size_t k = 0; k < want.nodes.size(); ++k) want.nodes[k].usage_raw += extra[k];
  CheckWritten(s, Expected(want, ParamsOf(remote_in), true, &combined, 64), true, with_remote,
               "planned use with the other cluster's ledger");
  EXPECT_LT(with_remote[5].fs_factor, 1.0);  // u3 is beyond its plan with the other cluster's usage
  EXPECT_EQ(out[5].fs_factor, 1.0);         // and within it on local usage alone
  fw_remote_destroy(remote);
  fw_ledger_destroy(ledger);
}

TEST(ApiFairshare, NoTreeIsLoggedAndNothingWritten) {
  Snapshot s = MakeSnapshot();
  // Two records with id 3 and no id left above the largest to give one of
  // them (ids that mean NO_VAL and INFINITE are never given): no tree.
  s.in[3].id = 3;
  s.in[5].id = 0xfffffffd;
  ConfigHolder c(ModeInput(FairshareMode::kFairTree));
  std::vector<fw_assoc_result_t> out(s.in.size());
  out[2].write_usage = true;  // untouched on failure
  Logged().clear();
  EXPECT_FALSE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, nullptr, 64, out.data()));
  EXPECT_TRUE(out[2].write_usage);
  ASSERT_EQ(LinesAt(FW_LOG_ERROR).size(), 1u);
  EXPECT_EQ(LinesAt(FW_LOG_ERROR)[0].rfind("fairshare: the association records make no tree", 0),
            0u);
}

TEST(ApiFairshare, WithoutSlurmdbdNothingIsWritten) {
  const Snapshot s = MakeSnapshot();
  fw_config_input_t in = ModeInput(FairshareMode::kFairTree);
  in.with_slurmdbd = false;
  ConfigHolder c(in);
  std::vector<fw_assoc_result_t> out(s.in.size());
  for (fw_assoc_result_t& r : out) r.write_usage = true;
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, nullptr, 64, out.data()));
  for (const fw_assoc_result_t& r : out) {
    EXPECT_FALSE(r.write_usage || r.write_level_fs || r.write_fs_factor);
  }
}

TEST(ApiFairshare, OneAssocUsageIsTheCores) {
  const long double siblings[] = {0.2L, 0.5L, 0.1L};
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kDepthOblivious}) {
    ConfigHolder c(ModeInput(mode));
    fw_one_assoc_input_t in{};
    in.usage_raw = 300;
    in.root_usage_raw = 1000;
    in.has_fs_parent = true;
    in.parent_efctv = 0.4L;
    in.shares_raw = 2;
    in.level_shares = 5;
    in.shares_norm = 0.2;
    in.parent_shares_norm = 0.5;
    in.sibling_usage_norm = siblings;
    in.sibling_count = 3;
    in.self_index = 1;
    fw_one_assoc_usage_t out{};
    fw_one_assoc_usage(c.get(), &in, &out);
    OneAssocUsageInputs core;
    core.usage_raw = 300;
    core.root_usage_raw = 1000;
    core.parent_efctv = 0.4L;
    core.shares_raw = 2;
    core.level_shares = 5;
    core.shares_norm = 0.2;
    core.parent_shares_norm = 0.5;
    core.sibling_usage_norm = siblings;
    core.sibling_count = 3;
    core.self_index = 1;
    const bool oblivious = mode == FairshareMode::kDepthOblivious;
    const OneAssocUsage expected = ComputeOneAssocUsage(core, oblivious);
    EXPECT_TRUE(out.has_efctv);
    EXPECT_EQ(out.usage_norm, expected.usage_norm);
    EXPECT_EQ(out.usage_efctv, expected.usage_efctv);
    EXPECT_EQ(out.usage_norm, 0.3L);
    // Fairshare=parent: the core tells it from shares_raw as Slurm stores
    // it (the plugin copies the field, it does not decide) and takes the
    // parent's effective usage.
    in.shares_raw = kSharesUseParent;
    fw_one_assoc_usage(c.get(), &in, &out);
    core.shares_raw = kSharesUseParent;
    core.uses_parent = true;
    EXPECT_EQ(out.usage_efctv, ComputeOneAssocUsage(core, oblivious).usage_efctv);
    EXPECT_EQ(out.usage_efctv, 0.4L);
    in.shares_raw = 2;
    // No fairshare parent: usage_norm only.
    in.has_fs_parent = false;
    fw_one_assoc_usage(c.get(), &in, &out);
    EXPECT_FALSE(out.has_efctv);
    EXPECT_EQ(out.usage_norm, 0.3L);
  }
  // The two modes differ on this input, so the mode was read.
  ConfigHolder classic(ModeInput(FairshareMode::kClassic));
  ConfigHolder oblivious(ModeInput(FairshareMode::kDepthOblivious));
  fw_one_assoc_input_t in{};
  in.usage_raw = 300;
  in.root_usage_raw = 1000;
  in.has_fs_parent = true;
  in.parent_efctv = 0.4L;
  in.shares_raw = 2;
  in.level_shares = 5;
  in.shares_norm = 0.2;
  in.parent_shares_norm = 0.5;
  in.sibling_usage_norm = siblings;
  in.sibling_count = 3;
  in.self_index = 1;
  fw_one_assoc_usage_t a{}, b{};
  fw_one_assoc_usage(classic.get(), &in, &a);
  fw_one_assoc_usage(oblivious.get(), &in, &b);
  EXPECT_NE(a.usage_efctv, b.usage_efctv);
}

TEST(ApiFairshare, CalcFsFactorIsTheCores) {
  EXPECT_EQ(fw_calc_fs_factor(0.25L, 0.5L, 1), CalcFsFactor(0.25L, 0.5L, 1));
  EXPECT_DOUBLE_EQ(fw_calc_fs_factor(0.25L, 0.5L, 1), 0.70710678118654752);
  EXPECT_EQ(fw_calc_fs_factor(static_cast<long double>(FW_NO_VAL), 0.5L, 1), 0.0);
  EXPECT_EQ(fw_calc_fs_factor(0.25L, 0.5L, 0), 0.0);
}

// Fairshare=parent: the classic modes read the fairshare parent's usage and
// shares (the plugin's gather and fw_assocs_set_fs_factor copy the record
// this names), and the association's own when it has no parent.
TEST(ApiFairshare, FairshareFromParentOnlyForParentWithAParent) {
  EXPECT_TRUE(fw_fairshare_from_parent(kSharesUseParent, true));
  EXPECT_FALSE(fw_fairshare_from_parent(kSharesUseParent, false));
  EXPECT_FALSE(fw_fairshare_from_parent(1, true));
  EXPECT_FALSE(fw_fairshare_from_parent(0, true));
  EXPECT_FALSE(fw_fairshare_from_parent(FW_NO_VAL, true));
  // DEPTH_OBLIVIOUS's siblings leave out the Fairshare=parent ones only.
  EXPECT_FALSE(fw_depth_oblivious_sibling(kSharesUseParent));
  EXPECT_TRUE(fw_depth_oblivious_sibling(1));
  EXPECT_TRUE(fw_depth_oblivious_sibling(0));
  EXPECT_TRUE(fw_depth_oblivious_sibling(FW_NO_VAL));
  EXPECT_EQ(kSharesUseParent, 0x7fffffffu);  // Slurm's SLURMDB_FS_USE_PARENT
}

}  // namespace
}  // namespace fairway::test

namespace fairway::test {
namespace {

// Classic modes: sshare's FairShare (from Slurm 25.11 the stored fs_factor)
// for every association, with or without a job, as multifactor's
// _set_assoc_fs_factor: 2^(-UE/S) of the association, or of its fairshare
// parent when its Fairshare is "parent".
TEST(ApiFairshare, ClassicModesSetEveryAssociationsFsFactor) {
  Snapshot s = MakeSnapshot();
  s.in[3].usage_raw = 0;                    // u2: never ran a job
  s.in[5].shares_raw = kSharesUseParent;    // u3: Fairshare=parent
  for (FairshareMode mode : {FairshareMode::kClassic, FairshareMode::kDepthOblivious}) {
    ConfigHolder c(ModeInput(mode));
    std::vector<fw_assoc_result_t> out(s.in.size());
    ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), true, nullptr, 64, out.data()));
    // Recomputed by hand from what was written: each association's
    // effective usage over its classic normalised shares (assoc_mgr
    // normalised for Fair Tree, so the core derives them): a 3/4, b 1/4,
    // u1 1/4 (1 of a's 3), u2 1/2, u3 b's.
    const double shares[6] = {0, 0.75, 0.25, 0.5, 0.25, 0};
    for (size_t k = 1; k < 6; ++k) {
      SCOPED_TRACE(std::string(FairshareModeName(mode)) + " input " + std::to_string(k));
      ASSERT_TRUE(out[k].write_fs_factor);
      size_t fs = k;
      if (s.in[k].shares_raw == kSharesUseParent) fs = s.in[k].parent_id - 1;
      EXPECT_DOUBLE_EQ(out[k].fs_factor,
                       std::pow(2.0, -static_cast<double>(out[fs].usage_efctv) / shares[fs]));
    }
    EXPECT_EQ(out[5].fs_factor, out[4].fs_factor);  // u3 takes b's
    EXPECT_GT(out[3].fs_factor, out[2].fs_factor);  // u2 (no usage) above u1
    EXPECT_FALSE(out[0].write_fs_factor);           // the root has none
  }
}

// Two records with one id (a damaged cache; slurmdbd never sends them):
// linked by key, each is computed as its own association, every value
// equals what distinct ids give, and the log says so once per id.
TEST(ApiFairshare, RecordsSharingAnIdAreEachComputed) {
  const Snapshot distinct = MakeSnapshot();
  Snapshot shared = MakeSnapshot();
  shared.in[4].id = 2;              // b takes a's id...
  shared.in[5].parent_id = 2;       // ...and u3 names it (its key names b)
  shared.in[10].id = 2;             // the whole list's copy of b
  shared.in[11].parent_id = 2;
  for (FairshareMode mode : kModes) {
    ConfigHolder c(ModeInput(mode));
    std::vector<fw_assoc_result_t> want(distinct.in.size()), got(shared.in.size());
    ASSERT_TRUE(fw_fairshare(c.get(), distinct.in.data(), distinct.in.size(), true, nullptr, 64,
                             want.data()));
    Logged().clear();
    for (int pass = 0; pass < 2; ++pass) {
      ASSERT_TRUE(fw_fairshare(c.get(), shared.in.data(), shared.in.size(), true, nullptr, 64,
                               got.data()));
    }
    const std::vector<std::string> errors = LinesAt(FW_LOG_ERROR);
    ASSERT_EQ(errors.size(), 1u) << FairshareModeName(mode);
    EXPECT_NE(errors[0].find("more than one association record has id 2"), std::string::npos);
    for (size_t k = 0; k < 6; ++k) {
      SCOPED_TRACE(std::string(FairshareModeName(mode)) + " input " + std::to_string(k));
      ExpectSameWrites(got[k], want[k]);
    }
  }
}

// The root's usage counted twice (assoc_mgr after slurmdbd returns): the
// fairshare of every association is what the true root gives, and the sum
// is handed back to be written.
TEST(ApiFairshare, RootUsageBeyondItsChildrenIsTheirSum) {
  const Snapshot sound = MakeSnapshot();
  Snapshot doubled = MakeSnapshot();
  doubled.in[0].usage_raw = 2000;  // a 700 + b 300 under it
  for (FairshareMode mode : kModes) {
    ConfigHolder c(ModeInput(mode));
    std::vector<fw_assoc_result_t> want(sound.in.size()), got(doubled.in.size());
    ASSERT_TRUE(fw_fairshare(c.get(), sound.in.data(), sound.in.size(), true, nullptr, 64,
                             want.data()));
    Logged().clear();
    ASSERT_TRUE(fw_fairshare(c.get(), doubled.in.data(), doubled.in.size(), true, nullptr, 64,
                             got.data()));
    SCOPED_TRACE(FairshareModeName(mode));
    ASSERT_TRUE(got[0].write_usage_raw);
    EXPECT_EQ(got[0].usage_raw, 1000.0L);
    ASSERT_EQ(LinesAt(FW_LOG_ERROR).size(), 1u);
    EXPECT_NE(LinesAt(FW_LOG_ERROR)[0].find("RawUsage 2000 is more than the 1000"),
              std::string::npos);
    for (size_t k = 1; k < 6; ++k) {
      EXPECT_EQ(got[k].usage_norm, want[k].usage_norm) << k;
      EXPECT_EQ(got[k].usage_efctv, want[k].usage_efctv) << k;
      EXPECT_EQ(got[k].level_fs, want[k].level_fs) << k;
      EXPECT_EQ(got[k].fs_factor, want[k].fs_factor) << k;
    }
  }
}

TEST(ApiFairshare, RootUsageIsKeptWhenItIsNotBeyondItsChildren) {
  ConfigHolder c(ModeInput(FairshareMode::kClassic));
  Snapshot s = MakeSnapshot();
  std::vector<fw_assoc_result_t> out(s.in.size());
  // Rounding of separate decays; a removed child's usage kept by the root;
  // a root below its children (after a rebuild that dropped a removed
  // association's jobs: never raised); no parent_key (the tool's rows).
  s.in[0].usage_raw = 1000 * (1 + 1e-15L);
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), false, nullptr, 64, out.data()));
  EXPECT_FALSE(out[0].write_usage_raw);
  s.in[0].usage_raw = 1250;
  s.in[0].removed_usage_raw = 250;
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), false, nullptr, 64, out.data()));
  EXPECT_FALSE(out[0].write_usage_raw);
  s.in[0].usage_raw = 900;
  s.in[0].removed_usage_raw = 0;
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), false, nullptr, 64, out.data()));
  EXPECT_FALSE(out[0].write_usage_raw);
  s.in[0].usage_raw = 2000;
  Snapshot shared = s;  // records sharing an id: the root's total is kept
  shared.in[4].id = 2;
  shared.in[10].id = 2;
  ASSERT_TRUE(fw_fairshare(c.get(), shared.in.data(), shared.in.size(), false, nullptr, 64,
                           out.data()));
  EXPECT_FALSE(out[0].write_usage_raw);
  for (fw_assoc_input_t& a : s.in) a.parent_key = nullptr;
  ASSERT_TRUE(fw_fairshare(c.get(), s.in.data(), s.in.size(), false, nullptr, 64, out.data()));
  EXPECT_FALSE(out[0].write_usage_raw);
}

TEST(ApiFairshare, SumUsageTresAddsChildrenAndRemoved) {
  const long double a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, removed[3] = {100, 0, 0};
  const long double* children[2] = {a, b};
  long double out[3];
  fw_sum_usage_tres(children, 2, removed, 3, out);
  EXPECT_EQ(out[0], 111.0L);
  EXPECT_EQ(out[1], 22.0L);
  EXPECT_EQ(out[2], 33.0L);
  fw_sum_usage_tres(children, 2, nullptr, 3, out);
  EXPECT_EQ(out[0], 11.0L);
}

}  // namespace
}  // namespace fairway::test
