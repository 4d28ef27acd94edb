// Test helpers for "nothing left behind": the embedded servers' processes and run folders under a
// base folder (RACELAB_TMPDIR) after racelab ends, however it ends. Thread-safety: pure functions
// of the file system and /proc.
#pragma once

#include <filesystem>
#include <string>

#include "tests/integration/test_files.h"

namespace racelab::testing {

// Processes whose command line contains `program` ("postgres", "mariadbd") and names `dir`: an
// embedded server racelab started under that base folder.
inline int ProcessesUnder(const std::filesystem::path& dir, const std::string& program) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string cmd = Slurp(e.path() / "cmdline");
    for (auto& ch : cmd) ch = ch == '\0' ? ' ' : ch;
    if (cmd.find(program) != std::string::npos && cmd.find(dir.string()) != std::string::npos) ++n;
  }
  return n;
}

// Run folders ("run-…", an embedded server's) left under a base folder.
inline int RunDirsUnder(const std::filesystem::path& dir) {
  int n = 0;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_directory() && e.path().filename().string().rfind("run-", 0) == 0) ++n;
  }
  return n;
}

}  // namespace racelab::testing
