// SPDX-License-Identifier: GPL-2.0-or-later
// The one recovery rule: from what the plugin read of its state files at
// start, decide from when running jobs are charged, which last reset to
// keep, and whether usage must be rebuilt from slurmdbd (doc/reliability.md,
// "State files"). Pure: the plugin reads the files and passes the bytes (or
// that they were missing or unreadable) and "now"; nothing here reads a file
// or a clock.
//
// The two clocks compared:
// - priority_last_decay_ran (multifactor's 16 bytes: last_ran, last_reset,
//   big-endian): when running jobs were last charged. Both plugins write it
//   every pass; it carries no checksum, so it is never trusted alone.
// - the header of Slurm's assoc_usage (pack16 protocol version, then
//   pack_time of when it was saved, slurm-22-05-8-1:src/common/assoc_mgr.c
//   dump_assoc_mgr_state): when the usage slurmctld restored was saved. It
//   is written in the same write as the usage it describes, so it cannot
//   disagree with it; running jobs were charged in that usage up to at
//   most that instant.
#ifndef FAIRWAY_STATE_RECOVERY_H_
#define FAIRWAY_STATE_RECOVERY_H_

#include <cstdint>
#include <string>

namespace fairway {

// A time stamp before this (2010-01-01 00:00 UTC) is damage, not history.
constexpr int64_t kPlausibleEpoch = 1262304000;
// How far in the future a stamp may be (clock steps between a save and a
// start) before it is damage.
constexpr int64_t kClockSkewSeconds = 300;

enum class FileState { kOk, kMissing, kDamaged };

// priority_last_decay_ran (or its .old copy), as read.
struct DecayClock {
  FileState state = FileState::kMissing;
  int64_t last_ran = 0;
  int64_t last_reset = 0;
  std::string why;  // when damaged: what is wrong
};

// Parses multifactor's format. Guarantees: kOk only for exactly 16 bytes
// with both stamps >= 0 (plausibility against "now" is the decision's job);
// otherwise kDamaged with why saying what is wrong.
DecayClock ParseDecayClock(const std::string& bytes);
// A clock whose stamps can be believed at `now`: last_ran in
// [kPlausibleEpoch, now + skew], last_reset 0 or in the same range.
bool PlausibleClock(const DecayClock& clock, int64_t now, std::string* why);
// The 16 bytes multifactor and Fairway write.
std::string SerializeDecayClock(int64_t last_ran, int64_t last_reset);

// Slurm's assoc_usage, as read.
struct UsageFile {
  FileState state = FileState::kMissing;
  bool has_records = false;  // at least one association record
  int64_t saved_at = 0;      // header time (kOk only)
  std::string why;           // when damaged (or empty): what is wrong
};

// Parses assoc_usage: pack16 version in [min_version, max_version], 64-bit
// save time, then whole records (pack32 id, packstr usage, packstr TRES
// usage, pack32 wall), big-endian. Guarantees: kOk only when every byte
// belongs to a whole record; zero bytes, a short header, a bad version or a
// cut record is kDamaged (Slurm then restores no usage or only part).
UsageFile ParseAssocUsage(const std::string& bytes, uint16_t min_version, uint16_t max_version);

struct RecoveryInput {
  DecayClock clock;      // priority_last_decay_ran
  DecayClock clock_old;  // priority_last_decay_ran.old (for last_reset only)
  UsageFile usage;       // assoc_usage
  int64_t now = 0;
  int64_t calc_period_s = 300;
  // The most recent reset boundary PriorityUsageResetPeriod gives at now;
  // 0 for NONE (all history counts).
  int64_t configured_last_reset = 0;
};

struct RecoveryDecision {
  // Running jobs are charged from here on the first pass. 0: no point
  // known and no usage to protect (a first start, or usage that is to be
  // rebuilt): classic modes charge nothing until the clock exists, Fair
  // Tree charges from each job's start.
  int64_t charge_from = 0;
  int64_t last_reset = 0;       // 0: unknown (the caller uses its start time)
  bool rebuild_usage = false;   // assoc_usage missing, empty or cut: rebuild it
  bool error = false;           // log `message` at error level (else info)
  std::string message;          // one line; empty when all is consistent
};

// The recovery rule. Guarantees:
// - charge_from is never earlier than the instant the restored usage was
//   saved unless the decay clock is valid, plausible and less than one calc
//   period older than that save (a clock a period older is followed by a
//   pass the usage may hold: its .old copy, say): running jobs are
//   never charged twice;
// - charge_from is never after now;
// - the .old clock never sets charge_from (it is older than the usage);
// - every disagreement or damage yields error = true and a message naming
//   the file, what is wrong and from when jobs are charged.
RecoveryDecision DecideRecovery(const RecoveryInput& in);

}  // namespace fairway

#endif  // FAIRWAY_STATE_RECOVERY_H_
