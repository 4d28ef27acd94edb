// The name under which the reports count a failed statement: its SQLSTATE, or the engine's own code
// when the SQLSTATE says nothing about the kind of error (ResultSummary::errors,
// docs/report-schema.md "errors").
//
// A SQLSTATE is generic when its subclass is "000" (SQL standard, ISO/IEC 9075-2 §24.1: subclass
// 000 means "no subclass"): HY000 ("general error", SQL/CLI) is what SQLite errors carry in racelab
// (docs/sqlite.md "Errors") and what MariaDB sends for most of its own errors (1205 lock wait
// timeout; MariaDB docs "MariaDB Error Codes"); 23000 and 42000 name only a class (MariaDB: 1062
// duplicate key, 1064 syntax). Then the engine code ("SQLITE_BUSY", "1205") is the name. A specific
// SQLSTATE stays the name even when the engine has a code too: MariaDB's deadlock 1213 counts as
// 40001, as PostgreSQL's does, so the engines' columns line up.
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace racelab {

// True for a SQLSTATE whose subclass is "000" (HY000, 23000, 42000, …).
inline bool IsGenericSqlstate(const std::string& sqlstate) {
  return sqlstate.size() == 5 && sqlstate.compare(2, 3, "000") == 0;
}

// `error_code` when it is set and `sqlstate` is generic, else `sqlstate` ("" for no error).
inline std::string ErrorKey(const std::string& sqlstate, const std::string& error_code) {
  if (sqlstate.empty()) return "";
  return !error_code.empty() && IsGenericSqlstate(sqlstate) ? error_code : sqlstate;
}

}  // namespace racelab
