#include "harness/engines/postgresql/pg_binaries.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "harness/engines/embedded/files.h"
#include "harness/engines/embedded/process.h"

namespace racelab::internal {
namespace {

namespace fs = std::filesystem;
constexpr std::chrono::milliseconds kProbeTimeout(10000);  // pg_config / postgres --version

bool IsExecutable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

bool HasServerBinaries(const fs::path& dir) {
  return IsExecutable(dir / "initdb") && IsExecutable(dir / "postgres");
}

std::string Trim(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t\r\n");
  size_t end = s.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

// Numeric version order for directory names like "9.6", "15", "16".
std::vector<int> VersionKey(const std::string& name) {
  std::vector<int> key;
  size_t pos = 0;
  while (pos < name.size()) {
    size_t dot = name.find('.', pos);
    key.push_back(std::atoi(name.substr(pos, dot - pos).c_str()));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return key;
}

std::optional<fs::path> NewestDebianBindir() {
  std::error_code ec;
  std::optional<fs::path> best;
  std::vector<int> best_key;
  fs::directory_iterator it("/usr/lib/postgresql", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    if (!HasServerBinaries(it->path() / "bin")) continue;
    std::vector<int> key = VersionKey(name);
    if (!best || key > best_key) {
      best = it->path() / "bin";
      best_key = key;
    }
  }
  return best;
}

// Completes `bindir` with the server version, from `postgres --version`
// ("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"). As root this is safe: postgres answers
// --version before its root check.
Result<PgBinaries> Describe(const fs::path& bindir) {
  PgBinaries bins;
  std::error_code ec;
  fs::path canonical = fs::canonical(bindir, ec);
  bins.bindir = (ec ? fs::absolute(bindir) : canonical).string();
  Result<std::string> out = embedded::RunCapture({bins.postgres(), "--version"}, kProbeTimeout);
  if (!out.ok()) {
    return Status::Internal("cannot run " + bins.postgres() + ": " + out.status().message());
  }
  const std::string marker = "(PostgreSQL) ";
  size_t at = out->find(marker);
  if (at == std::string::npos) {
    return Status::Internal("unexpected output of " + bins.postgres() +
                            " --version: " + Trim(*out));
  }
  size_t begin = at + marker.size();
  size_t end = out->find_first_not_of("0123456789.", begin);
  bins.version = out->substr(begin, end == std::string::npos ? end : end - begin);
  std::vector<int> key = VersionKey(bins.version);
  if (key.empty() || key[0] <= 0) {
    return Status::Internal("cannot read the version in: " + Trim(*out));
  }
  bins.major = key[0] >= 10 || key.size() < 2
                   ? std::to_string(key[0])
                   : std::to_string(key[0]) + "." + std::to_string(key[1]);
  return bins;
}

}  // namespace

Result<PgBinaries> FindPgBinaries(const std::string& explicit_bindir) {
  if (!explicit_bindir.empty()) {
    if (!HasServerBinaries(explicit_bindir)) {
      return Status::Usage("--pg-bindir " + explicit_bindir +
                           ": no executable initdb and postgres there (expected the PostgreSQL "
                           "server's bin folder, e.g. /usr/lib/postgresql/15/bin)");
    }
    return Describe(explicit_bindir);
  }
  std::string pg_config_dir = embedded::FindOnPath("pg_config");
  if (!pg_config_dir.empty()) {
    Result<std::string> out =
        embedded::RunCapture({pg_config_dir + "/pg_config", "--bindir"}, kProbeTimeout);
    if (out.ok() && HasServerBinaries(Trim(*out))) return Describe(Trim(*out));
  }
  std::string on_path = embedded::FindOnPath("initdb");
  if (!on_path.empty() && HasServerBinaries(on_path)) return Describe(on_path);
  if (std::optional<fs::path> debian = NewestDebianBindir()) return Describe(*debian);
  return Status::Internal(
      "PostgreSQL server binaries (initdb, postgres) not found: looked at `pg_config --bindir`, "
      "PATH and /usr/lib/postgresql/*/bin. Install the server (Debian: apt-get install "
      "postgresql), pass --pg-bindir DIR, or use --dsn to run against an existing server");
}

}  // namespace racelab::internal
