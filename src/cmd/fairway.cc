// SPDX-License-Identifier: GPL-2.0-or-later
// The fairway command: dispatches to its subcommands.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fairshare_table.h"

namespace {

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "Usage: fairway COMMAND [OPTIONS]\n"
               "Commands:\n"
               "  fairshare TREE.csv   compute and print every association's fairshare\n"
               "  version              print the version\n"
               "Run 'fairway COMMAND --help' for a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "-h" || command == "--help" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "version" || command == "--version" || command == "-V") {
    std::printf("fairway %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (command == "fairshare") return fairway::RunFairshareCommand(args);
  std::fprintf(stderr, "fairway: unknown command '%s'\n", command.c_str());
  PrintUsage(stderr);
  return 2;
}
