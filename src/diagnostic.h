// SPDX-License-Identifier: GPL-2.0-or-later
// A configuration problem found while parsing: which setting, which value,
// what is wrong and what is used instead. The plugin logs these, the
// `fairway check-config` command prints them: one error path, two front-ends.
#ifndef FAIRWAY_DIAGNOSTIC_H_
#define FAIRWAY_DIAGNOSTIC_H_

#include <string>
#include <vector>

namespace fairway {

enum class Severity { kWarning, kError };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string setting;   // e.g. "PriorityParameters" or "PriorityFlags"
  std::string value;     // the offending text, as written
  std::string message;   // what is wrong
  std::string fallback;  // what is used instead, e.g. "ignored"

  // "PriorityParameters: unknown key 'fairshar' (ignored; known keys: ...)".
  std::string Format() const;
};

using Diagnostics = std::vector<Diagnostic>;

bool HasErrors(const Diagnostics& diagnostics);

}  // namespace fairway

#endif  // FAIRWAY_DIAGNOSTIC_H_
