// `racelab clean`: drops the racelab_<pid>_<n> schemas that a run killed with SIGKILL could not drop
// (any other exit drops them itself), and removes orphaned embedded clusters.
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/embedded/cluster.h"
#include "harness/model/terminal_text.h"
#include "harness/pg/connection.h"
#include "harness/pg/dsn.h"

namespace racelab::cli {
namespace {

// Schemas racelab creates: racelab_<pid>_<n> (harness/run/runner.h).
constexpr const char* kLeftoverSchemas =
    "SELECT nspname FROM pg_namespace WHERE nspname ~ '^racelab_[0-9]+_[0-9]+$' ORDER BY nspname";

// Generated roles (harness/run/scenario_role.h) of runs that are gone: no backend logged in as the
// role and no admin connection naming it (its application_name) is left on the server.
constexpr const char* kLeftoverRoles =
    "SELECT r.rolname FROM pg_roles r WHERE r.rolname ~ '^racelab_role_[0-9a-f]+$' AND NOT EXISTS ("
    "SELECT 1 FROM pg_stat_activity a WHERE a.usename = r.rolname OR a.application_name = 'racelab:role:' || "
    "r.rolname) ORDER BY 1";

// Drops (or lists) the roles of dead runs, with what they own in this database. Returns false on error.
bool CleanRoles(Connection& conn, bool dry_run, size_t* count) {
  auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(30); };
  QueryResult r = conn.Exec(kLeftoverRoles, deadline(), /*max_rows=*/100000);
  if (!r.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(r.message) << "\n";
    return false;
  }
  *count = r.values.size();
  for (const auto& row : r.values) {
    std::string role = row[0].value_or("");
    if (dry_run) {
      std::cout << "would drop role " << role << "\n";
      continue;
    }
    QueryResult d = conn.Exec(fmt::format("DROP OWNED BY {0}; DROP ROLE {0}", QuoteIdent(role)), deadline());
    if (!d.ok()) {
      std::cerr << SanitizeForTerminal(fmt::format("racelab: cannot drop role {}: {}\n", role, d.message));
      return false;
    }
    std::cout << "dropped role " << role << "\n";
  }
  return true;
}

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
    std::cerr << "racelab: " << SanitizeForTerminal(conn.status().message()) << "\n";
    return 3;
  }
  auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(30); };
  QueryResult r = (*conn)->Exec(kLeftoverSchemas, deadline(), /*max_rows=*/100000);
  if (!r.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(r.message) << "\n";
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
      std::cerr << SanitizeForTerminal(fmt::format("racelab: cannot drop schema {}: {}\n", schema, d.message));
      return 3;
    }
    std::cout << "dropped schema " << schema << "\n";
  }
  size_t roles = 0;
  if (!CleanRoles(**conn, dry_run, &roles)) return 3;
  std::cout << fmt::format("{} racelab schema(s) and {} role(s) {} on {}\n", r.values.size(), roles,
                           dry_run ? "found" : "dropped", RedactDsn(dsn));
  return 0;
}

}  // namespace racelab::cli
