// SPDX-License-Identifier: GPL-2.0-or-later
// JobRoster must give exactly slurmctld's job list, in its order, or refuse
// (the pass then walks the list). A model of the controller's two views of
// its jobs, the list in append order and the by-id lookup, goes through
// what slurmctld does to them: submissions with increasing ids and gaps,
// purges, job array splits, ids set by hand, wrap-around at MaxJobId.
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "job_roster.h"

namespace fairway {
namespace {

struct FakeJob {
  uint32_t id = 0;
  uint32_t array_id = 0;  // job arrays: the array's id (slurmctld's array_job_id)
};

class FakeController {
 public:
  explicit FakeController(uint32_t max_job_id = 1000000) : max_job_id_(max_job_id) {}

  FakeJob* Submit() { return Add(NextId()); }
  FakeJob* SubmitArray() {
    FakeJob* job = Submit();
    job->array_id = job->id;
    return job;
  }
  FakeJob* SubmitWithId(uint32_t id) { return Add(id); }
  void SkipIds(uint32_t n) { next_id_ += n; }  // failed submissions
  void Purge(uint32_t id) {
    auto it = std::find_if(list_.begin(), list_.end(),
                           [id](const std::unique_ptr<FakeJob>& j) { return j->id == id; });
    by_id_.erase(id);
    // Kept allocated, so that no later record has its address: a record
    // that reuses a purged one's address and id is the one change the
    // roster cannot see (job_roster.h), and only an id set by hand makes it.
    graveyard_.push_back(std::move(*it));
    list_.erase(it);
  }
  // slurmctld's job_array_split: a new record at the end of the list takes
  // the array's id; the record in place gets a new id.
  void SplitArray(uint32_t id) {
    FakeJob* in_place = by_id_.at(id);
    by_id_.erase(id);
    Add(id)->array_id = id;
    in_place->id = NextId();
    by_id_[in_place->id] = in_place;
  }

  std::vector<FakeJob*> Walk() const {
    std::vector<FakeJob*> out;
    for (const auto& j : list_) out.push_back(j.get());
    return out;
  }
  FakeJob* Find(uint32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }
  size_t Count() const { return list_.size(); }
  uint32_t max_job_id() const { return max_job_id_; }
  size_t lookups = 0;

 private:
  // slurmctld's get_next_job_id: the sequence, past ids in use, wrapping
  // at MaxJobId.
  uint32_t NextId() {
    for (;;) {
      if (next_id_ >= max_job_id_) next_id_ = 1;
      if (!by_id_.count(next_id_)) return next_id_++;
      ++next_id_;
    }
  }
  FakeJob* Add(uint32_t id) {
    list_.push_back(std::make_unique<FakeJob>());
    list_.back()->id = id;
    by_id_[id] = list_.back().get();
    return list_.back().get();
  }
  std::list<std::unique_ptr<FakeJob>> list_;
  std::vector<std::unique_ptr<FakeJob>> graveyard_;
  std::unordered_map<uint32_t, FakeJob*> by_id_;
  uint32_t next_id_ = 1;
  uint32_t max_job_id_;
};

// What the boundary keeps and does (job_find.c): the records in list
// order, the lookups the roster asks for, and a walk when it refuses.
struct Finder {
  JobRoster roster;
  std::vector<FakeJob*> records;
};

// The lookups of job_find.c's refind against ctl, with expected records:
// false when the boundary itself refuses (a record moved, a job array) or
// the roster does.
bool Refind(FakeController& ctl, Finder* f, size_t expected) {
  const uint32_t* known_ids = nullptr;
  size_t known = 0;
  uint32_t id = 0;
  if (!f->roster.Known(&known_ids, &known, &id)) return false;
  std::vector<FakeJob*> found;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < known; ++i) {
    ++ctl.lookups;
    FakeJob* job = ctl.Find(known_ids[i]);
    if (!job) continue;
    if (job != f->records[i] || found.size() == expected) return false;
    found.push_back(job);
    ids.push_back(known_ids[i]);
  }
  const size_t first_new = found.size();
  for (uint32_t last = id - 1;
       found.size() < expected && id < ctl.max_job_id() && id - last <= JobRoster::kMaxIdGap;
       ++id) {
    ++ctl.lookups;
    FakeJob* job = ctl.Find(id);
    if (!job) continue;
    if (job->array_id) return false;
    found.push_back(job);
    ids.push_back(last = id);
  }
  if (!f->roster.Accept(ids.data(), ids.size(), first_new, expected, ctl.max_job_id())) {
    return false;
  }
  f->records = found;
  return true;
}

// What the pass does: the roster if it can, else a walk.
bool FindJobs(FakeController& ctl, Finder* f) {
  if (Refind(ctl, f, ctl.Count())) return true;
  f->records = ctl.Walk();
  std::vector<uint32_t> ids;
  for (FakeJob* j : f->records) ids.push_back(j->id);
  f->roster.AssignWalked(ids.data(), ids.size());
  return false;
}

std::vector<FakeJob*> Records(const Finder& f) { return f.records; }

TEST(JobRoster, WalksUntilItHasBeenGivenAWalk) {
  FakeController ctl;
  for (int i = 0; i < 5; ++i) ctl.Submit();
  Finder roster;
  EXPECT_FALSE(FindJobs(ctl, &roster));  // the first pass walks
  EXPECT_EQ(Records(roster), ctl.Walk());
  EXPECT_TRUE(FindJobs(ctl, &roster));
  EXPECT_EQ(Records(roster), ctl.Walk());
}

TEST(JobRoster, FollowsPurgesAndNewJobsInListOrder) {
  FakeController ctl;
  for (int i = 0; i < 100; ++i) ctl.Submit();
  Finder roster;
  FindJobs(ctl, &roster);
  ctl.Purge(1);
  ctl.Purge(50);
  ctl.Purge(100);
  ctl.SkipIds(300);  // a gap of failed submissions, under the limit
  for (int i = 0; i < 10; ++i) ctl.Submit();
  ASSERT_TRUE(FindJobs(ctl, &roster));
  EXPECT_EQ(Records(roster), ctl.Walk());
  std::vector<uint32_t> ids(roster.roster.ids().begin(), roster.roster.ids().end());
  ASSERT_EQ(ids.size(), 107u);
  EXPECT_EQ(ids.front(), 2u);
  EXPECT_EQ(ids.back(), 410u);
  // The largest ids were purged: new ones are still searched above them.
  ctl.Purge(410);
  ctl.Submit();
  ASSERT_TRUE(FindJobs(ctl, &roster));
  EXPECT_EQ(Records(roster), ctl.Walk());
}

TEST(JobRoster, AnEmptyListIsFoundWithoutLookingUpNewIds) {
  FakeController ctl;
  ctl.Submit();
  Finder roster;
  FindJobs(ctl, &roster);
  ctl.Purge(1);
  ctl.lookups = 0;
  ASSERT_TRUE(FindJobs(ctl, &roster));
  EXPECT_TRUE(roster.records.empty());
  EXPECT_EQ(ctl.lookups, 1u);  // the one known id
}

TEST(JobRoster, RefusesWhatItCannotOrderOrFind) {
  struct Case {
    const char* what;
    void (*change)(FakeController&);
  };
  const Case cases[] = {
      {"a gap wider than kMaxIdGap",
       [](FakeController& c) {
         c.SkipIds(JobRoster::kMaxIdGap + 1);
         c.Submit();
       }},
      {"an id set by hand below the largest", [](FakeController& c) { c.SubmitWithId(5000); }},
      {"a job array task split off", [](FakeController& c) { c.SplitArray(c.Walk()[3]->id); }},
      {"a job array submitted", [](FakeController& c) { c.SubmitArray(); }},
      {"a task split off an array submitted since",
       [](FakeController& c) {
         const uint32_t array = c.SubmitArray()->id;
         c.Submit();
         c.SplitArray(array);
       }},
      {"a record replaced under its id",
       [](FakeController& c) {
         const uint32_t id = c.Walk()[0]->id;
         c.Purge(id);
         c.SubmitWithId(id);
       }},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.what);
    FakeController ctl;
    for (int i = 0; i < 20; ++i) ctl.Submit();
    ctl.SkipIds(10000);
    for (int i = 0; i < 20; ++i) ctl.Submit();
    Finder roster;
    FindJobs(ctl, &roster);
    ASSERT_TRUE(FindJobs(ctl, &roster));
    test.change(ctl);
    EXPECT_FALSE(FindJobs(ctl, &roster));
    EXPECT_EQ(Records(roster), ctl.Walk());  // from the walk
    EXPECT_TRUE(FindJobs(ctl, &roster));     // and from it, the roster again
    EXPECT_EQ(Records(roster), ctl.Walk());
  }
}

TEST(JobRoster, RefusesIdsThatWrappedAroundAtMaxJobId) {
  FakeController ctl(/*max_job_id=*/100);
  for (int i = 0; i < 98; ++i) ctl.Submit();  // ids 1..98
  Finder roster;
  FindJobs(ctl, &roster);
  ctl.Purge(1);
  ctl.Purge(2);
  ctl.Submit();  // 99, the last id below MaxJobId
  ASSERT_TRUE(FindJobs(ctl, &roster));
  ctl.Submit();  // wraps: 1
  EXPECT_FALSE(FindJobs(ctl, &roster));
  EXPECT_EQ(Records(roster), ctl.Walk());
}

// The count is the list's, the lookups the hash table's: when the two
// disagree (more records found than the list holds, or fewer), the roster
// cannot be the list.
TEST(JobRoster, RefusesWhenTheLookupsAndTheListCountDisagree) {
  FakeController ctl;
  for (int i = 0; i < 10; ++i) ctl.Submit();
  Finder roster;
  FindJobs(ctl, &roster);
  EXPECT_FALSE(Refind(ctl, &roster, ctl.Count() - 1));
  EXPECT_FALSE(Refind(ctl, &roster, ctl.Count() + 1));
  EXPECT_EQ(Records(roster), ctl.Walk());  // unchanged by either refusal
  EXPECT_TRUE(Refind(ctl, &roster, ctl.Count()));
}

// The roster checks what the caller found: the known ids in their order,
// then new ids ascending above them, gaps and MaxJobId respected, as many
// as the list holds.
TEST(JobRoster, AcceptsOnlyWhatTheRuleAllows) {
  JobRoster roster;
  const uint32_t walked[] = {10, 11, 12};
  ASSERT_TRUE(roster.AssignWalked(walked, 3));
  const uint32_t* known = nullptr;
  size_t count = 0;
  uint32_t next = 0;
  ASSERT_TRUE(roster.Known(&known, &count, &next));
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(next, 13u);
  const uint32_t reordered[] = {11, 10, 12};
  EXPECT_FALSE(roster.Accept(reordered, 3, 3, 3, 100));
  const uint32_t unknown[] = {10, 13, 12};
  EXPECT_FALSE(roster.Accept(unknown, 3, 3, 3, 100));
  const uint32_t new_below[] = {10, 12, 11};
  EXPECT_FALSE(roster.Accept(new_below, 3, 2, 3, 100));
  const uint32_t too_far[] = {10, 12, 12 + JobRoster::kMaxIdGap + 1};
  EXPECT_FALSE(roster.Accept(too_far, 3, 2, 3, 20000));
  const uint32_t far[] = {10, 12, 12 + JobRoster::kMaxIdGap};
  EXPECT_FALSE(roster.Accept(far, 3, 2, 3, 12 + JobRoster::kMaxIdGap));  // at MaxJobId
  EXPECT_FALSE(roster.Accept(far, 3, 2, 4, 20000));  // the list holds 4
  EXPECT_TRUE(roster.Accept(far, 3, 2, 3, 20000));
  EXPECT_EQ(std::vector<uint32_t>(roster.ids().begin(), roster.ids().end()),
            std::vector<uint32_t>(far, far + 3));
  ASSERT_TRUE(roster.Known(&known, &count, &next));
  EXPECT_EQ(next, 12 + JobRoster::kMaxIdGap + 1);
  roster.Invalidate();
  EXPECT_FALSE(roster.Known(&known, &count, &next));
  EXPECT_FALSE(roster.Accept(far, 3, 3, 3, 20000));
}

TEST(JobRoster, AWalkWithARepeatedOrMissingIdIsNotReused) {
  JobRoster roster;
  const uint32_t repeated[] = {7, 7}, missing[] = {7, 0}, one[] = {7};
  EXPECT_FALSE(roster.AssignWalked(repeated, 2));
  const uint32_t* known = nullptr;
  size_t count = 0;
  uint32_t next = 0;
  EXPECT_FALSE(roster.Known(&known, &count, &next));  // nothing to look up: walk
  EXPECT_EQ(count, 0u);
  EXPECT_FALSE(roster.AssignWalked(missing, 2));
  EXPECT_TRUE(roster.AssignWalked(one, 1));
  const uint32_t spread[] = {1, 4000000000u, 2};
  EXPECT_TRUE(AllDistinctJobIds(spread, 3));  // the sorting branch
  const uint32_t spread_twice[] = {1, 4000000000u, 1};
  EXPECT_FALSE(AllDistinctJobIds(spread_twice, 3));
}

// Random histories: whenever the roster answers, it is the walk's set of
// records, in the walk's order, and it answers most of the time. The one
// order it cannot see: a job given an id by hand above the largest found
// since the last walk sits among the jobs submitted since by its id, not by when it
// was submitted; that order stays the roster's until it walks again.
TEST(JobRoster, EqualsTheWalkOverRandomHistories) {
  std::mt19937_64 gen(20261124);
  size_t refound = 0, passes = 0;
  for (int history = 0; history < 40; ++history) {
    FakeController ctl(/*max_job_id=*/history % 4 == 0 ? 3000 : 1000000);
    Finder roster;
    bool order_unseen = false;
    uint32_t largest_found = 0;  // since the last walk: new ids are searched above it
    for (int pass = 0; pass < 60; ++pass) {
      const int events = static_cast<int>(gen() % 21);
      for (int e = 0; e < events; ++e) {
        const unsigned kind = gen() % 1000;  // per mille
        const std::vector<FakeJob*> jobs = ctl.Walk();
        if (kind < 500 || jobs.empty()) {
          ctl.Submit();
        } else if (kind < 515) {
          ctl.SubmitArray();
        } else if (kind < 865) {
          ctl.Purge(jobs[gen() % jobs.size()]->id);
        } else if (kind < 965) {
          ctl.SkipIds(static_cast<uint32_t>(gen() % 50));
        } else if (kind < 980) {
          std::vector<uint32_t> arrays;
          for (const FakeJob* j : jobs) {
            if (j->array_id == j->id) arrays.push_back(j->id);
          }
          if (!arrays.empty()) ctl.SplitArray(arrays[gen() % arrays.size()]);
        } else if (kind < 995) {
          uint32_t id = static_cast<uint32_t>(1 + gen() % 2000);
          if (!ctl.Find(id)) {
            order_unseen |= id > largest_found;
            ctl.SubmitWithId(id);
          }
        } else {
          ctl.SkipIds(JobRoster::kMaxIdGap + static_cast<uint32_t>(gen() % 10));
        }
      }
      const bool answered = FindJobs(ctl, &roster);
      ++passes;
      refound += answered;
      if (!answered) {  // a walk: the order is the list's, the search starts anew
        order_unseen = false;
        largest_found = 0;
      }
      for (uint32_t id : roster.roster.ids()) largest_found = std::max(largest_found, id);
      SCOPED_TRACE("history " + std::to_string(history) + " pass " + std::to_string(pass));
      std::vector<FakeJob*> found = Records(roster), walked = ctl.Walk();
      std::vector<uint32_t> ids;
      for (const FakeJob* j : found) ids.push_back(j->id);
      ASSERT_EQ(std::vector<uint32_t>(roster.roster.ids().begin(), roster.roster.ids().end()), ids);
      if (order_unseen) {
        std::sort(found.begin(), found.end());
        std::sort(walked.begin(), walked.end());
      }
      ASSERT_EQ(found, walked);
    }
  }
  EXPECT_GT(refound, passes / 2);
}

}  // namespace
}  // namespace fairway
