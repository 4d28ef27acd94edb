// `racelab clean`: drops the racelab_<pid>_<run id>_<n> schemas of runs that are provably gone —
// killed with SIGKILL, or cut off with their server (any other exit drops them itself) — and removes
// orphaned embedded clusters and the shared memory of dead embedded servers, and the generated roles
// of runs that are gone (harness/run/scenario_role.h).
//
// A run is gone when its advisory lock is free (harness/run/run_lock.h): clean takes it with
// pg_try_advisory_lock and keeps it while it drops that run's schemas, so the run cannot be alive
// meanwhile. A schema of a live run (wherever it runs) is kept, as are schemas named the old way
// (racelab_<pid>_<n>), whose run cannot be told alive or dead.
#include <iostream>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/app.h"
#include "harness/embedded/cluster.h"
#include "harness/model/terminal_text.h"
#include "harness/pg/connection.h"
#include "harness/pg/dsn.h"
#include "harness/run/run_lock.h"

namespace racelab::cli {
namespace {

constexpr const char* kRacelabSchemas =
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'racelab\\_%' ORDER BY nspname";
constexpr long kDropLockTimeoutMs = 15000;

SteadyTime In(long ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

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
  auto conn = Connection::Open(dsn, "racelab:clean", In(connect_timeout_ms), nullptr);
  if (!conn.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(conn.status().message()) << "\n";
    return 3;
  }
  Connection& c = **conn;
  QueryResult r = c.Exec(kRacelabSchemas, In(30000), /*max_rows=*/100000);
  if (!r.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(r.message) << "\n";
    return 3;
  }
  std::map<std::string, std::vector<std::string>> by_run;  // run id -> its schemas
  for (const auto& row : r.values) {
    std::string schema = row[0].value_or("");
    if (std::optional<std::string> id = RunIdOfSchema(schema)) {
      by_run[*id].push_back(schema);
    } else {
      std::cout << SanitizeForTerminal(fmt::format(
                       "kept schema {}: its name does not say which run made it, so racelab cannot tell "
                       "whether that run is alive; drop it by hand when no racelab runs on this database",
                       schema))
                << "\n";
    }
  }
  size_t dropped = 0, kept = 0;
  for (const auto& [id, schemas] : by_run) {
    const int64_t key = *RunLockKey(id);
    QueryResult lock = c.Exec(fmt::format("SELECT pg_try_advisory_lock({})", key), In(30000));
    if (!lock.ok() || lock.values.empty()) {
      std::cerr << "racelab: cannot check run " << id << ": " << SanitizeForTerminal(lock.message) << "\n";
      return 3;
    }
    if (lock.values[0][0].value_or("f") != "t") {  // a session of that run holds its lock
      for (const auto& schema : schemas) {
        std::cout << fmt::format("kept schema {}: its run is still connected\n", schema);
      }
      kept += schemas.size();
      continue;
    }
    int failed = 0;
    for (const auto& schema : schemas) {
      if (dry_run) {
        std::cout << "would drop schema " << schema << "\n";
        ++dropped;
        continue;
      }
      QueryResult d = c.Exec(fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE",
                                         kDropLockTimeoutMs, QuoteIdent(schema)),
                             In(kDropLockTimeoutMs + 5000));
      if (!d.ok()) {
        std::cerr << SanitizeForTerminal(fmt::format("racelab: cannot drop schema {}: {}\n", schema, d.message));
        ++failed;
        continue;
      }
      std::cout << "dropped schema " << schema << "\n";
      ++dropped;
    }
    c.Exec(fmt::format("SELECT pg_advisory_unlock({})", key), In(30000));
    if (failed > 0) return 3;
  }
  size_t roles = 0;
  if (!CleanRoles(c, dry_run, &roles)) return 3;
  std::cout << fmt::format("{} racelab schema(s) and {} role(s) {}, {} schema(s) of live runs kept, on {}\n",
                           dropped, roles, dry_run ? "found" : "dropped", kept, RedactDsn(dsn));
  return 0;
}

}  // namespace racelab::cli
