// What PostgreSQL's SQLSTATEs mean to racelab (PostgreSQL docs Appendix A, "PostgreSQL Error
// Codes"). The PostgreSQL engine answers Engine::IsScenarioError / IsSessionLost with these.
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace racelab::pg {

// A statement that can never run as written — a bug in the scenario's SQL (exit 2), not an outcome
// of the race:
//  - class 42, syntax error or access rule violation, 42501 (insufficient_privilege: what the
//    generated role may not do under confinement) included;
//  - class 25, invalid transaction state, where the statement's place in the scenario decides it:
//    25000 (e.g. PREPARE TRANSACTION outside a transaction block's rules), 25001
//    active_sql_transaction ("cannot run inside a transaction block", "SET TRANSACTION ISOLATION
//    LEVEL must be called before any query"), 25002–25005 and 25007–25008, 25P01
//    no_active_sql_transaction. Not 25006 (read_only_sql_transaction: a write the scenario's READ
//    ONLY transaction refused, an outcome it may expect), 25P02 (in_failed_sql_transaction: the
//    consequence of an earlier error, often the race's), 25P03/25P04 (the server's idle or
//    transaction timeout ended the session: a timer's outcome).
inline bool IsScenarioSqlError(const std::string& sqlstate) {
  if (sqlstate.rfind("42", 0) == 0) return true;
  if (sqlstate.size() != 5 || sqlstate.rfind("25", 0) != 0) return false;
  return sqlstate != "25006" && sqlstate != "25P02" && sqlstate != "25P03" && sqlstate != "25P04";
}

// The SQLSTATEs of a session that is gone: 57P01 (admin_shutdown: pg_terminate_backend, or a server
// shutting down), 57P02 (crash_shutdown), 57P03 (cannot_connect_now), 57P04 (database_dropped) and
// class 08 (connection exception; racelab records 08006 for a connection lost without an error).
inline bool IsSessionLost(const std::string& sqlstate) {
  return sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "57P04" ||
         sqlstate.rfind("08", 0) == 0;
}

}  // namespace racelab::pg
