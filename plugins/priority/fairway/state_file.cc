// SPDX-License-Identifier: GPL-2.0-or-later
#include "state_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#include "decay.h"
#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

constexpr const char* kDecayFile = "priority_last_decay_ran";
constexpr size_t kMaxStateFileSize = 256u << 20;  // far beyond any ledger

std::string StateDir() {
  return slurm_conf.state_save_location ? slurm_conf.state_save_location : ".";
}

void SyncDirectory(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

// Unlocked read of a whole file.
StateFileRead ReadWhole(const std::string& path, std::string* bytes, std::string* why) {
  bytes->clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return StateFileRead::kMissing;
    *why = std::string("cannot open: ") + std::strerror(errno);
    return StateFileRead::kUnreadable;
  }
  char buffer[65536];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = std::string("read error: ") + std::strerror(errno);
      close(fd);
      return StateFileRead::kUnreadable;
    }
    if (n == 0) break;
    bytes->append(buffer, static_cast<size_t>(n));
    if (bytes->size() > kMaxStateFileSize) {
      *why = "file is larger than any state file the plugin writes";
      close(fd);
      return StateFileRead::kUnreadable;
    }
  }
  close(fd);
  return StateFileRead::kOk;
}

// Guarded by Slurm's state-file lock (lock_state_files).
// Files found damaged that could not be moved aside: never copied to .old.
std::set<std::string>* g_damaged_in_place = nullptr;  // raw: no static destructor
// The last save failure logged per file: each kind is said once.
std::map<std::string, std::string>* g_save_failure = nullptr;

std::set<std::string>& DamagedInPlace() {
  if (!g_damaged_in_place) g_damaged_in_place = new std::set<std::string>();
  return *g_damaged_in_place;
}

std::map<std::string, std::string>& SaveFailures() {
  if (!g_save_failure) g_save_failure = new std::map<std::string, std::string>();
  return *g_save_failure;
}

// Requires the state-file lock. Logs a save failure once per kind:
// "cannot save state file <what> (the previous file is kept); <todo>".
void SaveFailed(const std::string& name, const std::string& what, const char* todo) {
  std::string& last = SaveFailures()[name];
  if (last == what) return;
  last = what;
  LogError("cannot save state file %s (the previous file is kept); %s. Said once until a save "
           "succeeds: the plugin runs on what it holds in memory, and a restart before then "
           "recovers from the files there (doc/reliability.md)",
           what.c_str(), todo);
}

// Requires the state-file lock.
void SaveSucceeded(const std::string& name) {
  auto it = SaveFailures().find(name);
  if (it == SaveFailures().end() || it->second.empty()) return;
  LogInfo("state file %s saved again", StateFilePath(name).c_str());
  it->second.clear();
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Reads a state file for the recovery rule. Returns true with *bytes when
// it could be read; otherwise false with *state set (kMissing, or kDamaged
// with *why saying what is wrong).
bool ReadForRecovery(const char* name, const char* suffix, std::string* bytes, FileState* state,
                     std::string* why) {
  switch (ReadStateFile(name, suffix, bytes, why)) {
    case StateFileRead::kMissing:
      *state = FileState::kMissing;
      why->clear();
      return false;
    case StateFileRead::kUnreadable:
      *state = FileState::kDamaged;
      return false;
    case StateFileRead::kOk:
      break;
  }
  return true;
}

// The decay clock file (or its .old copy) as the core sees it.
DecayClock ReadClock(const char* suffix) {
  DecayClock clock;
  struct stat st;
  if (stat(StateFilePath(kDecayFile, suffix).c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_size != 16) {  // not read: it may be huge
    clock.state = FileState::kDamaged;
    clock.why = "file is " + std::to_string(static_cast<long long>(st.st_size)) +
                " bytes, expected 16";
    return clock;
  }
  std::string bytes;
  if (!ReadForRecovery(kDecayFile, suffix, &bytes, &clock.state, &clock.why)) return clock;
  return ParseDecayClock(bytes);
}

// Slurm's assoc_usage, read once at start before slurmctld saves it again.
UsageFile ReadAssocUsage() {
  UsageFile file;
  std::string bytes;
  if (!ReadForRecovery("assoc_usage", "", &bytes, &file.state, &file.why)) return file;
  return ParseAssocUsage(bytes, SLURM_MIN_PROTOCOL_VERSION, SLURM_PROTOCOL_VERSION);
}

}  // namespace

std::string StateFilePath(const std::string& name, const char* suffix) {
  return StateDir() + "/" + name + suffix;
}

bool SetAsideDamagedStateFile(const std::string& name) {
  // Moved away so that the next write does not turn it into <name>.old over
  // the good previous copy.
  lock_state_files();
  const std::string path = StateFilePath(name), aside = StateFilePath(name, ".damaged");
  bool moved = rename(path.c_str(), aside.c_str()) == 0;
  if (!moved && errno != ENOENT) {
    const int err = errno;
    if (DamagedInPlace().insert(name).second) {
      LogError("cannot move the damaged %s aside to %s: %s. %s is kept as the last good copy; "
               "remove %s (and %s) by hand",
               path.c_str(), aside.c_str(), std::strerror(err),
               StateFilePath(name, ".old").c_str(), path.c_str(), aside.c_str());
    }
  }
  unlock_state_files();
  return moved;
}

StateFileRead ReadStateFile(const std::string& name, const char* suffix, std::string* bytes,
                            std::string* why) {
  lock_state_files();
  StateFileRead result = ReadWhole(StateFilePath(name, suffix), bytes, why);
  unlock_state_files();
  return result;
}

bool WriteStateFile(const std::string& name, const std::string& bytes) {
  if (slurm_conf.state_save_location &&
      std::strcmp(slurm_conf.state_save_location, "/dev/null") == 0) {
    static std::atomic<bool> told{false};  // said once, not at every pass
    if (!told.exchange(true)) {
      LogError("Can not save priority state information, StateSaveLocation is /dev/null");
    }
    return false;
  }
  const std::string path = StateFilePath(name), new_path = StateFilePath(name, ".new"),
                    old_path = StateFilePath(name, ".old");
  lock_state_files();
  bool ok = false;
  int fd = open(new_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    SaveFailed(name, new_path + ": " + std::strerror(errno), "make StateSaveLocation writable");
  } else {
    size_t done = 0;
    int write_errno = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        write_errno = n < 0 ? errno : ENOSPC;
        break;
      }
      done += static_cast<size_t>(n);
    }
    if (!write_errno && fsync(fd) != 0) write_errno = errno;
    if (close(fd) != 0 && !write_errno) write_errno = errno;
    if (write_errno) {
      SaveFailed(name, new_path + ": " + std::strerror(write_errno),
                 "free space in StateSaveLocation");
      unlink(new_path.c_str());
    } else {
      // Keep the previous copy as .old, then replace atomically. With no
      // current file (first write, or a damaged one set aside), or one that
      // is not a regular file or is known damaged, the existing .old is the
      // last good copy and stays.
      if (IsRegularFile(path) && !DamagedInPlace().count(name)) {
        unlink(old_path.c_str());
        if (link(path.c_str(), old_path.c_str()) != 0) {
          LogVerbose("could not keep %s: %s", old_path.c_str(), std::strerror(errno));
        }
      }
      if (rename(new_path.c_str(), path.c_str()) != 0) {
        const std::string todo = "remove or move what is at " + path;
        SaveFailed(name, path + ": rename from " + new_path + ": " + std::strerror(errno),
                   todo.c_str());
        unlink(new_path.c_str());
      } else {
        SyncDirectory(StateDir());
        DamagedInPlace().erase(name);
        SaveSucceeded(name);
        ok = true;
      }
    }
  }
  unlock_state_files();
  return ok;
}

RecoveryDecision RecoverDecayState(ResetPeriod reset_period, time_t now) {
  RecoveryInput in;
  in.clock = ReadClock("");
  in.clock_old = ReadClock(".old");
  in.usage = ReadAssocUsage();
  in.now = now;
  in.calc_period_s = slurm_conf.priority_calc_period;
  in.configured_last_reset = LastResetBoundary(reset_period, now);
  std::string why;
  const bool clock_damaged =
      in.clock.state == FileState::kDamaged ||
      (in.clock.state == FileState::kOk && !PlausibleClock(in.clock, now, &why));
  RecoveryDecision decision = DecideRecovery(in);
  // Set aside first: the one line below then says where the damage is.
  const bool set_aside = clock_damaged && SetAsideDamagedStateFile(kDecayFile);
  if (!decision.message.empty()) {
    const std::string dir = StateDir();
    if (decision.error) {
      const std::string kept =
          set_aside ? "; the damaged file is kept as " + StateFilePath(kDecayFile, ".damaged")
                    : "";
      LogError("state in %s: %s%s", dir.c_str(), decision.message.c_str(), kept.c_str());
    } else {
      LogInfo("state in %s: %s", dir.c_str(), decision.message.c_str());
    }
  }
  return decision;
}

bool WriteDecayState(const DecayState& state) {
  return WriteStateFile(kDecayFile, SerializeDecayClock(state.last_ran, state.last_reset));
}

}  // namespace fairway::plugin
