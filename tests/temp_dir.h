// A temporary folder for one test: made fresh under the system's temporary folder ($TMPDIR, else
// /tmp: std::filesystem::temp_directory_path), removed with everything in it when the object goes —
// also when the test fails or an ASSERT returns early. Each object has a name of its own (mkdtemp),
// so tests that run in parallel (ctest -j) never share a file. Used by the unit and integration
// tests. Errors: a folder that cannot be made throws std::filesystem::filesystem_error (the test
// fails). Thread-safety: each object is independent.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace racelab::testing {

struct TempDir {
  std::filesystem::path path;  // <temp>/rlt-XXXXXX, readable and writable by everyone (the embedded
                               // cluster's unprivileged user must enter it)
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rlt-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw std::filesystem::filesystem_error("mkdtemp", tmpl,
                                              std::error_code(errno, std::generic_category()));
    }
    path = tmpl;
    std::filesystem::permissions(path, std::filesystem::perms::all);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The path of `name` inside the folder, as a string (nothing is created).
  std::string File(const std::string& name) const { return (path / name).string(); }
};

}  // namespace racelab::testing
