// EngineTraits: what racelab knows of an engine before it opens one — the isolation levels it has —
// so that the loader and the planner decide by a trait, never by `if (engine == "sqlite")`.
//
// One row per engine (engine_traits.cc). The Engine an engine library opens reports the same levels
// in its Capabilities (the SQLite engine takes them from here); a test checks that they agree.
// Thread-safety: immutable data, safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/model/isolation.h"

namespace racelab {

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
};

// The traits of `engine`, or nullptr for a name racelab does not know.
const EngineTraits* FindEngineTraits(std::string_view engine);

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
