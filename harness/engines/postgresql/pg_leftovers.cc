// `racelab clean` on PostgreSQL: the racelab_<pid>_<run id>_<n> schemas of runs that are provably
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
  std::map<std::string, std::vector<std::string>> by_run;  // run id -> its schemas
  for (const auto& row : r.values) {
    std::string schema = row[0].value_or("");
    if (std::optional<std::string> id = RunIdOfSchema(schema)) {
      by_run[*id].push_back(schema);
    } else {
      out.push_back({"schema", schema, false,
                     "its name does not say which run made it, so racelab cannot tell whether that run is "
                     "alive; drop it by hand when no racelab runs on this database"});
    }
  }
  for (const auto& [id, schemas] : by_run) {
    const int64_t key = *RunLockKey(id);
    QueryResult lock = c.Exec(fmt::format("SELECT pg_try_advisory_lock({})", key), In(30000));
    if (!lock.ok() || lock.values.empty()) return Status::Database(fmt::format("cannot check run {}: {}", id, lock.message));
    const bool live = lock.values[0][0].value_or("f") != "t";  // a session of that run holds its lock
    if (!live) c.Exec(fmt::format("SELECT pg_advisory_unlock({})", key), In(30000));
    for (const auto& schema : schemas) {
      out.push_back({"schema", schema, live, ""});
    }
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
  std::optional<std::string> id = RunIdOfSchema(leftover.name);
  if (leftover.kind != "schema" || !id) return Status::Internal("not a racelab leftover: " + leftover.name);
  const int64_t key = *RunLockKey(*id);
  QueryResult lock = c.Exec(fmt::format("SELECT pg_try_advisory_lock({})", key), In(30000));
  if (!lock.ok() || lock.values.empty()) return Status::Database(fmt::format("cannot check run {}: {}", *id, lock.message));
  if (lock.values[0][0].value_or("f") != "t") {
    return Status::Database(fmt::format("cannot drop schema {}: its run is connected again", leftover.name));
  }
  QueryResult d = c.Exec(fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE",
                                     kDropLockTimeoutMs, QuoteIdent(leftover.name)),
                         In(kDropLockTimeoutMs + 5000));
  c.Exec(fmt::format("SELECT pg_advisory_unlock({})", key), In(30000));
  if (!d.ok()) return Status::Database(fmt::format("cannot drop schema {}: {}", leftover.name, d.message));
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
