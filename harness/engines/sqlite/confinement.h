// What scenario SQL may not do on a SQLite connection (docs/sqlite.md "What a scenario may not
// do").
//
// SQLite runs inside racelab's process, as racelab's OS user: without these limits a step could
// write any file that user may write (ATTACH DATABASE, VACUUM INTO — including the --dsn database
// racelab promises never to write), load code into racelab (load_extension), or change process-wide
// settings that racelab's other connections use. Every connection a session opens gets, before any
// scenario SQL runs:
//  - an authorizer (sqlite3_set_authorizer) that denies SQLITE_ATTACH and SQLITE_DETACH (ATTACH,
//    DETACH, and VACUUM and VACUUM INTO, which SQLite runs by attaching a database: measured on
//    SQLite 3.40.1, VACUUM INTO 'f' asks SQLITE_ATTACH with "f", plain VACUUM with ""), the
//    function load_extension, and the pragmas in kDeniedPragmas (process-wide or file-system
//    settings);
//  - SQLITE_LIMIT_ATTACHED 0 (sqlite3_limit), so no database can be attached even past the
//  authorizer;
//  - SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION and SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER off,
//    SQLITE_DBCONFIG_DEFENSIVE on (no writable_schema, journal_mode=OFF, sqlite_dbpage writes: SQL
//    that could corrupt the file SQLite then reads — c3ref/c_dbconfig_defensive.html),
//    SQLITE_DBCONFIG_TRUSTED_SCHEMA off.
// A denied statement fails to prepare with SQLITE_AUTH ("authorization denied"); the engine counts
// it as a scenario error (exit 2), and the session adds what was denied to the message (Denied()).
// Thread-safety: a Confinement belongs to one connection and is used on the thread that runs it.
#pragma once

#include <sqlite3.h>

#include <string>

#include "harness/model/status.h"

namespace racelab::sqlite {

// Pragmas a scenario may not run: each sets state of the whole racelab process
// (temp_store_directory, data_store_directory: where every connection puts its files;
// soft/hard_heap_limit: the memory of every connection), not of its own connection or database.
inline constexpr const char* kDeniedPragmas[] = {"temp_store_directory", "data_store_directory",
                                                 "soft_heap_limit", "hard_heap_limit"};

class Confinement {
 public:
  // Installs the authorizer, limit and configuration on `db` (see the file comment). `this` must
  // outlive `db`'s use. Errors: kDatabase when SQLite refuses a configuration.
  Status Apply(sqlite3* db);
  // What the authorizer last denied, e.g. "ATTACH DATABASE '/etc/x.db'"; "" when nothing since
  // Clear().
  const std::string& denied() const { return denied_; }
  void Clear() { denied_.clear(); }

 private:
  static int Authorize(void* self, int action, const char* a, const char* b, const char* db,
                       const char* trigger);
  std::string denied_;
};

// The text a denial adds to SQLite's "authorization denied": what was denied and where the list is.
std::string DeniedText(const std::string& denied);

}  // namespace racelab::sqlite
