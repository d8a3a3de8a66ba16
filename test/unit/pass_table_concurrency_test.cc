// SPDX-License-Identifier: GPL-2.0-or-later
// The one pass table under the boundary's locks: sprio's reads (job read
// lock and the table lock) while passes run, whose gather writes the same
// table (job read lock, the table lock a few hundred jobs at a time) and
// whose store writes priorities (job write lock), and while priority_p_set
// stores a job's own priority (job write lock, fw_pass_forget). Every
// factors sprio gets agree with the job's priority at that moment. Meant
// to run clean under ThreadSanitizer (make check-tsan): a read without the
// table lock races with the gather.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "api/fairway_api.h"
#include "api_test_support.h"

namespace fairway::test {
namespace {

constexpr uint32_t kJobs = 3000;
constexpr uint32_t kFirstId = 500;
constexpr int kPasses = 12;
constexpr int kMaxPasses = 5000;
constexpr uint64_t kReads = 20000;
constexpr uint32_t kTableHold = 512;  // as job_gather.c

// slurmctld's job lock, the boundary's table lock, and what the job
// records hold (the priority the scheduler reads).
struct Controller {
  std::shared_mutex job_lock;
  std::mutex table_lock;
  std::vector<uint32_t> priority = std::vector<uint32_t>(kJobs, 1);
};

fw_job_input_t JobAt(uint32_t i, int pass) {
  fw_job_input_t in{};
  in.job_id = kFirstId + i;
  in.record_index = i;
  in.scalars.nice = FW_NICE_OFFSET + (i % 7 == static_cast<uint32_t>(pass) % 7 ? pass : 0);
  in.scalars.site_factor = FW_NICE_OFFSET;
  in.scalars.time_limit_min = 60;
  in.scalars.min_nodes = 1;
  in.scalars.min_cpus = 1 + i % 4;
  in.scalars.max_cpus = FW_NO_VAL;
  in.scalars.accrue_time = 1700000000 - 3600 * static_cast<int64_t>(i % 48);
  in.scalars.has_assoc = true;
  in.scalars.fairshare_factor = 0.001 * (i % 1000);
  in.partition = FW_NO_PARTITION;
  return in;
}

// One decay pass, locked as fw_decay_pass locks it.
void RunPass(Controller* c, fw_pass_t* pass, const fw_config_t* config, int n) {
  const fw_cluster_t cluster{64, 8};
  const int64_t now = 1700000000 + 600 * static_cast<int64_t>(n);
  {
    std::shared_lock<std::shared_mutex> job_read(c->job_lock);
    std::unique_lock<std::mutex> table(c->table_lock);
    fw_pass_begin(pass, config, &cluster, now);
    for (uint32_t i = 0; i < kJobs; ++i) {
      if (i % kTableHold == kTableHold - 1) {
        table.unlock();
        table.lock();
      }
      if ((i + static_cast<uint32_t>(n)) % 10 == 0) continue;  // not pending this pass
      fw_job_input_t in = JobAt(i, n);
      in.priority = c->priority[i];
      uint64_t* stamp = fw_pass_add(pass, &in, nullptr);
      if (stamp) *stamp = in.job_id;
    }
    fw_pass_end_gather(pass);
  }
  bool finished = false;
  while (!finished) {
    std::unique_lock<std::shared_mutex> job_write(c->job_lock);
    fw_store_item_t item{};
    bool stored = false;
    while (fw_pass_store_next(pass, stored, &item)) {
      c->priority[item.job_id - kFirstId] = item.factors.priority;
      stored = true;
    }
    finished = fw_pass_store_end_slice(pass);
  }
}

TEST(PassTableConcurrency, SprioReadsFactorsThatAgreeWithThePriority) {
  ConfigHolder config(DefaultInput());
  fw_pass_t* pass = fw_pass_create();
  Controller c;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> found{0}, disagreed{0};
  // Readers pause between lists: std::shared_mutex may let readers that
  // never pause starve the writers.
  auto sprio = [&] {
    while (!done.load()) {
      {
        std::shared_lock<std::shared_mutex> job_read(c.job_lock);
        for (uint32_t i = 0; i < kJobs; i += 7) {
          fw_factors_t f{};
          std::lock_guard<std::mutex> table(c.table_lock);
          if (!fw_pass_factors(pass, kFirstId + i, &f)) continue;
          ++found;
          if (f.priority != c.priority[i]) ++disagreed;
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };
  // priority_p_set: a job's own priority stored, the pass's forgotten.
  auto set_priority = [&] {
    for (uint32_t k = 0; !done.load(); k = (k + 31) % kJobs) {
      std::unique_lock<std::shared_mutex> job_write(c.job_lock);
      c.priority[k] += 1;
      fw_pass_forget(pass, kFirstId + k);
      job_write.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  };
  std::thread reader_a(sprio), reader_b(sprio), setter(set_priority);
  // Passes until the readers have read many factors (a pass takes a
  // millisecond or so; the readers need time to start).
  for (int n = 0; n < kMaxPasses && (n < kPasses || found.load() < kReads); ++n) {
    RunPass(&c, pass, config.get(), n);
  }
  done = true;
  reader_a.join();
  reader_b.join();
  setter.join();
  EXPECT_GE(found.load(), kReads);
  EXPECT_EQ(disagreed.load(), 0u);
  fw_pass_destroy(pass);
}

}  // namespace
}  // namespace fairway::test
