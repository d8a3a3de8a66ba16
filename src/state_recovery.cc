// SPDX-License-Identifier: GPL-2.0-or-later
#include "state_recovery.h"

#include <algorithm>

namespace fairway {

namespace {

constexpr size_t kDecayClockSize = 16;
constexpr size_t kUsageHeaderSize = 2 + 8;  // pack16 version + pack_time

uint64_t GetBigEndian(const std::string& bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// "1700000000 (42 s before the start)": when and how long ago.
std::string When(int64_t t, int64_t now) {
  std::string s = std::to_string(t);
  if (t <= now) return s + " (" + std::to_string(now - t) + " s before this start)";
  return s + " (" + std::to_string(t - now) + " s after this start)";
}

bool PlausibleStamp(int64_t t, int64_t now, const char* what, std::string* why) {
  if (t < kPlausibleEpoch) {
    *why = std::string(what) + " " + std::to_string(t) + " is before 2010";
    return false;
  }
  if (t > now + kClockSkewSeconds) {
    *why = std::string(what) + " " + std::to_string(t) + " is " + std::to_string(t - now) +
           " s in the future";
    return false;
  }
  return true;
}

// Why the clock cannot be used, for messages: "missing", or the damage.
std::string ClockProblem(const DecayClock& clock, int64_t now) {
  if (clock.state == FileState::kMissing) return "is missing";
  if (clock.state == FileState::kDamaged) return "is damaged (" + clock.why + ")";
  std::string why;
  if (!PlausibleClock(clock, now, &why)) return "is damaged (" + why + ")";
  return "";
}

}  // namespace

DecayClock ParseDecayClock(const std::string& bytes) {
  DecayClock clock;
  if (bytes.size() != kDecayClockSize) {
    clock.state = FileState::kDamaged;
    clock.why = "file is " + std::to_string(bytes.size()) + " bytes, expected 16";
    return clock;
  }
  const auto last_ran = static_cast<int64_t>(GetBigEndian(bytes, 0, 8));
  const auto last_reset = static_cast<int64_t>(GetBigEndian(bytes, 8, 8));
  if (last_ran < 0 || last_reset < 0) {
    clock.state = FileState::kDamaged;
    clock.why = "negative time stamps";
    return clock;
  }
  clock.state = FileState::kOk;
  clock.last_ran = last_ran;
  clock.last_reset = last_reset;
  return clock;
}

bool PlausibleClock(const DecayClock& clock, int64_t now, std::string* why) {
  if (clock.state != FileState::kOk) {
    *why = clock.why;
    return false;
  }
  if (!PlausibleStamp(clock.last_ran, now, "last_ran", why)) return false;
  return clock.last_reset == 0 || PlausibleStamp(clock.last_reset, now, "last_reset", why);
}

std::string SerializeDecayClock(int64_t last_ran, int64_t last_reset) {
  std::string out(kDecayClockSize, '\0');
  for (int half = 0; half < 2; ++half) {
    uint64_t v = static_cast<uint64_t>(half == 0 ? last_ran : last_reset);
    for (int i = 7; i >= 0; --i) {
      out[half * 8 + i] = static_cast<char>(v & 0xff);
      v >>= 8;
    }
  }
  return out;
}

UsageFile ParseAssocUsage(const std::string& bytes, uint16_t min_version, uint16_t max_version) {
  UsageFile file;
  file.state = FileState::kDamaged;
  if (bytes.size() < kUsageHeaderSize) {
    file.why = "file is " + std::to_string(bytes.size()) + " bytes, shorter than its header";
    return file;
  }
  const auto version = static_cast<uint16_t>(GetBigEndian(bytes, 0, 2));
  if (version < min_version || version > max_version) {
    file.why = "protocol version " + std::to_string(version) + " is not one Slurm writes";
    return file;
  }
  const auto saved_at = static_cast<int64_t>(GetBigEndian(bytes, 2, 8));
  size_t at = kUsageHeaderSize;
  auto take = [&](size_t n) {
    if (bytes.size() - at < n) return false;
    at += n;
    return true;
  };
  auto take_string = [&]() {  // packstr: 32-bit length (with the NUL), bytes
    if (bytes.size() - at < 4) return false;
    const uint64_t length = GetBigEndian(bytes, at, 4);
    at += 4;
    return take(static_cast<size_t>(length));
  };
  size_t records = 0;
  while (at < bytes.size()) {
    const size_t record_start = at;
    if (!take(4) || !take_string() || !take_string() || !take(4)) {
      file.why = "cut inside association record " + std::to_string(records + 1) + " (at byte " +
                 std::to_string(record_start) + " of " + std::to_string(bytes.size()) + ")";
      return file;
    }
    ++records;
  }
  file.state = FileState::kOk;
  file.saved_at = saved_at;
  file.has_records = records > 0;
  return file;
}

RecoveryDecision DecideRecovery(const RecoveryInput& in) {
  RecoveryDecision d;
  const int64_t now = in.now;
  std::string why;
  const bool clock_ok = PlausibleClock(in.clock, now, &why);
  const std::string clock_problem = clock_ok ? "" : ClockProblem(in.clock, now);

  // last_reset: from the clock, else its .old copy (last_reset changes only
  // at a reset), else the boundary the configuration gives.
  if (clock_ok && in.clock.last_reset) {
    d.last_reset = in.clock.last_reset;
  } else if (PlausibleClock(in.clock_old, now, &why) && in.clock_old.last_reset) {
    d.last_reset = in.clock_old.last_reset;
  } else {
    d.last_reset = in.configured_last_reset;
  }

  // Usage that is missing, empty or cut: rebuild it from slurmdbd. A clock
  // that is sound still bounds what running jobs add until then.
  const bool usage_parsed = in.usage.state == FileState::kOk && in.usage.has_records;
  if (!usage_parsed) {
    d.rebuild_usage = true;
    d.charge_from = clock_ok ? in.clock.last_ran : 0;
    if (in.usage.state == FileState::kMissing && in.clock.state == FileState::kMissing) {
      d.message = "no assoc_usage and no priority_last_decay_ran: a first start; usage is "
                  "rebuilt from slurmdbd's job records";
      return d;
    }
    d.error = true;
    std::string usage_problem =
        in.usage.state == FileState::kMissing ? "is missing"
        : in.usage.state == FileState::kOk    ? "holds no association record"
                                              : "is damaged (" + in.usage.why + ")";
    d.message = "assoc_usage " + usage_problem +
                ": slurmctld restored no usage (or only part); it is rebuilt from slurmdbd's "
                "job records";
    if (!clock_ok) d.message += "; priority_last_decay_ran " + clock_problem + " too";
    return d;
  }

  std::string saved_why;
  const bool saved_ok = PlausibleStamp(in.usage.saved_at, now, "its save time", &saved_why);
  if (!saved_ok) {
    d.error = true;
    if (clock_ok) {
      d.charge_from = std::min(in.clock.last_ran, now);
      d.message = "assoc_usage's header is damaged (" + saved_why +
                  "); running jobs are charged from priority_last_decay_ran's last_ran " +
                  When(d.charge_from, now);
    } else {
      d.charge_from = now;
      d.message = "assoc_usage's header is damaged (" + saved_why +
                  ") and priority_last_decay_ran " + clock_problem +
                  ": running jobs are charged from now; the time the controller was down "
                  "is not charged";
    }
    return d;
  }
  const int64_t saved_at = std::min(in.usage.saved_at, now);

  if (!clock_ok) {
    d.error = true;
    d.charge_from = saved_at;
    d.message = "priority_last_decay_ran " + clock_problem +
                "; running jobs are charged from when assoc_usage was saved, " +
                When(saved_at, now) + ", never twice";
    return d;
  }
  const int64_t last_ran = in.clock.last_ran;
  if (saved_at - last_ran >= in.calc_period_s) {
    // A pass runs every calc period and writes the clock: a clock a whole
    // period older than the usage was followed by a pass whose charges the
    // usage may hold. Its own .old copy, restored, is exactly one pass
    // older; a save made during a pass, before the clock's write, looks the
    // same and also holds that pass's charges. Charging from the save never
    // charges twice and loses at most the time since the last pass.
    d.error = true;
    d.charge_from = saved_at;
    d.message = "priority_last_decay_ran's last_ran " + When(last_ran, now) + " is " +
                std::to_string(saved_at - last_ran) +
                " s older than assoc_usage, at least one PriorityCalcPeriod (" +
                std::to_string(in.calc_period_s) +
                " s): a pass ran after it, so it does not describe that usage (an older "
                "copy such as priority_last_decay_ran.old restored, or damage); running jobs "
                "are charged from when assoc_usage was saved, " +
                When(saved_at, now) + ", never twice";
    return d;
  }
  if (last_ran > saved_at) {
    // The usage was saved before the last pass's charges reached the file
    // (a crash between the two writes, or no job to charge since).
    d.charge_from = saved_at;
    d.message = "assoc_usage was saved at " + When(saved_at, now) +
                ", before the last decay pass at " + std::to_string(last_ran) +
                ": running jobs are charged from the save";
    return d;
  }
  d.charge_from = last_ran;
  return d;
}

}  // namespace fairway
