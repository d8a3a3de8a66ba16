// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's files under StateSaveLocation.
// - priority_last_decay_ran: when the decay pass last ran and when usage was
//   last reset, in multifactor's exact format (two big-endian 64-bit times,
//   16 bytes), so a site can switch plugins either way without a usage jump.
// - any other state file (the planned-use ledger) through ReadStateFile /
//   WriteStateFile.
// Every write is atomic (temp file, fsync, rename, fsync of the directory)
// and keeps the previous copy as <name>.old, under Slurm's state-file lock.
#ifndef FAIRWAY_PLUGIN_STATE_FILE_H_
#define FAIRWAY_PLUGIN_STATE_FILE_H_

#include <ctime>
#include <string>

namespace fairway::plugin {

struct DecayState {
  time_t last_ran = 0;    // 0 = never
  time_t last_reset = 0;  // 0 = unknown
};

// A missing file is normal (first start) and logged at info level. A short
// or damaged file is logged as an error naming it, and the previous copy
// (.old) is tried before starting from zero; slurmctld is never stopped.
DecayState ReadDecayState();

// Returns false (after logging the cause) when the file could not be written.
bool WriteDecayState(const DecayState& state);

enum class StateFileRead { kOk, kMissing, kUnreadable };

// StateSaveLocation/<name> (suffix "" or ".old") into *bytes.
StateFileRead ReadStateFile(const std::string& name, const char* suffix, std::string* bytes,
                            std::string* why);
// Atomically replaces StateSaveLocation/<name> with bytes; logs failures.
bool WriteStateFile(const std::string& name, const std::string& bytes);
// Renames a damaged StateSaveLocation/<name> to <name>.damaged, keeping it
// for inspection and keeping <name>.old the last good copy.
void SetAsideDamagedStateFile(const std::string& name);
// The full path of StateSaveLocation/<name><suffix>.
std::string StateFilePath(const std::string& name, const char* suffix = "");

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_STATE_FILE_H_
