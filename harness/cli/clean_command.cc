// `racelab clean`: drops the racelab_<pid>_<n> schemas that a run killed with SIGKILL could not drop
// (any other exit drops them itself), and removes orphaned embedded clusters.
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/embedded/cluster.h"
#include "harness/pg/connection.h"
#include "harness/pg/dsn.h"

namespace racelab::cli {
namespace {

// Schemas racelab creates: racelab_<pid>_<n> (harness/run/runner.h).
constexpr const char* kLeftoverSchemas =
    "SELECT nspname FROM pg_namespace WHERE nspname ~ '^racelab_[0-9]+_[0-9]+$' ORDER BY nspname";

}  // namespace

int CleanCommand(const std::string& dsn, long connect_timeout_ms, bool dry_run) {
  int orphans = dry_run ? 0 : CleanOrphans(DefaultBaseDir());
  if (orphans > 0) std::cout << fmt::format("removed {} orphaned embedded cluster(s)\n", orphans);
  if (dsn.empty()) return 0;
  Status valid = ValidateDsn(dsn);
  if (!valid.ok()) return UsageError(valid.message());
  auto conn = Connection::Open(dsn, "racelab:clean",
                               std::chrono::steady_clock::now() + std::chrono::milliseconds(connect_timeout_ms),
                               nullptr);
  if (!conn.ok()) {
    std::cerr << "racelab: " << conn.status().message() << "\n";
    return 3;
  }
  auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(30); };
  QueryResult r = (*conn)->Exec(kLeftoverSchemas, deadline(), /*max_rows=*/100000);
  if (!r.ok()) {
    std::cerr << "racelab: " << r.message << "\n";
    return 3;
  }
  for (const auto& row : r.values) {
    std::string schema = row[0].value_or("");
    if (dry_run) {
      std::cout << "would drop schema " << schema << "\n";
      continue;
    }
    QueryResult d = (*conn)->Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(schema) + " CASCADE", deadline());
    if (!d.ok()) {
      std::cerr << fmt::format("racelab: cannot drop schema {}: {}\n", schema, d.message);
      return 3;
    }
    std::cout << "dropped schema " << schema << "\n";
  }
  std::cout << fmt::format("{} racelab schema(s) {} on {}\n", r.values.size(), dry_run ? "found" : "dropped",
                           RedactDsn(dsn));
  return 0;
}

}  // namespace racelab::cli
