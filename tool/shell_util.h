// SPDX-License-Identifier: GPL-2.0-or-later
// What the tool's commands need to run a helper program (gnuplot):
// finding it on PATH and quoting its arguments for the shell and for gnuplot.
#ifndef FAIRWAY_TOOL_SHELL_UTIL_H_
#define FAIRWAY_TOOL_SHELL_UTIL_H_

#include <string>

namespace fairway {

// s in single quotes, safe as one shell word.
std::string ShellQuote(const std::string& s);
// The first executable PATH holds under this name, or "" when none.
std::string FindInPath(const std::string& program);
// s as a gnuplot double-quoted string, quotes included.
std::string GnuplotQuote(const std::string& s);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_SHELL_UTIL_H_
