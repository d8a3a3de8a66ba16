// SPDX-License-Identifier: GPL-2.0-or-later
// StateSaveLocation/priority_last_decay_ran: when the decay pass last ran and
// when usage was last reset, in multifactor's exact format (two big-endian
// 64-bit times, 16 bytes), so a site can switch plugins either way without a
// usage jump. Written atomically (temp file, fsync, rename, fsync of the
// directory) under Slurm's state-file lock.
#ifndef FAIRWAY_PLUGIN_STATE_FILE_H_
#define FAIRWAY_PLUGIN_STATE_FILE_H_

#include <ctime>

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

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_STATE_FILE_H_
