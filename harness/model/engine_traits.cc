#include "harness/model/engine_traits.h"

#include <algorithm>

namespace racelab {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

}  // namespace

const std::vector<EngineTraits>& AllEngineTraits() {
  using L = IsolationLevel;
  static const std::vector<EngineTraits> kTraits = {
      {.name = "postgresql",
       .display = "PostgreSQL",
       .levels = {L::kReadCommitted, L::kRepeatableRead, L::kSerializable},
       .sends_error_detail = true},
      {.name = "mariadb",
       .display = "MariaDB",
       .levels = {L::kReadUncommitted, L::kReadCommitted, L::kRepeatableRead, L::kSerializable},
       .own_error_codes = OwnErrorCodes::kErrorNumbers,
       .own_error_example = "a MariaDB error number such as 1213"},
      {.name = "sqlite",
       .display = "SQLite",
       .levels = {L::kSerializable},
       .begins_any_standard_level = false,
       .has_server = false,
       .can_terminate = false,
       .begin_access_modes = false,
       .begin_forms = "DEFERRED, IMMEDIATE or EXCLUSIVE",
       .own_error_codes = OwnErrorCodes::kResultCodeNames,
       .own_error_example = "a SQLite code such as SQLITE_BUSY"},
  };
  return kTraits;
}

const std::vector<std::string>& KnownEngineNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const EngineTraits& t : AllEngineTraits()) out.emplace_back(t.name);
    return out;
  }();
  return kNames;
}

const EngineTraits* FindEngineTraits(std::string_view engine) {
  for (const EngineTraits& t : AllEngineTraits()) {
    if (t.name == engine) return &t;
  }
  return nullptr;
}

std::string EnginesWith(bool (*has)(const EngineTraits&), bool display) {
  std::vector<std::string_view> names;
  for (const EngineTraits& t : AllEngineTraits()) {
    if (has(t)) names.push_back(display ? t.display : t.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

bool IsOwnErrorCode(std::string_view engine, std::string_view code) {
  const EngineTraits* t = FindEngineTraits(engine);
  if (t == nullptr) return false;
  switch (t->own_error_codes) {
    case OwnErrorCodes::kNone:
      return false;
    case OwnErrorCodes::kErrorNumbers:  // MariaDB 1000-4999 (server), 2000-2999 (client)
      return code.size() == 4 && std::all_of(code.begin(), code.end(), IsDigit) && code[0] != '0';
    case OwnErrorCodes::kResultCodeNames:
      return code.size() > 7 && code.size() <= 40 && code.substr(0, 7) == "SQLITE_" &&
             std::all_of(code.begin(), code.end(),
                         [](char c) { return IsUpper(c) || IsDigit(c) || c == '_'; });
  }
  return false;
}

std::string OwnErrorExamples() {
  std::string out;
  for (const EngineTraits& t : AllEngineTraits()) {
    if (t.own_error_codes != OwnErrorCodes::kNone)
      out += "; or " + std::string(t.own_error_example);
  }
  return out;
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
