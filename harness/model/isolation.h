// Isolation levels, spelled as PostgreSQL spells them (PostgreSQL docs §13.2, SET TRANSACTION).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racelab {

enum class IsolationLevel { kReadCommitted, kRepeatableRead, kSerializable };

// "read committed" | "repeatable read" | "serializable".
std::string_view IsolationName(IsolationLevel level);

// Accepts the PostgreSQL spelling, case-insensitive, with ' ', '-' or '_' between words, and the short
// forms rc, rr, ser. Returns nullopt for anything else.
std::optional<IsolationLevel> ParseIsolation(std::string_view text);

// All three levels, weakest first.
const std::vector<IsolationLevel>& AllIsolationLevels();

}  // namespace racelab
