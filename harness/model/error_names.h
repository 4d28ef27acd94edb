// Condition names of the codes the reports count (ResultSummary::errors keys, error_key.h), shown
// next to the code where a person reads them: "40001 serialization_failure", "1213
// ER_LOCK_DEADLOCK". PostgreSQL's SQLSTATEs by PostgreSQL 15's names (errcodes.txt, the manual's
// Appendix A), the MariaDB error numbers racelab's catalogue meets by their mysqld_error.h symbol;
// SQLite's codes (SQLITE_BUSY) are names already and have none.
// Thread-safety: pure functions over a constant table.
#pragma once

#include <string>
#include <string_view>

namespace racelab {

// The name `engine` gives `code` (a ResultSummary::errors key), or "" when it gives none:
//  - an engine's own code (IsOwnErrorCode: MariaDB's "1213" -> "ER_LOCK_DEADLOCK");
//  - a SQLSTATE on an engine whose errors are SQLSTATEs only (OwnErrorCodes::kNone, PostgreSQL:
//    "40001" -> "serialization_failure");
//  - none for a SQLSTATE of an engine with codes of its own: MariaDB's deadlock 1213 is counted as
//    40001 (error_key.h), and PostgreSQL's name for 40001 would misname it; none for SQLite's codes
//    (names already), an unknown engine or a code the table does not hold.
std::string_view ErrorCodeName(std::string_view engine, std::string_view code);

// "40001 serialization_failure", or `key` itself when `engine` gives it no name.
std::string ErrorKeyWithName(std::string_view engine, const std::string& key);

}  // namespace racelab
