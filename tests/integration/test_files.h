// Test helpers for files: read a whole file, and (tests/temp_dir.h) a temporary folder removed with
// its contents. Thread-safety: each object and call is independent.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/temp_dir.h"

namespace racelab::testing {

// The whole content of `path` (binary-safe); empty if it cannot be read.
inline std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace racelab::testing
