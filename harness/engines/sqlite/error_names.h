// SQLite's names for its result codes: "SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT" (517),
// "SQLITE_CONSTRAINT_UNIQUE" (2067) — the spelling of SQLite docs rescode.html, which racelab
// records as QueryResult::error_code. sqlite3_errstr() gives the English text ("database is
// locked"), not the name. Thread-safety: pure function.
#pragma once

#include <string>

namespace racelab::sqlite {

// The name of an extended (or primary) result code; an extended code this table lacks is named by
// its primary code, an unknown primary one "SQLITE_<n>".
std::string ErrorName(int extended_code);

}  // namespace racelab::sqlite
