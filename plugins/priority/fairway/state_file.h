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

#include "slurm_values.h"
#include "state_recovery.h"

namespace fairway::plugin {

struct DecayState {
  time_t last_ran = 0;    // 0 = never
  time_t last_reset = 0;  // 0 = unknown
};

// At start: reads priority_last_decay_ran, its .old copy and the header of
// Slurm's assoc_usage, applies the recovery rule (core: state_recovery.h)
// and logs its message as one line (error level when anything was damaged,
// missing or inconsistent). A damaged clock file is set aside as
// <name>.damaged. Never stops slurmctld.
RecoveryDecision RecoverDecayState(ResetPeriod reset_period, time_t now);

// Returns false when the file could not be written (logged once per kind of
// failure, not at every pass).
bool WriteDecayState(const DecayState& state);

enum class StateFileRead { kOk, kMissing, kUnreadable };

// StateSaveLocation/<name> (suffix "" or ".old") into *bytes.
StateFileRead ReadStateFile(const std::string& name, const char* suffix, std::string* bytes,
                            std::string* why);
// Atomically replaces StateSaveLocation/<name> with bytes. A failure is
// logged once, saying what the site must do, until a write succeeds again
// (which is logged too). <name>.old is refreshed only from a regular file
// that is not known to be damaged: the last good copy is never replaced by
// damage and never deleted because <name> is in the way.
bool WriteStateFile(const std::string& name, const std::string& bytes);
// Renames a damaged StateSaveLocation/<name> to <name>.damaged, keeping it
// for inspection and keeping <name>.old the last good copy. When it cannot
// be moved, says so (once) and remembers it, so that no write copies it
// over <name>.old. Returns whether it was moved.
bool SetAsideDamagedStateFile(const std::string& name);
// The full path of StateSaveLocation/<name><suffix>.
std::string StateFilePath(const std::string& name, const char* suffix = "");

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_STATE_FILE_H_
