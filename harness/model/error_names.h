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

// The name of `code` ("40001" -> "serialization_failure", "1205" -> "ER_LOCK_WAIT_TIMEOUT"), or ""
// for a code the table does not hold (SQLITE_BUSY, a SQLSTATE of another engine's own).
std::string_view ErrorCodeName(std::string_view code);

// "40001 serialization_failure", or `key` itself when it has no name.
std::string ErrorKeyWithName(const std::string& key);

}  // namespace racelab
