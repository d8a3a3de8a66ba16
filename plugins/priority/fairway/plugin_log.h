// SPDX-License-Identifier: GPL-2.0-or-later
// Logging for the adapter: every line starts with "priority/fairway: " and
// goes through slurmctld's (or the client's) own log. Debug detail only
// appears with DebugFlags=Priority. Safe from any thread (Slurm's log is).
#ifndef FAIRWAY_PLUGIN_LOG_H_
#define FAIRWAY_PLUGIN_LOG_H_

namespace fairway::plugin {

void LogError(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogInfo(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogVerbose(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Only with DebugFlags=Priority.
void LogPrio(const char* format, ...) __attribute__((format(printf, 1, 2)));
bool PrioDebugEnabled();

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_LOG_H_
