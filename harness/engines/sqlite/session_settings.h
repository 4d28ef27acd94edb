// A SQLite session's `settings` (docs/scenario-format.md "SQLite sessions"), checked before a
// trial starts:
// - busy_timeout: ms the busy handler lets SQLite retry before SQLITE_BUSY: "0", "2000", "2000ms",
//   "2s" (SQLite docs c3ref/busy_timeout.html; SQLite's default is 0: fail at once);
// - journal_mode: delete | truncate | persist | memory | wal | off
//   (pragma.html#pragma_journal_mode);
// - begin: deferred | immediate | exclusive, what the `begin` step sends (lang_transaction.html);
// - any other name: PRAGMA <name> = <value>, in file order.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/status.h"

namespace racelab::sqlite {

struct SqliteSettings {
  std::optional<long> busy_timeout_ms;
  std::string journal_mode;  // lower case, "" = leave as is
  std::string begin_mode;    // "DEFERRED" | "IMMEDIATE" | "EXCLUSIVE" | ""
  std::vector<std::pair<std::string, std::string>> pragmas;  // other settings, in order
};

// Errors: kUsage, "settings.<name>: <why> (expected …)".
Result<SqliteSettings> ParseSqliteSettings(
    const std::vector<std::pair<std::string, std::string>>& settings);

}  // namespace racelab::sqlite
