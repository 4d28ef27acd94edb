#include "harness/engines/postgresql/prepared_xacts.h"

#include <fmt/format.h>

namespace racelab::pg {
namespace {

// Cleanup after a trial: a server that does not take the cancel within this is gone (a frozen
// server must not add the default 5 s grace to every trial's end).
constexpr std::chrono::milliseconds kCancelGrace{1000};

}  // namespace

std::string SqlLiteral(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string RunPreparedSql(bool confined, const std::string& schema_prefix) {
  std::string sql =
      "SELECT p.gid FROM pg_prepared_xacts p WHERE p.owner = current_user AND p.database = "
      "current_database()";
  if (!confined) {
    // A prepared transaction's locks are shown with no pid and the virtualtransaction it had before
    // PREPARE (PostgreSQL 15), the same for all of them, one of them its ExclusiveLock on its own
    // transactionid (checked by hand with psql: an UPDATE, a CREATE TABLE — which locks its schema
    // — and an INSERT into public, each then prepared).
    sql += fmt::format(
        " AND EXISTS (SELECT 1 FROM pg_locks x JOIN pg_locks l ON l.virtualtransaction = "
        "x.virtualtransaction "
        "AND l.pid IS NULL WHERE x.locktype = 'transactionid' AND x.transactionid = p.transaction "
        "AND "
        "x.pid IS NULL AND ((l.locktype = 'relation' AND l.relation IN (SELECT c.oid FROM pg_class "
        "c JOIN "
        "pg_namespace n ON n.oid = c.relnamespace WHERE left(n.nspname, {0}) = {1})) OR "
        "(l.locktype = "
        "'object' AND l.classid = 'pg_namespace'::regclass AND l.objid IN (SELECT oid FROM "
        "pg_namespace "
        "WHERE left(nspname, {0}) = {1}))))",
        schema_prefix.size(), SqlLiteral(schema_prefix));
  }
  return sql + " ORDER BY p.prepared, p.gid";
}

Result<int> RollbackPrepared(Connection& conn, const std::string& list_sql, SteadyTime deadline) {
  QueryResult list = conn.Exec(list_sql, deadline, /*max_rows=*/100000, kCancelGrace);
  if (!list.ok()) {
    return Status::Database(fmt::format("cannot list the run's prepared transactions: {} ({})",
                                        list.message, list.sqlstate));
  }
  int done = 0;
  for (const auto& row : list.values) {
    if (row.empty() || !row[0]) continue;
    QueryResult r =
        conn.Exec("ROLLBACK PREPARED " + SqlLiteral(*row[0]), deadline, 1, kCancelGrace);
    if (r.ok()) {
      ++done;
    } else if (r.sqlstate != "42704") {  // undefined_object: committed or rolled back meanwhile
      return Status::Database(
          fmt::format("cannot roll back the run's prepared transaction {}: {} ({})",
                      SqlLiteral(*row[0]), r.message, r.sqlstate));
    }
  }
  return done;
}

}  // namespace racelab::pg
