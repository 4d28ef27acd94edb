#include "harness/engines/postgresql/session_reset.h"

#include <fmt/format.h>

#include "harness/engines/postgresql/errors.h"

namespace racelab::pg {
namespace {

std::string SetStatement(const std::string& name, const std::string& value) {
  // SET takes an identifier and a literal; quote the literal (PostgreSQL docs §4.1.2.1).
  std::string lit = "'";
  for (char c : value) {
    if (c == '\'') lit.push_back('\'');
    lit.push_back(c);
  }
  return fmt::format("SET {} = {}'", name, lit);
}

// A setting the scenario asked for that the server refuses: the file's fault (exit 2), 42501 too —
// the role scenario SQL runs as may not set it (the hint says which role could).
bool IsSettingError(const std::string& sqlstate) {
  return IsScenarioSqlError(sqlstate) || sqlstate == "22023" || sqlstate == "55P02";
}

// DISCARD ALL spelled out (PostgreSQL docs, SQL command DISCARD: "equivalent to"). DISCARD ALL
// itself cannot run inside a transaction block, and a multi-statement query string is one; its
// parts can, so they share one query string with the search_path and the settings: one round trip.
// Checked by hand with psql (`\;` sends one query string): a SET, SET ROLE, temporary table and
// sequence, prepared statement, cursor WITH HOLD, session advisory lock and LISTEN are all gone
// after it.
constexpr const char* kDiscardAllParts =
    "CLOSE ALL;SET SESSION AUTHORIZATION DEFAULT;RESET ALL;DEALLOCATE ALL;UNLISTEN *;"
    "SELECT pg_advisory_unlock_all();DISCARD PLANS;DISCARD TEMP;DISCARD SEQUENCES;";

}  // namespace

std::string SessionStartSql(const SessionStart& start) {
  std::string sql = "SET search_path TO " + QuoteIdent(start.workspace) + ";";
  for (const auto& [name, value] : start.settings) sql += SetStatement(name, value) + ";";
  return sql;
}

namespace {

// Steps 2–5's result, judged: what StartClean says about it.
Status Judge(const QueryResult& r, const SessionStart& start, const std::string& file,
             bool* connection_lost, const std::string& denied_hint) {
  if (r.ok()) return Status::Ok();
  std::string what = fmt::format("{}: {} ({}): settings of session '{}'", file, r.message,
                                 r.sqlstate, start.label);
  if (r.sqlstate == "42501" && !denied_hint.empty()) what += " (" + denied_hint + ")";
  if (IsSettingError(r.sqlstate)) return Status::Usage(what);
  *connection_lost = r.connection_lost;
  return Status::Database(what);
}

}  // namespace

Status StartClean(Connection* conn, const SessionStart& start, SteadyTime deadline,
                  const std::string& file, bool* connection_lost, const std::string& denied_hint) {
  *connection_lost = false;
  auto failed = [&](const char* what, const QueryResult& r) {
    *connection_lost = r.connection_lost;
    return Status::Database(fmt::format("{}: session '{}': {} before the trial: {} ({})", file,
                                        start.label, what, r.message, r.sqlstate));
  };
  if (conn->in_transaction()) {
    QueryResult r = conn->Exec("ROLLBACK", deadline);
    if (!r.ok()) return failed("ROLLBACK", r);
  }
  QueryResult r = conn->Exec(kDiscardAllParts + SessionStartSql(start), deadline);
  return Judge(r, start, file, connection_lost, denied_hint);
}

bool SendStartClean(Connection* conn, const SessionStart& start, SteadyTime deadline) {
  if (!conn->healthy()) return false;  // a transaction open (ROLLBACK first), or gone: StartClean
  return conn->Send(kDiscardAllParts + SessionStartSql(start), deadline);
}

Status FinishStartClean(Connection* conn, const SessionStart& start, SteadyTime deadline,
                        const std::string& file, bool* connection_lost,
                        const std::string& denied_hint) {
  *connection_lost = false;
  return Judge(conn->Finish(deadline), start, file, connection_lost, denied_hint);
}

}  // namespace racelab::pg
