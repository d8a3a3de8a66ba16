// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway whatif`: reads the running controller (as `fairway explain`),
// applies the changes, and prints how the pending jobs' order moves
// (whatif_model.h). Exit 0; 1 when the baseline (no change) does not equal
// the controller's priorities; 2 on a bad change; 3 when the controller
// cannot be read.
#include "whatif.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "io/slurm_conf_values.h"
#include "shell_util.h"
#include "whatif_model.h"

namespace fairway {

namespace {

struct WhatIfOptions {
  WhatIfChanges changes;
  std::string age;
  std::string plot;
  size_t top = 10;
  bool json = false;
};

// "+2h", "-30m", "+1d", "+90" (minutes), "+1-12:00:00" (Slurm time) in seconds.
bool ParseAge(const std::string& text, int64_t* seconds) {
  if (text.empty() || (text[0] != '+' && text[0] != '-')) return false;
  const int sign = text[0] == '-' ? -1 : 1;
  std::string rest = text.substr(1);
  if (rest.empty()) return false;
  const char unit = rest.back();
  if (unit == 'h' || unit == 'm' || unit == 'd' || unit == 's') {
    char* end = nullptr;
    const double v = std::strtod(rest.substr(0, rest.size() - 1).c_str(), &end);
    if (!end || *end || rest.size() < 2) return false;
    const double scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 1;
    *seconds = static_cast<int64_t>(sign * v * scale);
    return true;
  }
  const int32_t s = SlurmTimeStrToSecs(rest);
  if (s < 0) return false;
  *seconds = sign * static_cast<int64_t>(s);
  return true;
}

// A file name inside a gnuplot double-quoted string.
std::string GnuplotString(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string Rank(size_t r) { return r ? std::to_string(r) : "-"; }

bool Plot(const WhatIfResult& r, const std::string& path) {
  const std::string gnuplot = FindInPath("gnuplot");
  if (gnuplot.empty()) {
    std::fprintf(stderr, "fairway whatif: gnuplot not found in PATH (install gnuplot-nox)\n");
    return false;
  }
  const std::string data = path + ".dat", script = path + ".gp";
  {
    std::ofstream d(data);
    d << "# job rank_before rank_after priority_before priority_after\n";
    for (const WhatIfJob& j : r.jobs) {
      d << j.job_id << " " << j.rank_before << " " << j.rank_after << " " << j.before << " "
        << j.after << "\n";
    }
    std::ofstream g(script);
    const bool svg = path.size() > 4 && path.substr(path.size() - 4) == ".svg";
    g << "set terminal " << (svg ? "svg size 700,640" : "pngcairo size 700,640") << "\n"
      << "set output \"" << GnuplotString(path) << "\"\n"
      << "set title 'Pending jobs: rank now and after the change (rho = " << r.spearman << ")'\n"
      << "set xlabel 'rank now'\nset ylabel 'rank after the change'\nset key off\nset grid\n"
      << "set size square\nset xrange [0:" << r.jobs.size() + 1 << "]\nset yrange [0:"
      << r.jobs.size() + 1 << "]\n"
      << "plot x with lines lc rgb '#aaaaaa', \"" << GnuplotString(data)
      << "\" using 2:3 with points pt 7 ps 0.6 lc rgb '#1f77b4'\n";
  }
  const std::string cmd = ShellQuote(gnuplot) + " " + ShellQuote(script);
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "fairway whatif: gnuplot failed (see %s)\n", script.c_str());
    return false;
  }
  return true;
}

int RunWhatIfCommand(WhatIfOptions options) {
  if (!options.age.empty() && !ParseAge(options.age, &options.changes.age_shift_s)) {
    std::fprintf(stderr, "fairway whatif: --age %s: expected +N[smhd] or +[days-]hours:minutes:seconds\n",
                 options.age.c_str());
    return 2;
  }
  client::ControllerState state;
  std::vector<client::ControllerJob> jobs;
  std::vector<client::ControllerFactors> factors;
  std::string error;
  if (!client::LoadControllerState(&state, &error) ||
      !client::LoadJobs(&jobs, state.tres_names, &error) || !client::LoadFactors(&factors, &error)) {
    std::fprintf(stderr, "fairway whatif: %s\n", error.c_str());
    return 3;
  }
  client::ControllerState changed;
  if (!ApplyWhatIf(state, options.changes, client::BuiltSlurmVersion(), &changed, &error)) {
    std::fprintf(stderr, "fairway whatif: %s\n", error.c_str());
    return 2;
  }
  ExplainModel before, after;
  if (!BuildExplainModel(std::move(state), &before, &error) ||
      !BuildExplainModel(std::move(changed), &after, &error)) {
    std::fprintf(stderr, "fairway whatif: association tree: %s\n", error.c_str());
    return 3;
  }
  const WhatIfResult r =
      RunWhatIf(before, after, jobs, factors, std::time(nullptr), options.changes.age_shift_s);
  if (options.json) {
    nlohmann::json out;
    out["baseline_matches"] = r.baseline_matches;
    out["baseline_mismatches"] = r.baseline_mismatches;
    out["spearman"] = r.spearman;
    out["moved"] = r.moved;
    out["partial"] = before.partial;
    out["private_jobs"] = before.state.private_jobs;
    out["jobs"] = nlohmann::json::array();
    for (const WhatIfJob& j : r.jobs) {
      out["jobs"].push_back({{"job_id", j.job_id}, {"account", j.account}, {"user", j.user},
                             {"priority", j.before}, {"priority_after", j.after},
                             {"rank", j.rank_before}, {"rank_after", j.rank_after}});
    }
    for (const auto* list : {&r.users, &r.accounts}) {
      nlohmann::json& rows = out[list == &r.users ? "users" : "accounts"];
      rows = nlohmann::json::array();
      for (const WhatIfAssoc& a : *list) {
        // A factor hidden from a partial view is null.
        auto factor = [](double f) { return std::isnan(f) ? nlohmann::json() : nlohmann::json(f); };
        rows.push_back({{"account", a.account}, {"user", a.user}, {"fairshare", factor(a.fs_before)},
                        {"fairshare_after", factor(a.fs_after)}, {"first_rank", a.first_before},
                        {"first_rank_after", a.first_after}});
      }
    }
    std::printf("%s\n", out.dump(2).c_str());
    return r.baseline_matches ? 0 : 1;
  }
  if (!r.baseline_matches) {
    std::printf("Baseline: the recomputation differs from the controller for these jobs, so "
                "the what-if would be wrong too:\n");
    for (const std::string& m : r.baseline_mismatches) std::printf("  %s\n", m.c_str());
    return 1;
  }
  if (before.partial) {
    // explain's words for the partial view (explain_visible.h).
    std::printf("Partial view (PrivateData=usage: slurmctld sends you only your own associations "
                "and those of the accounts you coordinate): factors the visible rows do not give "
                "are the controller's (sprio's), and only the visible associations are listed.\n");
  }
  if (before.state.private_jobs) {
    std::printf("PrivateData=jobs: the ranks are among the pending jobs slurmctld lists to you "
                "(your own and those of the accounts you coordinate, or all for an operator).\n");
  }
  std::printf("Baseline: %zu pending jobs, every priority equal to the controller's.\n",
              r.jobs.size());
  std::printf("After the change: %zu of %zu jobs change rank; Spearman's rank correlation %.4f.\n",
              r.moved, r.jobs.size(), r.spearman);
  std::vector<WhatIfJob> movers = r.jobs;
  std::stable_sort(movers.begin(), movers.end(), [](const WhatIfJob& a, const WhatIfJob& b) {
    auto d = [](const WhatIfJob& j) {
      return std::abs(static_cast<long>(j.rank_before) - static_cast<long>(j.rank_after));
    };
    return d(a) > d(b);
  });
  std::printf("\nJobs that move most:\n  %8s %-12s %-12s %10s %10s %6s %6s\n", "job", "account",
              "user", "priority", "after", "rank", "after");
  for (size_t i = 0; i < movers.size() && i < options.top; ++i) {
    const WhatIfJob& j = movers[i];
    if (j.rank_before == j.rank_after) break;
    std::printf("  %8u %-12s %-12s %10u %10u %6zu %6zu\n", j.job_id, j.account.c_str(),
                j.user.c_str(), j.before, j.after, j.rank_before, j.rank_after);
  }
  std::printf("\nUsers: fairshare factor and first pending job's rank\n  %-12s %-12s %9s %9s %6s %6s\n",
              "account", "user", "factor", "after", "first", "after");
  auto factor = [](double f) {
    char text[32];
    if (std::isnan(f)) return std::string("hidden");
    std::snprintf(text, sizeof text, "%.6f", f);
    return std::string(text);
  };
  for (const WhatIfAssoc& a : r.users) {
    std::printf("  %-12s %-12s %9s %9s %6s %6s\n", a.account.c_str(), a.user.c_str(),
                factor(a.fs_before).c_str(), factor(a.fs_after).c_str(),
                Rank(a.first_before).c_str(), Rank(a.first_after).c_str());
  }
  std::printf("\nAccounts: first pending job's rank in the subtree\n  %-12s %6s %6s\n", "account",
              "first", "after");
  for (const WhatIfAssoc& a : r.accounts) {
    std::printf("  %-12s %6s %6s\n", a.account.c_str(), Rank(a.first_before).c_str(),
                Rank(a.first_after).c_str());
  }
  if (!options.plot.empty()) {
    if (!Plot(r, options.plot)) return 3;
    std::printf("\nPlot: %s\n", options.plot.c_str());
  }
  return 0;
}

}  // namespace

void RegisterWhatIfCommand(CLI::App& app) {
  auto options = std::make_shared<WhatIfOptions>();
  CLI::App* sub = app.add_subcommand(
      "whatif", "Re-rank the live queue under changed settings, shares, usage or time");
  sub->add_option("--set", options->changes.settings,
                  "A priority setting NAME=VALUE (PriorityWeight*, PriorityFlags, "
                  "PriorityParameters, PriorityMaxAge, PriorityFavorSmall, "
                  "FairShareDampeningFactor); repeatable");
  sub->add_option("--shares", options->changes.shares,
                  "ACCOUNT[,USER]=N or =parent: an association's Fairshare; repeatable");
  sub->add_option("--usage", options->changes.usage,
                  "ACCOUNT[,USER]=+X or -X core-hours more or less usage; repeatable");
  sub->add_option("--age", options->age, "Every pending job older by this much (+2h, +1d)");
  sub->add_option("--plot", options->plot, "Draw old against new rank into this PNG (or .svg)");
  sub->add_option("--top", options->top, "How many of the jobs that move most to list (10)");
  sub->add_flag("--json", options->json, "Every job and association, machine-readable");
  sub->callback([options]() {
    int rc = RunWhatIfCommand(*options);
    if (rc) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fairway
