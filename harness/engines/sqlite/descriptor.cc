#include "harness/engines/sqlite/descriptor.h"

#include "harness/engines/sqlite/sqlite_engine.h"

namespace racelab::sqlite {

const EngineDescriptor& SqliteDescriptor() {
  static const EngineDescriptor kDescriptor = {
      .traits = FindEngineTraits("sqlite"),
      .dsn_schemes = {"sqlite:"},
      .dsn_forms = "sqlite:FILE",
      // No server to start: each trial gets a new database file in a run folder of its own.
      .embedded_note = "SQLite: a new database file per trial…",
      .open = &OpenSqliteEngine,
      .redact_dsn = &RedactSqliteDsn,
      .looks_like_dsn = &LooksLikeSqliteDsn,
      .may_hold_password = &SqliteDsnMayHoldPassword,
      .cleaners = {.orphan_kind = "run folder",
                   .list_orphans = &ListSqliteOrphans,
                   .clean_orphans = &CleanSqliteOrphans},
  };
  return kDescriptor;
}

}  // namespace racelab::sqlite
