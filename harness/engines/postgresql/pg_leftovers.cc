// `racelab clean` on PostgreSQL: the racelab_<pid>_<run id>_<n> schemas and the
// racelab_spec_<pid>_<run id>_<n> databases (of `racelab run X.spec`) of runs that are provably
// gone — killed with SIGKILL, or cut off with their server (any other exit drops them itself) — and
// the generated roles of such runs (scenario_role.h).
//
// A run is gone when its advisory lock is free (run_lock.h): pg_try_advisory_lock on its run id
// succeeds. Listing takes and releases it; dropping a schema takes it again and keeps it while it
// drops, so the run cannot be alive meanwhile. A schema of a live run (wherever it runs) is kept, as
// are schemas named the old way (racelab_<pid>_<n>), whose run cannot be told alive or dead.
#include <map>

#include <fmt/format.h>

#include "harness/engines/postgresql/pg_engine.h"

namespace racelab::pg {
namespace {

constexpr const char* kRacelabSchemas =
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'racelab\\_%' ORDER BY nspname";
constexpr long kDropLockTimeoutMs = 15000;
// The databases of `racelab run X.spec` runs (spec/spec_database.h).
constexpr const char* kSpecDatabases =
    "SELECT datname FROM pg_database WHERE datname LIKE 'racelab\\_spec\\_%' ORDER BY datname";

// Generated roles of runs that are gone: no backend logged in as the role and no admin connection
// naming it (its application_name) is left on the server.
constexpr const char* kLeftoverRoles =
    "SELECT r.rolname FROM pg_roles r WHERE r.rolname ~ '^racelab_role_[0-9a-f]+$' AND NOT EXISTS ("
    "SELECT 1 FROM pg_stat_activity a WHERE a.usename = r.rolname OR a.application_name = 'racelab:role:' || "
    "r.rolname) ORDER BY 1";

SteadyTime In(long ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

}  // namespace

Result<Connection*> PostgresEngine::CleanConnection(SteadyTime deadline) {
  if (clean_ && clean_->healthy()) return clean_.get();
  auto c = Connection::Open(conninfo_, "racelab:clean", deadline, nullptr);
  if (!c.ok()) return c.status();
  clean_ = std::move(c.value());
  return clean_.get();
}

Result<std::vector<Leftover>> PostgresEngine::ListLeftovers(SteadyTime deadline) {
  auto conn = CleanConnection(deadline);
  if (!conn.ok()) return conn.status();
  Connection& c = **conn;
  QueryResult r = c.Exec(kRacelabSchemas, In(30000), /*max_rows=*/100000);
  if (!r.ok()) return Status::Database(r.message);
  std::vector<Leftover> out;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_run;  // run id -> its (kind, name)
  for (const auto& row : r.values) {
    std::string schema = row[0].value_or("");
    if (std::optional<std::string> id = RunIdOfSchema(schema)) {
      by_run[*id].emplace_back("schema", schema);
    } else {
      out.push_back({"schema", schema, false,
                     "its name does not say which run made it, so racelab cannot tell whether that run is "
                     "alive; drop it by hand when no racelab runs on this database"});
    }
  }
  QueryResult dbs = c.Exec(kSpecDatabases, In(30000), /*max_rows=*/100000);
  if (!dbs.ok()) return Status::Database(dbs.message);
  for (const auto& row : dbs.values) {
    std::string database = row[0].value_or("");
    if (std::optional<std::string> id = RunIdOfSpecDatabase(database)) {
      by_run[*id].emplace_back("database", database);
    } else {
      out.push_back({"database", database, false,
                     "its name does not say which run made it, so racelab cannot tell whether that run is "
                     "alive; drop it by hand (DROP DATABASE … WITH (FORCE)) when no racelab runs on this server"});
    }
  }
  for (const auto& [id, workspaces] : by_run) {
    const int64_t key = *RunLockKey(id);
    QueryResult lock = c.Exec(fmt::format("SELECT pg_try_advisory_lock({})", key), In(30000));
    if (!lock.ok() || lock.values.empty()) return Status::Database(fmt::format("cannot check run {}: {}", id, lock.message));
    const bool live = lock.values[0][0].value_or("f") != "t";  // a session of that run holds its lock
    if (!live) c.Exec(fmt::format("SELECT pg_advisory_unlock({})", key), In(30000));
    for (const auto& [kind, name] : workspaces) out.push_back({kind, name, live, ""});
  }
  QueryResult roles = c.Exec(kLeftoverRoles, In(30000), /*max_rows=*/100000);
  if (!roles.ok()) return Status::Database(roles.message);
  for (const auto& row : roles.values) out.push_back({"role", row[0].value_or(""), false, ""});
  return out;
}

Status PostgresEngine::DropLeftover(const Leftover& leftover, SteadyTime deadline) {
  auto conn = CleanConnection(deadline);
  if (!conn.ok()) return conn.status();
  Connection& c = **conn;
  if (leftover.live || !leftover.kept_because.empty()) return Status::Internal("kept: " + leftover.name);
  if (leftover.kind == "role") {
    QueryResult d = c.Exec(fmt::format("DROP OWNED BY {0}; DROP ROLE {0}", QuoteIdent(leftover.name)), In(30000));
    if (!d.ok()) return Status::Database(fmt::format("cannot drop role {}: {}", leftover.name, d.message));
    return Status::Ok();
  }
  const bool database = leftover.kind == "database";
  std::optional<std::string> id = database ? RunIdOfSpecDatabase(leftover.name) : RunIdOfSchema(leftover.name);
  if ((leftover.kind != "schema" && !database) || !id) {
    return Status::Internal("not a racelab leftover: " + leftover.name);
  }
  const int64_t key = *RunLockKey(*id);
  QueryResult lock = c.Exec(fmt::format("SELECT pg_try_advisory_lock({})", key), In(30000));
  if (!lock.ok() || lock.values.empty()) return Status::Database(fmt::format("cannot check run {}: {}", *id, lock.message));
  if (lock.values[0][0].value_or("f") != "t") {
    return Status::Database(
        fmt::format("cannot drop {} {}: its run is connected again", leftover.kind, leftover.name));
  }
  // DROP DATABASE runs alone (not in a transaction block, so not in a multi-statement string); FORCE
  // ends the backends a killed run left in it (PostgreSQL 13+).
  QueryResult d = database ? c.Exec(fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)", QuoteIdent(leftover.name)),
                                    In(kDropLockTimeoutMs + 5000))
                           : c.Exec(fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE",
                                                kDropLockTimeoutMs, QuoteIdent(leftover.name)),
                                    In(kDropLockTimeoutMs + 5000));
  c.Exec(fmt::format("SELECT pg_advisory_unlock({})", key), In(30000));
  if (!d.ok()) {
    return Status::Database(fmt::format("cannot drop {} {}: {}", leftover.kind, leftover.name, d.message));
  }
  return Status::Ok();
}

Status PostgresEngine::DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) {
  for (const Leftover& l : which) {
    Status s = DropLeftover(l, deadline);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace racelab::pg
