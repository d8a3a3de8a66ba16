// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin_log.h"

#include <cstdarg>
#include <cstdio>

#include "slurm_api.h"

namespace fairway::plugin {

namespace {
constexpr const char* kPrefix = "priority/fairway: ";
}

#define FAIRWAY_FORMAT_INTO(buffer, format)               \
  char buffer[1024];                                      \
  do {                                                    \
    va_list args;                                         \
    va_start(args, format);                               \
    std::vsnprintf(buffer, sizeof buffer, format, args);  \
    va_end(args);                                         \
  } while (0)

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
