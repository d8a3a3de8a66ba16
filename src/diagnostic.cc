// SPDX-License-Identifier: GPL-2.0-or-later
#include "diagnostic.h"

namespace fairway {

std::string Diagnostic::Format() const {
  std::string text = setting + ": " + message;
  if (!value.empty() && message.find(value) == std::string::npos) {
    text += " '" + value + "'";
  }
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
