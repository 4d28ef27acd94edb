// `racelab clean` on PostgreSQL: the prepared transactions (prepared_xacts.h) of dead runs' roles,
// the racelab_<pid>_<run id>_<n> schemas and the
// racelab_spec_<pid>_<run id>_<n> databases (of `racelab run X.spec`) of runs that are provably
// gone — killed with SIGKILL, or cut off with their server (any other exit drops them itself) — and
// the generated roles of such runs (scenario_role.h), after ending the backends such runs left
// running (a step's pg_sleep(3600) outlives its killed client until it next talks to it).
//
// A dead run's role is the generated role that owns its schemas or its spec database (datdba); its
// backends are those logged in as that role, admin connections naming it (application_name
// racelab:role:<role>), and any backend connected to its spec database. Other generated roles are
// dropped once nothing on the server is logged in as them or names them (a run killed before it
// made a schema). Under --no-confine a dead run's scenario backends run as the --dsn role in a
// shared database and cannot be told apart: they are not ended.
//
// A run is gone when no backend of its run-lock connection is left (run_lock.h RunAliveSql; a run
// of an earlier racelab version: its advisory lock is free). Listing checks it, and dropping a
// schema checks it again right before the drop; clean takes no lock for it, so nothing of clean is
// visible in pg_locks to another run's scenario SQL. A schema of a live run (wherever it runs) is
// kept, as are schemas named the old way (racelab_<pid>_<n>), whose run cannot be told alive or
// dead.
#include <fmt/format.h>

#include <map>
#include <set>
#include <thread>

#include "harness/engines/postgresql/dsn.h"
#include "harness/engines/postgresql/pg_engine.h"
#include "harness/engines/postgresql/prepared_xacts.h"
#include "harness/engines/postgresql/scenario_role.h"

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
    "SELECT 1 FROM pg_stat_activity a WHERE a.usename = r.rolname OR a.application_name = "
    "'racelab:role:' || "
    "r.rolname) ORDER BY 1";

SteadyTime In(long ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

// From pg_terminate_backend to the backend gone from pg_stat_activity.
constexpr long kBackendExitMs = 10000;

std::string Literal(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

// ARRAY['a','b']::text[] (an empty array for no names).
std::string TextArray(const std::vector<std::string>& names) {
  std::string out = "ARRAY[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + Literal(names[i]);
  return out + "]::text[]";
}

// pg_terminate_backend on a dead run's backend `b` (Leftover::of says whose: it is ended only if it
// still is), then waits until it is gone, so that what it locked can be dropped.
Status EndBackend(Connection& c, const Leftover& b) {
  const size_t space = b.of.find(' ');
  const std::string whose = b.of.substr(0, space),
                    name = space == std::string::npos ? "" : b.of.substr(space + 1);
  if (b.name.empty() || b.name.find_first_not_of("0123456789") != std::string::npos ||
      (whose != "role" && whose != "database")) {
    return Status::Internal("not a backend of a dead run: " + b.name);
  }
  const std::string same = fmt::format(
      "pid = {} AND pid <> pg_backend_pid() AND {}", b.name,
      whose == "database" ? "datname = " + Literal(name)
                          : fmt::format("(usename = {0} OR application_name = {1} || {0})",
                                        Literal(name), Literal(kRoleAdminApp)));
  QueryResult t =
      c.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE " + same, In(30000));
  if (!t.ok())
    return Status::Database(
        fmt::format("cannot end backend {} of {}: {}", b.name, b.of, t.message));
  const SteadyTime gone_by = In(kBackendExitMs);
  for (;;) {
    QueryResult left = c.Exec("SELECT 1 FROM pg_stat_activity WHERE " + same, In(30000));
    if (!left.ok())
      return Status::Database(
          fmt::format("cannot end backend {} of {}: {}", b.name, b.of, left.message));
    if (left.values.empty()) return Status::Ok();
    if (std::chrono::steady_clock::now() >= gone_by) {
      return Status::Database(
          fmt::format("backend {} of {} did not exit within {} ms of pg_terminate_backend", b.name,
                      b.of, kBackendExitMs));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

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
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      by_run;  // run id -> its (kind, name)
  for (const auto& row : r.values) {
    std::string schema = row[0].value_or("");
    if (std::optional<std::string> id = RunIdOfSchema(schema)) {
      by_run[*id].emplace_back("schema", schema);
    } else {
      out.push_back(
          {"schema", schema, false,
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
      out.push_back(
          {"database", database, false,
           "its name does not say which run made it, so racelab cannot tell whether that run is "
           "alive; drop it by hand (DROP DATABASE … WITH (FORCE)) when no racelab runs on this "
           "server"});
    }
  }
  std::vector<Leftover> workspaces_out;
  std::vector<std::string> dead_schemas, dead_databases;
  for (const auto& [id, workspaces] : by_run) {
    QueryResult alive = c.Exec(RunAliveSql(id), In(30000));
    if (!alive.ok() || alive.values.empty()) {
      return Status::Database(fmt::format("cannot check run {}: {}", id, alive.message));
    }
    const bool live = alive.values[0][0].value_or("t") == "t";  // its run-lock connection is open
    for (const auto& [kind, name] : workspaces) {
      workspaces_out.push_back({kind, name, live, ""});
      if (!live) (kind == "database" ? dead_databases : dead_schemas).push_back(name);
    }
  }
  // The generated roles of dead runs: owners of their schemas and spec databases.
  std::vector<std::string> dead_roles;
  if (!dead_schemas.empty() || !dead_databases.empty()) {
    QueryResult owners = c.Exec(
        fmt::format(
            "SELECT r.rolname FROM pg_roles r WHERE r.rolname ~ '^racelab_role_[0-9a-f]+$' AND ("
            "r.oid IN (SELECT nspowner FROM pg_namespace WHERE nspname = ANY({})) OR "
            "r.oid IN (SELECT datdba FROM pg_database WHERE datname = ANY({}))) ORDER BY 1",
            TextArray(dead_schemas), TextArray(dead_databases)),
        In(30000), /*max_rows=*/100000);
    if (!owners.ok()) return Status::Database(owners.message);
    for (const auto& row : owners.values) dead_roles.push_back(row[0].value_or(""));
  }
  // Their backends, ended first: a backend in a step holds locks on what clean drops.
  if (!dead_roles.empty() || !dead_databases.empty()) {
    QueryResult backends =
        c.Exec(fmt::format(
                   "SELECT pid, CASE WHEN datname = ANY({1}) THEN 'database ' || datname "
                   "WHEN usename = ANY({0}) THEN 'role ' || usename "
                   "ELSE 'role ' || substr(application_name, length('{2}') + 1) END "
                   "FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (datname = ANY({1}) OR "
                   "usename = ANY({0}) OR application_name = ANY(ARRAY(SELECT '{2}' || n FROM "
                   "unnest({0}) n))) "
                   "ORDER BY pid",
                   TextArray(dead_roles), TextArray(dead_databases), kRoleAdminApp),
               In(30000), /*max_rows=*/100000);
    if (!backends.ok()) return Status::Database(backends.message);
    for (const auto& row : backends.values) {
      Leftover b{"backend", row[0].value_or(""), false, ""};
      b.of = row[1].value_or("");
      out.push_back(b);
    }
  }
  std::set<std::string> roles_seen(dead_roles.begin(), dead_roles.end());
  QueryResult roles = c.Exec(kLeftoverRoles, In(30000), /*max_rows=*/100000);
  if (!roles.ok()) return Status::Database(roles.message);
  for (const auto& row : roles.values) roles_seen.insert(row[0].value_or(""));
  // Their prepared transactions (prepared_xacts.h), rolled back before the workspaces whose locks
  // they hold.
  if (!roles_seen.empty()) {
    QueryResult prepared = c.Exec(
        fmt::format(
            "SELECT gid, owner FROM pg_prepared_xacts WHERE owner = ANY({}) ORDER BY prepared, gid",
            TextArray(std::vector<std::string>(roles_seen.begin(), roles_seen.end()))),
        In(30000), /*max_rows=*/100000);
    if (!prepared.ok()) return Status::Database(prepared.message);
    for (const auto& row : prepared.values) {
      Leftover x{"prepared transaction", row[0].value_or(""), false, ""};
      x.of = "role " + row[1].value_or("");
      out.push_back(x);
    }
  }
  out.insert(out.end(), workspaces_out.begin(), workspaces_out.end());
  for (const std::string& role : roles_seen) out.push_back({"role", role, false, ""});
  return out;
}

Status PostgresEngine::DropLeftover(const Leftover& leftover, SteadyTime deadline) {
  auto conn = CleanConnection(deadline);
  if (!conn.ok()) return conn.status();
  Connection& c = **conn;
  if (leftover.live || !leftover.kept_because.empty())
    return Status::Internal("kept: " + leftover.name);
  if (leftover.kind == "backend") return EndBackend(c, leftover);
  if (leftover.kind == "prepared transaction")
    return RollbackLeftoverPrepared(c, leftover, deadline);
  if (leftover.kind == "role") {
    QueryResult d = c.Exec(
        fmt::format("DROP OWNED BY {0}; DROP ROLE {0}", QuoteIdent(leftover.name)), In(30000));
    if (!d.ok())
      return Status::Database(fmt::format("cannot drop role {}: {}", leftover.name, d.message));
    return Status::Ok();
  }
  const bool database = leftover.kind == "database";
  std::optional<std::string> id =
      database ? RunIdOfSpecDatabase(leftover.name) : RunIdOfSchema(leftover.name);
  if ((leftover.kind != "schema" && !database) || !id) {
    return Status::Internal("not a racelab leftover: " + leftover.name);
  }
  QueryResult alive = c.Exec(RunAliveSql(*id), In(30000));
  if (!alive.ok() || alive.values.empty()) {
    return Status::Database(fmt::format("cannot check run {}: {}", *id, alive.message));
  }
  if (alive.values[0][0].value_or("t") == "t") {
    return Status::Database(
        fmt::format("cannot drop {} {}: its run is connected again", leftover.kind, leftover.name));
  }
  // DROP DATABASE runs alone (not in a transaction block, so not in a multi-statement string);
  // FORCE ends the backends a killed run left in it (PostgreSQL 13+).
  QueryResult d =
      database ? c.Exec(fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)",
                                    QuoteIdent(leftover.name)),
                        In(kDropLockTimeoutMs + 5000))
               : c.Exec(fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE",
                                    kDropLockTimeoutMs, QuoteIdent(leftover.name)),
                        In(kDropLockTimeoutMs + 5000));
  if (!d.ok()) {
    return Status::Database(
        fmt::format("cannot drop {} {}: {}", leftover.kind, leftover.name, d.message));
  }
  return Status::Ok();
}

// As its owner (SET ROLE: the admin that created the role is a member of it; a superuser may
// anyway), in the database it was prepared in (ROLLBACK PREPARED runs only there).
Status PostgresEngine::RollbackLeftoverPrepared(Connection& c, const Leftover& leftover,
                                                SteadyTime deadline) {
  const std::string role = leftover.of.rfind("role ", 0) == 0 ? leftover.of.substr(5) : "";
  if (role.rfind(kScenarioRolePrefix, 0) != 0 ||
      role.find_first_not_of("0123456789abcdef", std::string(kScenarioRolePrefix).size()) !=
          std::string::npos) {
    return Status::Internal("not a prepared transaction of a dead run: " + leftover.name);
  }
  const auto failed = [&](const QueryResult& r) {
    return Status::Database(
        fmt::format("cannot roll back prepared transaction {} of role {}: {} ({})",
                    SqlLiteral(leftover.name), role, r.message, r.sqlstate));
  };
  QueryResult where =
      c.Exec(fmt::format("SELECT database, database = current_database() FROM pg_prepared_xacts "
                         "WHERE gid = {} AND owner = {}",
                         SqlLiteral(leftover.name), SqlLiteral(role)),
             In(30000));
  if (!where.ok()) return failed(where);
  if (where.values.empty()) return Status::Ok();  // finished meanwhile
  std::unique_ptr<Connection> other;
  Connection* in = &c;
  if (where.values[0][1].value_or("f") != "t") {
    auto conninfo = ConninfoWithOverrides(conninfo_, {{"dbname", where.values[0][0].value_or("")}});
    if (!conninfo.ok()) return conninfo.status();
    auto opened = Connection::Open(*conninfo, "racelab:clean",
                                   std::min(deadline, In(connect_timeout_ms_)), nullptr);
    if (!opened.ok()) return opened.status();
    other = std::move(opened.value());
    in = other.get();
  }
  QueryResult as = in->Exec("SET ROLE " + QuoteIdent(role), In(30000));
  if (!as.ok()) return failed(as);
  QueryResult r = in->Exec("ROLLBACK PREPARED " + SqlLiteral(leftover.name), In(30000));
  in->Exec("RESET ROLE", In(30000));
  if (!r.ok() && r.sqlstate != "42704") return failed(r);
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
