// EngineTraits: what racelab knows of an engine before it opens one — its name, the isolation
// levels it has, whether a server runs it, which error codes of its own it has — so that the
// loader, the planner and the CLI decide by a trait, never by `if (engine == "sqlite")`.
//
// One row per engine (engine_traits.cc): the model holds them because the loader, which reads a
// scenario file without opening an engine, sits below the engines and may include only the model.
// Everything else about an engine — its DSN schemes, how it opens, its cleaners — is in its
// descriptor (harness/engine/engine_descriptor.h), in its own folder, which points at this row; the
// registry (harness/engine_registry/) checks that the two agree. The Engine an engine library opens
// reports the same levels in its Capabilities; a test checks that they agree.
// Thread-safety: immutable data, safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/model/isolation.h"

namespace racelab {

// The engine of a scenario without `engines:`, and of a run without --engine or --dsn.
inline constexpr std::string_view kDefaultEngine = "postgresql";

// An engine's own error codes, which `sqlstates` and `errors[].sqlstate` accept next to SQLSTATEs.
enum class OwnErrorCodes {
  kNone,             // SQLSTATEs only (PostgreSQL)
  kErrorNumbers,     // 4-digit numbers, 1000-9999 ("1213": MariaDB's server and client errors)
  kResultCodeNames,  // SQLITE_ and capitals, digits, '_' ("SQLITE_BUSY_SNAPSHOT": SQLite)
};

struct EngineTraits {
  std::string_view name;     // "postgresql", as --engine and `engines:` spell it
  std::string_view display;  // "PostgreSQL"
  // The levels it runs, weakest first. PostgreSQL runs read uncommitted as read committed
  // (PostgreSQL docs §13.2), so it does not offer it; SQLite serializes every transaction
  // (sqlite.org/isolation.html).
  std::vector<IsolationLevel> levels;
  // Whether a transaction may still ask for a standard level not in `levels` (PostgreSQL accepts
  // READ UNCOMMITTED and runs it as read committed); false: such a BEGIN cannot run (SQLite's BEGIN
  // takes no level).
  bool begins_any_standard_level = true;
  // Whether a server process runs the database, which can end a connection (`await_ended` waits for
  // it); false: it runs inside racelab (SQLite).
  bool has_server = true;
  // Whether one connection can end another's (`terminate`; Capabilities::terminate agrees).
  bool can_terminate = true;
  // Whether a BEGIN takes READ ONLY and DEFERRABLE; when not, `begin_forms` says what it takes
  // (for the error).
  bool begin_access_modes = true;
  std::string_view begin_forms;  // "DEFERRED, IMMEDIATE or EXCLUSIVE"
  // Whether its errors carry a DETAIL (PostgreSQL's), which `errors[].detail` checks.
  bool sends_error_detail = false;
  OwnErrorCodes own_error_codes = OwnErrorCodes::kNone;
  std::string_view own_error_example;  // "a MariaDB error number such as 1213", for the error
};

// Every engine racelab knows (the ones a scenario may list), in --engine's order: postgresql,
// mariadb, sqlite. A build may leave some out (harness/engine_registry/registry.h).
const std::vector<EngineTraits>& AllEngineTraits();
// Their names, in the same order.
const std::vector<std::string>& KnownEngineNames();

// The traits of `engine`, or nullptr for a name racelab does not know.
const EngineTraits* FindEngineTraits(std::string_view engine);

// The names of the known engines for which `has(traits)` holds, joined as "postgresql and mariadb"
// (`display`: "PostgreSQL and MariaDB"); for messages that say where a feature is.
std::string EnginesWith(bool (*has)(const EngineTraits&), bool display = false);

// Whether `code` is one of `engine`'s own error codes (OwnErrorCodes); false for an unknown engine.
bool IsOwnErrorCode(std::string_view engine, std::string_view code);
// The known engines' own error codes, each by its example, for the error about a code that is
// none: "; or a MariaDB error number such as 1213; or a SQLite code such as SQLITE_BUSY".
std::string OwnErrorExamples();

// The levels a scenario without `isolation:` runs at on `engine`: AllIsolationLevels() that the
// engine has (SQLite: serializable only). AllIsolationLevels() for an unknown engine.
std::vector<IsolationLevel> DefaultLevelsOn(std::string_view engine);

// Whether a scenario may ask `engine` for `level` (in `levels`, or begins_any_standard_level; true
// for an unknown engine: its own checks decide).
bool EngineRunsLevel(std::string_view engine, IsolationLevel level);

// "SQLite has one isolation level, serializable", "PostgreSQL has the isolation levels read
// committed, repeatable read and serializable": for an error about a level it lacks.
std::string EngineLevelsSentence(std::string_view engine);

}  // namespace racelab
