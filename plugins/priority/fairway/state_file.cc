// SPDX-License-Identifier: GPL-2.0-or-later
#include "state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "plugin_log.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

constexpr const char* kFileName = "priority_last_decay_ran";
constexpr size_t kFileSize = 16;

std::string StatePath(const char* suffix) {
  std::string path = slurm_conf.state_save_location ? slurm_conf.state_save_location : ".";
  return path + "/" + kFileName + suffix;
}

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

enum class ReadResult { kOk, kMissing, kDamaged };

ReadResult ReadFile(const std::string& path, DecayState* state, std::string* why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return ReadResult::kMissing;
    *why = std::string("cannot open: ") + std::strerror(errno);
    return ReadResult::kDamaged;
  }
  unsigned char buffer[kFileSize + 1];
  size_t total = 0;
  while (total < sizeof buffer) {
    ssize_t n = read(fd, buffer + total, sizeof buffer - total);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
  close(fd);
  if (total < kFileSize) {
    *why = "file is " + std::to_string(total) + " bytes, expected 16";
    return ReadResult::kDamaged;
  }
  state->last_ran = static_cast<time_t>(GetBigEndian(buffer));
  state->last_reset = static_cast<time_t>(GetBigEndian(buffer + 8));
  if (state->last_ran < 0 || state->last_reset < 0) {
    *state = DecayState{};
    *why = "negative time stamps";
    return ReadResult::kDamaged;
  }
  return ReadResult::kOk;
}

void SyncDirectory(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

}  // namespace

DecayState ReadDecayState() {
  DecayState state;
  const std::string path = StatePath("");
  lock_state_files();
  std::string why;
  ReadResult result = ReadFile(path, &state, &why);
  if (result == ReadResult::kDamaged) {
    LogError("state file %s is damaged (%s); trying %s.old", path.c_str(), why.c_str(),
             path.c_str());
    std::string old_why;
    state = DecayState{};
    if (ReadFile(StatePath(".old"), &state, &old_why) != ReadResult::kOk) {
      LogError("no usable %s.old either; the decay clock starts now", path.c_str());
      state = DecayState{};
    }
  } else if (result == ReadResult::kMissing) {
    LogInfo("No last decay (%s) to recover", path.c_str());
  }
  unlock_state_files();
  return state;
}

bool WriteDecayState(const DecayState& state) {
  if (slurm_conf.state_save_location &&
      std::strcmp(slurm_conf.state_save_location, "/dev/null") == 0) {
    LogError("Can not save priority state information, StateSaveLocation is /dev/null");
    return false;
  }
  unsigned char buffer[kFileSize];
  PutBigEndian(state.last_ran, buffer);
  PutBigEndian(state.last_reset, buffer + 8);
  const std::string path = StatePath(""), new_path = StatePath(".new"),
                    old_path = StatePath(".old");
  lock_state_files();
  bool ok = false;
  int fd = open(new_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    LogError("Can't save decay state, create file %s error %s", new_path.c_str(),
             std::strerror(errno));
  } else {
    size_t done = 0;
    while (done < kFileSize) {
      ssize_t n = write(fd, buffer + done, kFileSize - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    bool synced = fsync(fd) == 0;
    bool closed = close(fd) == 0;
    if (done != kFileSize || !synced || !closed) {
      LogError("Error writing file %s: %s", new_path.c_str(), std::strerror(errno));
      unlink(new_path.c_str());
    } else {
      // Keep the previous copy as .old, then replace atomically.
      unlink(old_path.c_str());
      if (link(path.c_str(), old_path.c_str()) != 0 && errno != ENOENT) {
        LogVerbose("could not keep %s: %s", old_path.c_str(), std::strerror(errno));
      }
      if (rename(new_path.c_str(), path.c_str()) != 0) {
        LogError("Can't save decay state, rename %s to %s: %s", new_path.c_str(), path.c_str(),
                 std::strerror(errno));
        unlink(new_path.c_str());
      } else {
        SyncDirectory(slurm_conf.state_save_location ? slurm_conf.state_save_location : ".");
        ok = true;
      }
    }
  }
  unlock_state_files();
  return ok;
}

}  // namespace fairway::plugin
