// SPDX-License-Identifier: GPL-2.0-or-later
#include "state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

constexpr const char* kDecayFile = "priority_last_decay_ran";
constexpr size_t kDecayFileSize = 16;
constexpr size_t kMaxStateFileSize = 256u << 20;  // far beyond any ledger

void PutBigEndian(int64_t value, unsigned char* out) {
  uint64_t v = static_cast<uint64_t>(value);
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<unsigned char>(v & 0xff);
    v >>= 8;
  }
}

int64_t GetBigEndian(const unsigned char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | in[i];
  return static_cast<int64_t>(v);
}

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

bool ParseDecayState(const std::string& bytes, DecayState* state, std::string* why) {
  if (bytes.size() < kDecayFileSize) {
    *why = "file is " + std::to_string(bytes.size()) + " bytes, expected 16";
    return false;
  }
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  state->last_ran = static_cast<time_t>(GetBigEndian(data));
  state->last_reset = static_cast<time_t>(GetBigEndian(data + 8));
  if (state->last_ran < 0 || state->last_reset < 0) {
    *state = DecayState{};
    *why = "negative time stamps";
    return false;
  }
  return true;
}

}  // namespace

std::string StateFilePath(const std::string& name, const char* suffix) {
  return StateDir() + "/" + name + suffix;
}

void SetAsideDamagedStateFile(const std::string& name) {
  // Moved away so that the next write does not turn it into <name>.old over
  // the good previous copy.
  lock_state_files();
  rename(StateFilePath(name).c_str(), StateFilePath(name, ".damaged").c_str());
  unlock_state_files();
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
    LogError("Can not save priority state information, StateSaveLocation is /dev/null");
    return false;
  }
  const std::string path = StateFilePath(name), new_path = StateFilePath(name, ".new"),
                    old_path = StateFilePath(name, ".old");
  lock_state_files();
  bool ok = false;
  int fd = open(new_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    LogError("cannot save state file %s: %s", new_path.c_str(), std::strerror(errno));
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
      LogError("cannot save state file %s: %s (the previous file is kept)", new_path.c_str(),
               std::strerror(write_errno));
      unlink(new_path.c_str());
    } else {
      // Keep the previous copy as .old, then replace atomically. With no
      // current file (first write, or a damaged one set aside) the existing
      // .old is the last good copy and stays.
      if (access(path.c_str(), F_OK) == 0) {
        unlink(old_path.c_str());
        if (link(path.c_str(), old_path.c_str()) != 0) {
          LogVerbose("could not keep %s: %s", old_path.c_str(), std::strerror(errno));
        }
      }
      if (rename(new_path.c_str(), path.c_str()) != 0) {
        LogError("cannot save state file %s: rename from %s: %s", path.c_str(), new_path.c_str(),
                 std::strerror(errno));
        unlink(new_path.c_str());
      } else {
        SyncDirectory(StateDir());
        ok = true;
      }
    }
  }
  unlock_state_files();
  return ok;
}

DecayState ReadDecayState() {
  DecayState state;
  std::string bytes, why;
  StateFileRead result = ReadStateFile(kDecayFile, "", &bytes, &why);
  if (result == StateFileRead::kMissing) {
    LogInfo("No last decay (%s) to recover", StateFilePath(kDecayFile).c_str());
    return state;
  }
  if (result == StateFileRead::kOk && ParseDecayState(bytes, &state, &why)) return state;
  LogError("state file %s is damaged (%s); kept as %s, trying %s",
           StateFilePath(kDecayFile).c_str(), why.c_str(),
           StateFilePath(kDecayFile, ".damaged").c_str(), StateFilePath(kDecayFile, ".old").c_str());
  SetAsideDamagedStateFile(kDecayFile);
  state = DecayState{};
  std::string old_why;
  if (ReadStateFile(kDecayFile, ".old", &bytes, &old_why) != StateFileRead::kOk ||
      !ParseDecayState(bytes, &state, &old_why)) {
    LogError("no usable %s either; the decay clock starts now",
             StateFilePath(kDecayFile, ".old").c_str());
    state = DecayState{};
  }
  return state;
}

bool WriteDecayState(const DecayState& state) {
  unsigned char buffer[kDecayFileSize];
  PutBigEndian(state.last_ran, buffer);
  PutBigEndian(state.last_reset, buffer + 8);
  return WriteStateFile(kDecayFile, std::string(reinterpret_cast<char*>(buffer), sizeof buffer));
}

}  // namespace fairway::plugin
