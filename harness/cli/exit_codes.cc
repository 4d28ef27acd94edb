#include "harness/cli/exit_codes.h"

#include <fmt/format.h>

namespace racelab::cli {

std::string ExitCodeTable() {
  std::string out = "Exit codes (every subcommand; README.md \"Exit codes\"):";
  for (const ExitCodeRow& row : kExitCodes)
    out += fmt::format("\n  {:<20} {}", row.command, row.codes);
  return out;
}

std::string ExitCodesOf(std::string_view command) {
  std::string out;
  for (const ExitCodeRow& row : kExitCodes) {
    const bool same = row.command == command;
    const bool variant = row.command.size() > command.size() &&
                         row.command.substr(0, command.size()) == command &&
                         row.command[command.size()] == ' ';
    if (!same && !variant) continue;
    out +=
        fmt::format("{}{}: {}", out.empty() ? "Exit codes:\n  " : "\n  ", row.command, row.codes);
  }
  return out;
}

}  // namespace racelab::cli
