// SPDX-License-Identifier: GPL-2.0-or-later
// Planned use fairshare (doc/fairshare-modes.md, "Planned use").
//
// Decisions beyond the specification:
//  - R = 0 (zero shares, or no capacity): u = +inf and F = 0 as soon as the
//    association has any usage in the index, u = 0 and F = 1 otherwise.
//  - No decay (D = 1, PriorityDecayHalfLife=0): the factor (1 - D) would make
//    every u zero, so it is replaced by 1: u = (c + H) / (R dt), the total
//    charged usage in units of one interval's plan.
//  - Fairshare=parent associations have no plan of their own: R is their fs
//    parent's (MachineShare), measured against their own ledger entry; their
//    job factor includes the fs parent's F through the path minimum anyway.
//  - Charge/ChargePath ignore amounts that are not finite and > 0, so the
//    ledger always stays serialisable.
//
// Ledger format (version 1), ASCII text with '\n' line ends, no locale
// dependence:
//   FWPU 1
//   interval <interval_index, signed decimal>
//   entries <count, decimal>
//   <assoc id> <H.hi> <H.lo> <c.hi> <c.lo>      (count lines, ids ascending)
//   checksum <FNV-1a 64 of every byte before this line, 16 lowercase hex>
// Each long double x is written as two IEEE-754 binary64 values hi = (double)x
// and lo = (double)(x - hi) (a double-double, exact for x86's 80-bit long
// double), each as the 16 lowercase hex digits of its bit pattern.
#include "planned_use.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "state_codec.h"

namespace fairway {

namespace {

// Boundaries beyond this many are closed with powl() instead of one
// multiplication per boundary (bit-identical to rolling one at a time below it).
constexpr int64_t kExactRollLimit = 4096;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool UsableAmount(long double x) { return std::isfinite(x) && x > 0; }

// Ledger values stay at or below DBL_MAX so that the state file (doubles)
// can always hold them: a saturated ledger is still a ledger, an
// unwritable one is lost at the next start.
constexpr long double kLedgerMax = static_cast<long double>(DBL_MAX);
long double Saturate(long double x) { return x > kLedgerMax ? kLedgerMax : x; }

// ---- serialisation (state_codec.h) ----

constexpr const char* kMagic = "FWPU";
constexpr int kVersion = 1;

bool Fail(std::string* error, const std::string& why) {
  if (error) *error = "planned-use ledger: " + why;
  return false;
}

// A value stored as hi/lo; false with a reason unless finite and >= 0.
bool ParseStoredValue(const std::string& hi_text, const std::string& lo_text, long double* out,
                      std::string* why) {
  uint64_t hi_bits, lo_bits;
  if (!ParseHex64(hi_text, &hi_bits) || !ParseHex64(lo_text, &lo_bits)) {
    *why = "a value is not 16 lowercase hex digits";
    return false;
  }
  double hi = BitsDouble(hi_bits), lo = BitsDouble(lo_bits);
  if (!std::isfinite(hi) || !std::isfinite(lo)) {
    *why = "a value is not finite";
    return false;
  }
  long double x = static_cast<long double>(hi) + static_cast<long double>(lo);
  if (!(x >= 0) || std::signbit(hi)) {
    *why = "a value is negative";
    return false;
  }
  if (x > kLedgerMax) {
    *why = "a value is larger than the ledger can hold";
    return false;
  }
  *out = x;
  return true;
}

}  // namespace

// ---- ledger ----

void PlannedUseLedger::Roll(int64_t now, int64_t interval_s, double per_interval_decay) {
  if (interval_s <= 0) return;
  const int64_t index = FloorDiv(now, interval_s);
  if (interval_index < 0) {  // never rolled: only start counting
    interval_index = index;
    return;
  }
  if (index <= interval_index) return;  // same interval, or the clock went back
  const int64_t boundaries = index - interval_index;
  interval_index = index;

  long double D = per_interval_decay;
  if (!(D >= 0)) D = 0;
  if (D > 1) D = 1;
  for (auto& [id, e] : entries) {
    e.history = Saturate(e.open + D * e.history);
    e.open = 0;
  }
  if (boundaries == 1 || D == 1) return;
  const int64_t rest = boundaries - 1;  // each further boundary: H <- D*H
  if (rest <= kExactRollLimit) {
    for (auto& [id, e] : entries) {
      for (int64_t k = 0; k < rest && e.history != 0; ++k) e.history *= D;
    }
  } else {
    const long double factor = std::pow(D, static_cast<long double>(rest));
    for (auto& [id, e] : entries) e.history *= factor;
  }
}

void PlannedUseLedger::Charge(uint32_t assoc_id, long double billing_seconds) {
  if (!UsableAmount(billing_seconds)) return;
  long double& open = entries[assoc_id].open;
  open = Saturate(open + billing_seconds);
}

void PlannedUseLedger::ChargeIds(const uint32_t* assoc_ids, size_t count,
                                 long double billing_seconds) {
  if (!UsableAmount(billing_seconds)) return;
  for (size_t i = 0; i < count; ++i) Charge(assoc_ids[i], billing_seconds);
}

long double PlannedUseJobCharge(const PlannedUseJobSlice& s) {
  long double amount = 0;
  if (s.charge == PlannedUseCharge::kAccrue) {
    const int64_t slice_start = s.start_time > s.start_period ? s.start_time : s.start_period;
    amount = PlannedUseChargeAfter(s.real_nodecay, slice_start,
                                   slice_start + static_cast<int64_t>(s.run_delta_s),
                                   s.charged_until);
  } else if (s.start_time >= s.start_period && s.start_time >= s.charged_until &&
             s.time_limit_min != kInfinite && s.time_limit_min != kNoVal) {
    const double factor = s.has_qos && s.qos_usage_factor >= 0 ? s.qos_usage_factor : 1.0;
    amount = static_cast<long double>(s.billable_tres) * s.time_limit_min * 60.0L * factor;
  }
  return amount > 0 ? amount : 0;
}

void PlannedUseLedger::ChargePath(const AssocTree& tree, int32_t i, long double billing_seconds) {
  if (!UsableAmount(billing_seconds)) return;
  const int32_t n = static_cast<int32_t>(tree.size());
  // The root included, as Slurm sums usage into it; bounded against cycles.
  for (int32_t steps = 0; i >= 0 && i < n && steps < n; ++steps) {
    Charge(tree.node(i).id, billing_seconds);
    if (i == tree.root()) break;
    i = tree.links(i).parent;
  }
}

long double PlannedUseChargeAfter(long double amount, int64_t slice_start, int64_t slice_end,
                                  int64_t charged_until) {
  if (charged_until <= slice_start) return amount;
  if (charged_until >= slice_end) return 0;
  return amount * static_cast<long double>(slice_end - charged_until) /
         static_cast<long double>(slice_end - slice_start);
}

double PlannedUsePerIntervalDecay(int64_t interval_s, int64_t half_life_s) {
  if (half_life_s <= 0 || interval_s <= 0) return 1.0;
  return std::exp2(-static_cast<double>(interval_s) / static_cast<double>(half_life_s));
}

double MachineShare(const AssocTree& tree, int32_t i) {
  const int32_t n = static_cast<int32_t>(tree.size());
  if (i < 0 || i >= n) return 0.0;
  if (tree.node(i).uses_parent() && i != tree.root()) i = tree.links(i).fs_parent;
  double share = 1.0;
  for (int32_t steps = 0; steps <= n; ++steps) {
    if (i < 0) return 0.0;  // orphan: no path to the root
    if (i == tree.root()) return share;
    const AssocLinks& links = tree.links(i);
    if (links.level_shares == 0 || links.level_shares == kNoVal) return 0.0;
    share *= static_cast<double>(tree.node(i).shares_raw) /
             static_cast<double>(links.level_shares);
    i = links.fs_parent;
  }
  return 0.0;
}

namespace {

// Per-association ledger entry pointers, looked up once per pass.
//
// One std::map::find per association chases a pointer per tree level and
// was most of the pass. Instead the map is walked in id order and each id
// placed in the tree: with dense ids (the usual case: Slurm numbers
// associations from 1) through a table, otherwise through the tree's sorted
// id index. The map's nodes lie wherever they were allocated, so each
// increment is a dependent load that usually misses the cache; the walk is
// split into kWalks id ranges advanced in turn, so that the CPU can overlap
// the misses of independent walks.
std::vector<const PlannedUseEntry*> EntriesByIndex(const AssocTree& tree,
                                                   const std::vector<uint32_t>& ids,
                                                   const PlannedUseLedger& ledger) {
  const int32_t n = static_cast<int32_t>(ids.size());
  std::vector<const PlannedUseEntry*> by_index(n, nullptr);
  if (ledger.entries.empty() || n == 0) return by_index;
  const auto [min_it, max_it] = std::minmax_element(ids.begin(), ids.end());
  const uint32_t min_id = *min_it, max_id = *max_it;
  const uint64_t range = static_cast<uint64_t>(max_id) - min_id + 1;
  std::vector<int32_t> index_of;  // by id - min_id; empty when ids are sparse
  if (range <= 4 * static_cast<uint64_t>(n) + 1024) {
    index_of.assign(range, -1);
    for (int32_t i = 0; i < n; ++i) index_of[ids[i] - min_id] = i;  // ids are unique
  }
  auto place = [&](uint32_t id, const PlannedUseEntry* e) {
    int32_t i = -1;
    if (!index_of.empty()) {
      if (id >= min_id && id <= max_id) i = index_of[id - min_id];
    } else {
      i = tree.Find(id);
    }
    if (i >= 0) by_index[i] = e;
  };

  constexpr int kWalks = 8;
  using Iter = std::map<uint32_t, PlannedUseEntry>::const_iterator;
  Iter pos[kWalks], end[kWalks];
  for (int k = 0; k < kWalks; ++k) {
    // Range k: ids in [min_id + k*range/kWalks, min_id + (k+1)*range/kWalks);
    // the first and last also take the ids below and above the tree's.
    pos[k] = k == 0 ? ledger.entries.begin()
                    : ledger.entries.lower_bound(
                          static_cast<uint32_t>(min_id + range * k / kWalks));
    if (k > 0) end[k - 1] = pos[k];
  }
  end[kWalks - 1] = ledger.entries.end();
  for (bool more = true; more;) {
    more = false;
    for (int k = 0; k < kWalks; ++k) {
      if (pos[k] == end[k]) continue;
      place(pos[k]->first, &pos[k]->second);
      ++pos[k];
      more = true;
    }
  }
  return by_index;
}

// MachineShare for every association, reading compact arrays instead of
// the large AssocNode records. Each product is still taken from the
// association upwards, factor by factor, exactly as MachineShare does: a
// top-down product (parent's share times own ratio) would associate the
// multiplications differently and could change the last bit. The walks are
// short (the depth of the tree) and touch only ancestors, which stay cached.
// ratio[i] is shares_raw / level_shares, or < 0 where MachineShare stops
// with 0 (level shares 0 or NO_VAL); first[i] is where MachineShare starts
// (the fs parent for a Fairshare=parent association).
std::vector<double> MachineShares(const AssocTree& tree, const std::vector<double>& ratio,
                                  const std::vector<int32_t>& first) {
  const int32_t n = static_cast<int32_t>(tree.size());
  const int32_t root = tree.root();
  std::vector<double> share(n, 0.0);
  for (int32_t start = 0; start < n; ++start) {
    int32_t i = first[start];
    double s = 1.0;
    for (int32_t steps = 0; steps <= n; ++steps) {
      if (i < 0) break;  // orphan: no path to the root (0)
      if (i == root) {
        share[start] = s;
        break;
      }
      if (ratio[i] < 0) break;
      s *= ratio[i];
      i = tree.links(i).fs_parent;
    }
  }
  return share;
}

}  // namespace

void ComputePlannedUse(const AssocTree& tree, const PlannedUseLedger& ledger, const Params& params,
                       double capacity_billing_per_s, FairshareResults* results) {
  results->mode = FairshareMode::kPlannedUse;
  const int32_t n = static_cast<int32_t>(tree.size());
  results->assocs.assign(n, AssocFairshare{});
  if (tree.root() < 0) return;

  const int64_t dt = params.planned_use_interval_s > 0 ? params.planned_use_interval_s : 86400;
  const long double D = PlannedUsePerIntervalDecay(dt, params.decay_half_life_s);
  const long double weight = D < 1 ? 1 - D : 1;  // no decay: see the top of the file
  const double C = std::isfinite(capacity_billing_per_s) && capacity_billing_per_s > 0
                       ? capacity_billing_per_s
                       : 0.0;

  // One pass over the (large) AssocNode records for what the lookups need.
  std::vector<uint32_t> ids(n);
  std::vector<double> ratio(n);
  std::vector<int32_t> first(n);
  for (int32_t i = 0; i < n; ++i) {
    const AssocNode& node = tree.node(i);
    const AssocLinks& links = tree.links(i);
    ids[i] = node.id;
    ratio[i] = links.level_shares == 0 || links.level_shares == kNoVal
                   ? -1.0
                   : static_cast<double>(node.shares_raw) / static_cast<double>(links.level_shares);
    first[i] = node.uses_parent() && i != tree.root() ? links.fs_parent : i;
  }
  const std::vector<const PlannedUseEntry*> entry = EntriesByIndex(tree, ids, ledger);
  const std::vector<double> machine_share = MachineShares(tree, ratio, first);
  for (int32_t i = 0; i < n; ++i) {
    AssocFairshare& out = results->assocs[i];
    const double R = machine_share[i] * C;
    long double H = 0, c = 0;
    if (entry[i]) {
      H = entry[i]->history;
      c = entry[i]->open;
    }
    long double indexed = c + D * H;  // Σ D^m s(n-m)
    if (!(indexed > 0)) indexed = 0;  // negative or NaN state counts as none
    long double u;
    if (R > 0) {
      u = weight / (static_cast<long double>(R) * dt) * indexed;
      if (std::isnan(u)) u = std::numeric_limits<long double>::infinity();
    } else {
      u = indexed > 0 ? std::numeric_limits<long double>::infinity() : 0.0L;
    }
    out.planned_rate = R;
    out.usage_efctv = u;
    out.level_fs = u;
    out.fs_factor = u <= 1 ? 1.0 : static_cast<double>(1.0L / u);
    if (i != tree.root()) out.usage_norm = UsageNorm(tree, i);
  }

  // job_factor: the minimum F over the association and its ancestors below
  // the root (direct parents, Fairshare=parent accounts included). Orphans,
  // whose chain never reaches the root, are not ranked (0).
  //
  // Computed once per association, top-down: path_min[i] = min(F_i,
  // path_min[parent]) with path_min = 1 above the root. A minimum does not
  // depend on the order it is taken in (F is never NaN: a NaN u becomes
  // +inf, so F is in [0, 1]), so this equals the walk up from each
  // association. List order does not put parents first, so each unresolved
  // chain is walked up to the first resolved ancestor and resolved on the way
  // back down; a chain that ends at -1 or runs into itself (a cycle) never
  // reaches the root.
  constexpr double kUnreached = -1.0;  // F is never negative
  enum : char { kUnknown, kOnStack, kDone };
  std::vector<char> state(n, kUnknown);
  std::vector<double> path_min(n, kUnreached);
  std::vector<int32_t> chain;
  const int32_t root = tree.root();
  state[root] = kDone;
  path_min[root] = 1.0;  // the root's own F does not count
  for (int32_t start = 0; start < n; ++start) {
    int32_t a = start;
    while (a >= 0 && state[a] == kUnknown) {
      state[a] = kOnStack;
      chain.push_back(a);
      a = tree.links(a).parent;
    }
    // a < 0: orphan; kOnStack: a cycle; kDone: resolved (the root included).
    double above = (a >= 0 && state[a] == kDone) ? path_min[a] : kUnreached;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (above != kUnreached) above = std::min(above, results->assocs[*it].fs_factor);
      path_min[*it] = above;
      state[*it] = kDone;
    }
    chain.clear();
  }
  for (int32_t i = 0; i < n; ++i) {
    results->assocs[i].job_factor = path_min[i] == kUnreached ? 0.0 : path_min[i];
  }
}

// ---- state file ----

std::string SerializeLedger(const PlannedUseLedger& ledger) {
  std::string out;
  out += kMagic;
  out += ' ';
  out += std::to_string(kVersion);
  out += "\ninterval ";
  out += std::to_string(ledger.interval_index);
  out += "\nentries ";
  out += std::to_string(ledger.entries.size());
  out += '\n';
  for (const auto& [id, e] : ledger.entries) {
    out += std::to_string(id);
    out += ' ';
    AppendLongDouble(e.history, &out);
    out += ' ';
    AppendLongDouble(e.open, &out);
    out += '\n';
  }
  AppendChecksumLine(&out);
  return out;
}

bool ParseLedger(const std::string& bytes, PlannedUseLedger* ledger, std::string* error) {
  const std::string magic = std::string(kMagic) + " ";
  if (bytes.size() < magic.size()) {
    if (bytes.compare(0, bytes.size(), magic, 0, bytes.size()) == 0) {
      return Fail(error, "truncated (" + std::to_string(bytes.size()) + " bytes, no header)");
    }
    return Fail(error, "bad magic (not a FWPU ledger)");
  }
  if (bytes.compare(0, magic.size(), magic) != 0) {
    return Fail(error, "bad magic (not a FWPU ledger)");
  }
  size_t header_end = bytes.find('\n');
  if (header_end == std::string::npos) return Fail(error, "truncated in the header");
  const std::string version = bytes.substr(magic.size(), header_end - magic.size());
  if (version != std::to_string(kVersion)) {
    return Fail(error, "unsupported version '" + version.substr(0, 16) + "' (expected " +
                           std::to_string(kVersion) + ")");
  }

  // The checksum line closes the file: "checksum " + 16 hex + "\n".
  const std::string key = "\nchecksum ";
  const size_t key_pos = bytes.rfind(key);
  if (key_pos == std::string::npos || key_pos < header_end) {
    return Fail(error, "truncated or corrupted (no checksum line)");
  }
  const size_t sum_begin = key_pos + key.size();
  const size_t line_end = bytes.find('\n', sum_begin);
  if (line_end == std::string::npos) {
    if (bytes.size() - sum_begin <= 16) return Fail(error, "truncated in the checksum line");
    return Fail(error, "malformed checksum line");
  }
  if (line_end + 1 != bytes.size()) {
    return Fail(error, "trailing bytes after the checksum line (" +
                           std::to_string(bytes.size() - line_end - 1) + ")");
  }
  uint64_t stored;
  if (!ParseHex64(bytes.substr(sum_begin, line_end - sum_begin), &stored)) {
    return Fail(error, "malformed checksum line");
  }
  const size_t body_end = key_pos + 1;  // the checksum covers up to and incl. '\n'
  if (Fnv1a64(bytes.data(), body_end) != stored) {
    return Fail(error, "checksum mismatch (the file is corrupted)");
  }

  // The body is intact; parse it strictly all the same.
  LineReader reader(bytes, header_end + 1, body_end);
  PlannedUseLedger parsed;
  std::string line;
  if (!reader.NextLine(&line) || line.compare(0, 9, "interval ") != 0 ||
      !ParseDecimal(line.substr(9), true, &parsed.interval_index) || parsed.interval_index < -1) {
    return Fail(error, "malformed interval line");
  }
  int64_t count = 0;
  if (!reader.NextLine(&line) || line.compare(0, 8, "entries ") != 0 ||
      !ParseDecimal(line.substr(8), false, &count)) {
    return Fail(error, "malformed entries line");
  }
  int64_t read = 0;
  bool have_last = false;
  uint32_t last_id = 0;
  while (reader.NextLine(&line)) {
    std::vector<std::string> parts = SplitSpaces(line);
    int64_t id = 0;
    if (parts.size() != 5 || !ParseDecimal(parts[0], false, &id) || id > UINT32_MAX) {
      return Fail(error, "malformed entry " + std::to_string(read + 1));
    }
    if (have_last && static_cast<uint32_t>(id) <= last_id) {
      return Fail(error, "entry ids not strictly ascending at association " + std::to_string(id));
    }
    PlannedUseEntry e;
    std::string why;
    if (!ParseStoredValue(parts[1], parts[2], &e.history, &why) ||
        !ParseStoredValue(parts[3], parts[4], &e.open, &why)) {
      return Fail(error, "association " + std::to_string(id) + ": " + why);
    }
    parsed.entries.emplace(static_cast<uint32_t>(id), e);
    last_id = static_cast<uint32_t>(id);
    have_last = true;
    ++read;
  }
  if (!reader.AtEnd()) return Fail(error, "malformed body");
  if (read != count) {
    return Fail(error, "entry count " + std::to_string(count) + " but " + std::to_string(read) +
                           " entries");
  }
  *ledger = std::move(parsed);
  return true;
}

}  // namespace fairway
