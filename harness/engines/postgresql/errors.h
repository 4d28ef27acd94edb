// What PostgreSQL's SQLSTATEs mean to racelab (PostgreSQL docs Appendix A, "PostgreSQL Error Codes").
// The PostgreSQL engine answers Engine::IsScenarioError / IsSessionLost with these.
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace racelab::pg {

// SQLSTATE class 42, syntax error or access rule violation: a statement that can never run as
// written — a bug in the scenario's SQL, not an outcome of the race.
inline bool IsScenarioSqlError(const std::string& sqlstate) { return sqlstate.rfind("42", 0) == 0; }

// The SQLSTATEs of a session that is gone: 57P01 (admin_shutdown: pg_terminate_backend, or a server
// shutting down), 57P02 (crash_shutdown), 57P03 (cannot_connect_now), 57P04 (database_dropped) and
// class 08 (connection exception; racelab records 08006 for a connection lost without an error).
inline bool IsSessionLost(const std::string& sqlstate) {
  return sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "57P04" ||
         sqlstate.rfind("08", 0) == 0;
}

}  // namespace racelab::pg
