// Test helpers for files: read a whole file, and a temporary folder removed with its contents.
// Thread-safety: each object and call is independent.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace racelab::testing {

// The whole content of `path` (binary-safe); empty if it cannot be read.
inline std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh folder under /tmp, readable and writable by everyone (the embedded cluster's unprivileged
// user must enter it), removed with everything in it when the object goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/rlt-XXXXXX";
    path = mkdtemp(tmpl);
    std::filesystem::permissions(path, std::filesystem::perms::all);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace racelab::testing
