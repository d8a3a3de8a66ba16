// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin_log.h"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "slurm_api.h"

namespace fairway::plugin {

namespace {
constexpr const char* kPrefix = "priority/fairway: ";
}

// Formats into a string of whatever length the message needs (a hostile
// PriorityParameters value can be kilobytes long; it must not cut off the
// part of the line that says what is used instead).
#define FAIRWAY_FORMAT_INTO(buffer, format)                  \
  std::string buffer##_storage;                              \
  do {                                                       \
    va_list args;                                            \
    va_start(args, format);                                  \
    va_list copy;                                            \
    va_copy(copy, args);                                     \
    int needed = std::vsnprintf(nullptr, 0, format, copy);   \
    va_end(copy);                                            \
    if (needed > 0) {                                        \
      buffer##_storage.resize(static_cast<size_t>(needed) + 1); \
      std::vsnprintf(&buffer##_storage[0], buffer##_storage.size(), format, args); \
      buffer##_storage.resize(static_cast<size_t>(needed));  \
    }                                                        \
    va_end(args);                                            \
  } while (0);                                               \
  const char* buffer = buffer##_storage.c_str()

void LogError(const char* format, ...) {
  FAIRWAY_FORMAT_INTO(text, format);
  error("%s%s", kPrefix, text);
}

void LogInfo(const char* format, ...) {
  FAIRWAY_FORMAT_INTO(text, format);
  info("%s%s", kPrefix, text);
}

void LogVerbose(const char* format, ...) {
  FAIRWAY_FORMAT_INTO(text, format);
  verbose("%s%s", kPrefix, text);
}

bool PrioDebugEnabled() { return (slurm_conf.debug_flags & DEBUG_FLAG_PRIO) != 0; }

void LogPrio(const char* format, ...) {
  if (!PrioDebugEnabled()) return;
  FAIRWAY_FORMAT_INTO(text, format);
  info("PRIO: %s%s", kPrefix, text);
}

}  // namespace fairway::plugin
