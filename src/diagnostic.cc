// SPDX-License-Identifier: GPL-2.0-or-later
#include "diagnostic.h"

namespace fairway {

namespace {

// Whether the message already names the value (as "key=value", or as the
// key and the value separately), so that Format need not repeat it.
bool MessageNamesValue(const std::string& message, const std::string& value) {
  if (message.find(value) != std::string::npos) return true;
  size_t eq = value.find('=');
  return eq != std::string::npos && message.find(value.substr(0, eq)) != std::string::npos &&
         message.find(value.substr(eq + 1)) != std::string::npos;
}

}  // namespace

std::string Diagnostic::Format() const {
  std::string text = setting + ": " + message;
  if (!value.empty() && !MessageNamesValue(message, value)) text += " '" + value + "'";
  if (!fallback.empty()) text += " (" + fallback + ")";
  return text;
}

bool HasErrors(const Diagnostics& diagnostics) {
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

}  // namespace fairway
