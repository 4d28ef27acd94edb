// Isolation levels, spelled as the SQL standard (and PostgreSQL, MariaDB) spell them (PostgreSQL
// docs §13.2, SET TRANSACTION; MariaDB docs "SET TRANSACTION"). PostgreSQL runs read uncommitted as
// read committed, so its engine does not offer it; MariaDB/InnoDB does (dirty reads).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racelab {

enum class IsolationLevel { kReadUncommitted, kReadCommitted, kRepeatableRead, kSerializable };

// "read uncommitted" | "read committed" | "repeatable read" | "serializable".
std::string_view IsolationName(IsolationLevel level);

// Accepts the PostgreSQL spelling, case-insensitive, with ' ', '-' or '_' between words, and the
// short forms ru, rc, rr, ser. Returns nullopt for anything else.
std::optional<IsolationLevel> ParseIsolation(std::string_view text);

// The levels a scenario runs at when it lists none: read committed, repeatable read, serializable
// (read uncommitted only when listed), weakest first.
const std::vector<IsolationLevel>& AllIsolationLevels();

}  // namespace racelab
