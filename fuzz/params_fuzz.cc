// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: ParsePriorityParameters on arbitrary bytes. It must never
// crash, and whatever it accepts must leave Params usable: a positive planned
// use interval, a finite non-negative capacity, a known mode and charge, and
// a diagnostic naming every rejected item. Build and run: fuzz/run.sh.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "params.h"

using fairway::FairshareMode;
using fairway::Params;
using fairway::PlannedUseCharge;

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "params_fuzz: invariant violated: %s\n", what);
  std::abort();
}

void Check(const Params& p) {
  if (!(p.planned_use_interval_s > 0)) Die("planned_use_interval_s > 0");
  if (!std::isfinite(p.planned_use_capacity)) Die("planned_use_capacity finite");
  if (!(p.planned_use_capacity >= 0)) Die("planned_use_capacity >= 0");
  if (p.planned_use_charge != PlannedUseCharge::kAccrue &&
      p.planned_use_charge != PlannedUseCharge::kStart) {
    Die("planned_use_charge is accrue or start");
  }
  if (p.mode_override) {
    switch (*p.mode_override) {
      case FairshareMode::kClassic:
      case FairshareMode::kDepthOblivious:
      case FairshareMode::kFairTree:
      case FairshareMode::kRanged:
      case FairshareMode::kPlannedUse:
        break;
      default:
        Die("mode_override is a known mode");
    }
    if (p.Mode() != *p.mode_override) Die("Mode() honours the override");
  }
  if (std::strcmp(fairway::FairshareModeName(p.Mode()), "unknown") == 0) Die("mode has a name");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // From the defaults.
  Params p;
  fairway::Diagnostics diags = fairway::ParsePriorityParameters(text, &p);
  Check(p);
  for (const fairway::Diagnostic& d : diags) {
    if (d.setting.empty()) Die("a diagnostic names its setting");
    if (d.message.empty()) Die("a diagnostic says what is wrong");
    (void)d.Format();
  }
  (void)fairway::HasErrors(diags);

  // Parsing is deterministic and applying the same text twice is idempotent
  // for the values (each key keeps its last valid value).
  Params q = p;
  fairway::Diagnostics again = fairway::ParsePriorityParameters(text, &q);
  Check(q);
  if (again.size() != diags.size()) Die("same text, same number of diagnostics");
  if (q.planned_use_interval_s != p.planned_use_interval_s ||
      q.planned_use_charge != p.planned_use_charge || q.mode_override != p.mode_override) {
    Die("parsing the same text twice changes the result");
  }
  if (!(q.planned_use_capacity == p.planned_use_capacity)) Die("capacity idempotent");

  // From an unusual starting point: a previous capacity and interval are
  // kept when the new values are bad, so the invariants still hold.
  Params r;
  r.planned_use_interval_s = 1;
  r.planned_use_capacity = 1e300;
  r.mode_override = FairshareMode::kRanged;
  fairway::ParsePriorityParameters(text, &r);
  Check(r);

  // The time-string helper on the same bytes: non-negative when accepted.
  std::optional<int64_t> t = fairway::ParseSlurmTimeSeconds(text);
  if (t && *t < 0) Die("ParseSlurmTimeSeconds >= 0");
  return 0;
}
