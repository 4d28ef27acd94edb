#include "harness/model/engine_traits.h"

#include <algorithm>

namespace racelab {
namespace {

const std::vector<EngineTraits>& Table() {
  using L = IsolationLevel;
  static const std::vector<EngineTraits> kTraits = {
      {.name = "postgresql",
       .display = "PostgreSQL",
       .levels = {L::kReadCommitted, L::kRepeatableRead, L::kSerializable}},
      {.name = "mariadb",
       .display = "MariaDB",
       .levels = {L::kReadUncommitted, L::kReadCommitted, L::kRepeatableRead, L::kSerializable}},
      {.name = "sqlite",
       .display = "SQLite",
       .levels = {L::kSerializable},
       .begins_any_standard_level = false},
  };
  return kTraits;
}

}  // namespace

const EngineTraits* FindEngineTraits(std::string_view engine) {
  for (const EngineTraits& t : Table()) {
    if (t.name == engine) return &t;
  }
  return nullptr;
}

std::vector<IsolationLevel> DefaultLevelsOn(std::string_view engine) {
  const EngineTraits* t = FindEngineTraits(engine);
  if (t == nullptr) return AllIsolationLevels();
  std::vector<IsolationLevel> out;
  for (IsolationLevel level : AllIsolationLevels()) {
    if (std::find(t->levels.begin(), t->levels.end(), level) != t->levels.end())
      out.push_back(level);
  }
  return out;
}

bool EngineRunsLevel(std::string_view engine, IsolationLevel level) {
  const EngineTraits* t = FindEngineTraits(engine);
  return t == nullptr || t->begins_any_standard_level ||
         std::find(t->levels.begin(), t->levels.end(), level) != t->levels.end();
}

std::string EngineLevelsSentence(std::string_view engine) {
  const EngineTraits* t = FindEngineTraits(engine);
  if (t == nullptr) return std::string(engine) + " has no such level";
  std::string out = std::string(t->display) + " has ";
  out += t->levels.size() == 1 ? "one isolation level, " : "the isolation levels ";
  for (size_t i = 0; i < t->levels.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == t->levels.size() ? " and " : ", ");
    out += IsolationName(t->levels[i]);
  }
  return out;
}

}  // namespace racelab
