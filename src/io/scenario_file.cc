// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenario_file.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "../text_util.h"

namespace fairway {

namespace {

constexpr int64_t kMaxDays = 100000;
constexpr size_t kMaxJobs = 20000000;

const std::vector<std::string>& KnownPolicies() {
  static const std::vector<std::string> names = {"linear_decay", "exp_decay", "fair_tree",
                                                  "classic",      "ranged",    "planned_use"};
  return names;
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

class Parser {
 public:
  Parser(const std::string& source, const std::string& base_dir, sim::Scenario* s)
      : source_(source), base_dir_(base_dir), s_(s) {}

  bool Fail(const std::string& what) {
    error_ = source_ + ":" + std::to_string(line_) + ": " + what;
    return false;
  }
  const std::string& error() const { return error_; }

  bool Count(const std::string& key, const std::string& text, int64_t lo, int64_t hi, int64_t* out) {
    std::optional<int64_t> v = ParseUnsigned(text);
    if (!v || *v < lo || *v > hi) {
      return Fail(key + ": '" + text + "' is not a whole number in " + std::to_string(lo) + ".." +
                  std::to_string(hi));
    }
    *out = *v;
    return true;
  }
  bool Duration(const std::string& key, const std::string& text, bool allow_zero, int64_t* out) {
    std::optional<int64_t> v = ParseScenarioDuration(text);
    if (!v || (*v == 0 && !allow_zero)) {
      return Fail(key + ": '" + text + "' is not a " + (allow_zero ? "" : "positive ") +
                  "duration with a unit (s, m, min, h, d), e.g. 40m, 12h, 1d");
    }
    *out = *v;
    return true;
  }
  // A point in time: a number of days ("180", "0.5") or a duration ("36h").
  bool Time(const std::string& key, const std::string& text, int64_t* out) {
    std::optional<double> days = ParseDouble(text);
    if (days && std::isfinite(*days) && *days >= 0 && *days <= kMaxDays) {
      *out = std::llround(*days * 86400);
      return true;
    }
    std::optional<int64_t> d = ParseScenarioDuration(text);
    if (d) {
      *out = *d;
      return true;
    }
    return Fail(key + ": '" + text + "' is neither a number of days nor a duration (12h, 3d)");
  }

  bool Line(const std::vector<std::string>& w) {
    const std::string key = ToLower(w[0]);
    auto need = [&](size_t n) {
      if (w.size() != n + 1) {
        return Fail("'" + w[0] + "' takes " + std::to_string(n) + " value" + (n == 1 ? "" : "s") +
                    ", got " + std::to_string(w.size() - 1));
      }
      return true;
    };
    int64_t v = 0;
    if (key == "name") {
      if (!need(1)) return false;
      s_->name = w[1];
    } else if (key == "nodes") {
      if (!need(1) || !Count(key, w[1], 1, 10000000, &v)) return false;
      s_->nodes = static_cast<uint32_t>(v);
    } else if (key == "billing_per_node") {
      if (!need(1)) return false;
      std::optional<double> b = ParseDouble(w[1]);
      if (!b || !std::isfinite(*b) || *b <= 0) return Fail("billing_per_node: '" + w[1] + "' is not a positive number");
      s_->billing_per_node = *b;
    } else if (key == "days") {
      if (!need(1) || !Count(key, w[1], 1, kMaxDays, &v)) return false;
      s_->days = static_cast<int>(v);
    } else if (key == "step") {
      if (!need(1) || !Duration(key, w[1], true, &s_->step_s)) return false;
    } else if (key == "interval") {
      if (!need(1) || !Duration(key, w[1], false, &s_->interval_s)) return false;
    } else if (key == "job_nodes") {
      if (!need(1) || !Count(key, w[1], 1, 10000000, &v)) return false;
      s_->job_nodes = static_cast<uint32_t>(v);
    } else if (key == "job_duration") {
      if (!need(1) || !Duration(key, w[1], false, &s_->job_duration_s)) return false;
    } else if (key == "decay") {
      if (!need(1)) return false;
      std::optional<double> d = ParseDecayExpression(w[1]);
      if (!d || !(*d > 0) || *d > 1) return Fail("decay: '" + w[1] + "' is not a factor in (0, 1], e.g. 10^(-1/15)");
      if (half_life_line_) return Fail("decay: half_life was already given on line " + std::to_string(half_life_line_));
      s_->decay_per_interval = *d;
      decay_line_ = line_;
    } else if (key == "half_life") {
      if (!need(1) || !Duration(key, w[1], true, &v)) return false;
      if (decay_line_) return Fail("half_life: decay was already given on line " + std::to_string(decay_line_));
      s_->half_life_s = static_cast<double>(v);
      half_life_line_ = line_;
    } else if (key == "weight_fairshare") {
      if (!need(1) || !Count(key, w[1], 0, 0xffffffffLL, &v)) return false;
      s_->weight_fairshare = static_cast<uint32_t>(v);
    } else if (key == "damp") {
      if (!need(1) || !Count(key, w[1], 1, 65535, &v)) return false;
      s_->damp = static_cast<uint16_t>(v);
    } else if (key == "policies") {
      if (w.size() < 2) return Fail("policies: name at least one policy");
      s_->policies.clear();
      for (size_t i = 1; i < w.size(); ++i) {
        bool known = false;
        for (const std::string& p : KnownPolicies()) known = known || p == w[i];
        known = known || w[i] == "fifo";  // not in the default set
        if (!known) return Fail("policies: unknown policy '" + w[i] + "' (linear_decay, exp_decay, fair_tree, classic, ranged, planned_use, fifo)");
        s_->policies.push_back(w[i]);
      }
    } else if (key == "account") {
      return Account(w);
    } else if (key == "user") {
      return User(w);
    } else if (key == "submit") {
      return Submit(w);
    } else if (key == "trace") {
      if (!need(1)) return false;
      return Trace(w[1]);
    } else if (key == "job") {
      return Job(w);
    } else {
      return Fail("unknown keyword '" + w[0] + "'");
    }
    return true;
  }

  bool Account(const std::vector<std::string>& w) {
    if (w.size() < 2) return Fail("account: expected 'account NAME [parent P] [shares N]'");
    sim::ScenarioAccount a;
    a.name = w[1];
    a.line = line_;
    if (a.name == "root") return Fail("account: 'root' is implicit");
    if (names_.count(a.name)) return Fail("account: '" + a.name + "' is already defined");
    for (size_t i = 2; i < w.size(); i += 2) {
      if (i + 1 >= w.size()) return Fail("account: '" + w[i] + "' needs a value");
      const std::string k = ToLower(w[i]);
      int64_t v = 0;
      if (k == "parent") {
        if (w[i + 1] != "root" && !accounts_.count(w[i + 1])) {
          return Fail("account: parent '" + w[i + 1] + "' is not defined above");
        }
        a.parent = w[i + 1] == "root" ? "" : w[i + 1];
      } else if (k == "shares") {
        if (!Count("account shares", w[i + 1], 0, 0x7ffffffe, &v)) return false;
        a.shares = static_cast<uint32_t>(v);
      } else {
        return Fail("account: unknown field '" + w[i] + "' (parent, shares)");
      }
    }
    names_.insert(a.name);
    accounts_.insert(a.name);
    s_->accounts.push_back(a);
    return true;
  }

  bool User(const std::vector<std::string>& w) {
    if (w.size() < 2) return Fail("user: expected 'user NAME (rate R | shares N) [account A]'");
    sim::ScenarioUser u;
    u.name = w[1];
    u.line = line_;
    if (names_.count(u.name)) return Fail("user: '" + u.name + "' is already defined");
    bool has_rate = false, has_shares = false;
    for (size_t i = 2; i < w.size(); i += 2) {
      if (i + 1 >= w.size()) return Fail("user: '" + w[i] + "' needs a value");
      const std::string k = ToLower(w[i]);
      int64_t v = 0;
      if (k == "rate") {
        std::optional<double> r = ParseDouble(w[i + 1]);
        if (!r || !std::isfinite(*r) || *r <= 0) return Fail("user: rate '" + w[i + 1] + "' is not a positive number of nodes");
        u.rate_nodes = *r;
        has_rate = true;
      } else if (k == "shares") {
        if (!Count("user shares", w[i + 1], 0, 0x7ffffffe, &v)) return false;
        u.shares = static_cast<uint32_t>(v);
        has_shares = true;
      } else if (k == "account") {
        if (!accounts_.count(w[i + 1])) return Fail("user: account '" + w[i + 1] + "' is not defined above");
        u.account = w[i + 1];
      } else {
        return Fail("user: unknown field '" + w[i] + "' (rate, shares, account)");
      }
    }
    if (has_rate == has_shares) return Fail("user: give exactly one of 'rate R' or 'shares N'");
    if (has_rate) by_rate_ = true; else by_shares_ = true;
    if (by_rate_ && by_shares_) return Fail("user: do not mix users given by rate and by shares");
    names_.insert(u.name);
    users_.insert(u.name);
    s_->users.push_back(u);
    return true;
  }

  bool Submit(const std::vector<std::string>& w) {
    if (w.size() < 4 || ToLower(w[2]) != "every") {
      return Fail("submit: expected 'submit USER every DURATION [from A] [to B] [day_step N] [nodes N] [duration D]'");
    }
    sim::SubmitPattern p;
    p.user = w[1];
    p.line = line_;
    if (!users_.count(p.user)) return Fail("submit: user '" + p.user + "' is not defined above");
    if (!Duration("submit every", w[3], false, &p.every_s)) return false;
    for (size_t i = 4; i < w.size(); i += 2) {
      if (i + 1 >= w.size()) return Fail("submit: '" + w[i] + "' needs a value");
      const std::string k = ToLower(w[i]);
      int64_t v = 0;
      if (k == "from") {
        if (!Time("submit from", w[i + 1], &p.from_s)) return false;
      } else if (k == "to") {
        if (!Time("submit to", w[i + 1], &p.to_s)) return false;
      } else if (k == "day_step") {
        if (!Count("submit day_step", w[i + 1], 1, kMaxDays, &v)) return false;
        p.day_step = static_cast<int>(v);
      } else if (k == "nodes") {
        if (!Count("submit nodes", w[i + 1], 1, 10000000, &v)) return false;
        p.nodes = static_cast<uint32_t>(v);
      } else if (k == "duration") {
        if (!Duration("submit duration", w[i + 1], false, &p.duration_s)) return false;
      } else {
        return Fail("submit: unknown field '" + w[i] + "' (from, to, day_step, nodes, duration)");
      }
    }
    if (p.to_s >= 0 && p.to_s <= p.from_s) return Fail("submit: 'to' must be after 'from'");
    if (p.day_step > 0 && p.from_s % 86400 != 0) return Fail("submit: with day_step, 'from' must be a whole day");
    s_->patterns.push_back(p);
    return true;
  }

  // "job SUBMIT USER NODES DURATION [start S] [id N]": whole seconds.
  bool Job(const std::vector<std::string>& w) {
    if (w.size() < 5) return Fail("job: expected 'job SUBMIT_SECONDS USER NODES DURATION_SECONDS [start S] [id N]'");
    sim::TraceJob j;
    int64_t v = 0;
    if (!Count("job submit", w[1], 0, kMaxDays * 86400, &j.submit_s)) return false;
    j.user = w[2];
    if (!users_.count(j.user)) return Fail("job: user '" + j.user + "' is not defined above");
    if (!Count("job nodes", w[3], 1, 10000000, &v)) return false;
    j.nodes = static_cast<uint32_t>(v);
    if (!Count("job duration", w[4], 1, kMaxDays * 86400, &j.duration_s)) return false;
    for (size_t i = 5; i < w.size(); i += 2) {
      if (i + 1 >= w.size()) return Fail("job: '" + w[i] + "' needs a value");
      const std::string k = ToLower(w[i]);
      if (k == "start") {
        if (!Count("job start", w[i + 1], 0, kMaxDays * 86400, &j.recorded_start_s)) return false;
      } else if (k == "id") {
        if (!Count("job id", w[i + 1], 0, 0x7fffffffffffLL, &j.id)) return false;
      } else {
        return Fail("job: unknown field '" + w[i] + "' (start, id)");
      }
    }
    s_->trace.push_back(j);
    if (s_->trace.size() > kMaxJobs) return Fail("job: more than 20 million jobs");
    return true;
  }

  bool Trace(const std::string& file) {
    std::string path = file;
    if (!path.empty() && path[0] != '/' && !base_dir_.empty()) path = base_dir_ + "/" + path;
    std::ifstream in(path);
    if (!in) return Fail("trace: cannot open '" + path + "'");
    std::string raw;
    int n = 0;
    bool header = false;
    while (std::getline(in, raw)) {
      ++n;
      std::string text = Trim(raw);
      if (text.empty() || text[0] == '#') continue;
      std::vector<std::string> f = Split(text, ',');
      auto bad = [&](const std::string& what) {
        error_ = path + ":" + std::to_string(n) + ": " + what;
        return false;
      };
      if (!header) {
        header = true;
        if (f.size() != 4 || ToLower(Trim(f[0])) != "submit" || ToLower(Trim(f[1])) != "user" ||
            ToLower(Trim(f[2])) != "nodes" || ToLower(Trim(f[3])) != "duration") {
          return bad("expected the header 'submit,user,nodes,duration'");
        }
        continue;
      }
      if (f.size() != 4) return bad("expected 4 fields (submit,user,nodes,duration), got " + std::to_string(f.size()));
      sim::TraceJob j;
      std::optional<int64_t> submit = ParseUnsigned(Trim(f[0]));
      std::optional<int64_t> nodes = ParseUnsigned(Trim(f[2]));
      std::optional<int64_t> duration = ParseUnsigned(Trim(f[3]));
      j.user = Trim(f[1]);
      if (!submit) return bad("submit '" + Trim(f[0]) + "' is not whole seconds");
      if (!users_.count(j.user)) return bad("user '" + j.user + "' is not defined in " + source_);
      if (!nodes || *nodes < 1 || *nodes > 10000000) return bad("nodes '" + Trim(f[2]) + "' is not a positive whole number");
      if (!duration || *duration < 1) return bad("duration '" + Trim(f[3]) + "' is not positive whole seconds");
      j.submit_s = *submit;
      j.nodes = static_cast<uint32_t>(*nodes);
      j.duration_s = *duration;
      s_->trace.push_back(j);
      if (s_->trace.size() > kMaxJobs) return bad("more than 20 million jobs");
    }
    if (!header) return Fail("trace: '" + path + "' has no header line");
    return true;
  }

  bool Finish() {
    line_ = 0;
    auto fail0 = [&](const std::string& what) {
      error_ = source_ + ": " + what;
      return false;
    };
    if (s_->nodes == 0) return fail0("missing 'nodes'");
    if (s_->days == 0) return fail0("missing 'days'");
    if (s_->users.empty()) return fail0("no 'user' lines");
    if (s_->patterns.empty() && s_->trace.empty()) return fail0("no 'submit' or 'trace' lines: no jobs (or 'job' lines)");
    if (s_->job_nodes > s_->nodes) return fail0("job_nodes exceeds nodes: such jobs never start");
    for (const sim::SubmitPattern& p : s_->patterns) {
      if (p.nodes > s_->nodes) {
        error_ = source_ + ":" + std::to_string(p.line) + ": submit: nodes exceeds the machine's " + std::to_string(s_->nodes);
        return false;
      }
      int64_t to = p.to_s < 0 ? s_->duration_s() : std::min(p.to_s, s_->duration_s());
      double jobs = p.day_step > 0 ? (double(to - p.from_s) / 86400 / p.day_step + 1) * (86400.0 / p.every_s)
                                   : double(to - p.from_s) / p.every_s;
      if (jobs > kMaxJobs) {
        error_ = source_ + ":" + std::to_string(p.line) + ": submit: this pattern makes more than 20 million jobs";
        return false;
      }
    }
    for (const sim::TraceJob& j : s_->trace) {
      if (j.nodes > s_->nodes) return fail0("trace: a job asks for " + std::to_string(j.nodes) + " nodes, more than the machine's");
    }
    if (s_->policies.empty()) s_->policies = KnownPolicies();
    // Rates become shares (x1000 when a rate is fractional).
    bool fractional = false;
    for (const sim::ScenarioUser& u : s_->users) fractional = fractional || u.rate_nodes != std::floor(u.rate_nodes);
    for (sim::ScenarioUser& u : s_->users) {
      if (u.rate_nodes > 0) {
        double shares = fractional ? std::round(u.rate_nodes * 1000) : u.rate_nodes;
        if (shares > 0x7ffffffe) return fail0("user " + u.name + ": rate too large");
        u.shares = static_cast<uint32_t>(shares);
      }
    }
    if (s_->decay_per_interval > 0) {
      s_->half_life_s = s_->decay_per_interval >= 1 ? 0
          : s_->interval_s * std::log(2.0) / -std::log(s_->decay_per_interval);
    } else {
      s_->decay_per_interval = s_->half_life_s > 0 ? std::pow(2.0, -double(s_->interval_s) / s_->half_life_s) : 1.0;
    }
    return true;
  }

  void set_line(int line) { line_ = line; }

 private:
  std::string source_, base_dir_, error_;
  sim::Scenario* s_;
  int line_ = 0;
  int decay_line_ = 0, half_life_line_ = 0;
  bool by_rate_ = false, by_shares_ = false;
  std::set<std::string> names_, accounts_, users_;
};

}  // namespace

std::optional<int64_t> ParseScenarioDuration(std::string_view text) {
  std::string s = ToLower(Trim(text));
  if (s == "0") return 0;
  size_t digits = 0;
  while (digits < s.size() && (std::isdigit(static_cast<unsigned char>(s[digits])) || s[digits] == '.')) ++digits;
  if (digits == 0 || digits == s.size()) return std::nullopt;
  std::optional<double> value = ParseDouble(s.substr(0, digits));
  std::string unit = s.substr(digits);
  double mult = 0;
  if (unit == "s" || unit == "sec") mult = 1;
  else if (unit == "m" || unit == "min") mult = 60;
  else if (unit == "h") mult = 3600;
  else if (unit == "d") mult = 86400;
  if (!value || mult == 0 || *value > 1e12 / mult) return std::nullopt;
  double seconds = *value * mult;
  if (seconds != std::floor(seconds)) return std::nullopt;
  return static_cast<int64_t>(seconds);
}

std::optional<double> ParseDecayExpression(std::string_view text) {
  std::string s = Trim(text);
  size_t caret = s.find('^');
  if (caret == std::string::npos) return ParseDouble(s);
  std::optional<double> base = ParseDouble(s.substr(0, caret));
  std::string e = s.substr(caret + 1);
  if (e.size() >= 2 && e.front() == '(' && e.back() == ')') e = e.substr(1, e.size() - 2);
  std::optional<double> exponent;
  size_t slash = e.find('/');
  if (slash == std::string::npos) {
    exponent = ParseDouble(e);
  } else {
    std::optional<double> num = ParseDouble(e.substr(0, slash));
    std::optional<double> den = ParseDouble(e.substr(slash + 1));
    if (num && den && *den != 0) exponent = *num / *den;
  }
  if (!base || !exponent || *base <= 0) return std::nullopt;
  double v = std::pow(*base, *exponent);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

bool ReadScenario(std::istream& in, const std::string& source, const std::string& base_dir,
                  sim::Scenario* scenario, std::string* error) {
  *scenario = sim::Scenario();
  scenario->source = source;
  Parser parser(source, base_dir, scenario);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    parser.set_line(line);
    size_t hash = raw.find('#');
    std::vector<std::string> w = Words(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (w.empty()) continue;
    if (!parser.Line(w)) {
      *error = parser.error();
      return false;
    }
  }
  if (!parser.Finish()) {
    *error = parser.error();
    return false;
  }
  return true;
}

bool ReadScenarioFile(const std::string& path, sim::Scenario* scenario, std::string* error) {
  if (path == "-") return ReadScenario(std::cin, "<stdin>", "", scenario, error);
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open for reading";
    return false;
  }
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? "" : path.substr(0, slash);
  return ReadScenario(in, path, base, scenario, error);
}

}  // namespace fairway
