#include "harness/engines/sqlite/session_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace racelab::sqlite {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

// "2000", "2000ms", "2s" -> ms; nullopt otherwise.
std::optional<long> ParseMs(const std::string& text) {
  std::string s = Lower(text);
  long factor = 1;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "ms") == 0) {
    s.resize(s.size() - 2);
  } else if (s.size() > 1 && s.back() == 's') {
    s.pop_back();
    factor = 1000;
  }
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || v < 0 ||
      v > 3600L * 1000 / factor) {
    return std::nullopt;
  }
  return v * factor;
}

}  // namespace

Result<SqliteSettings> ParseSqliteSettings(
    const std::vector<std::pair<std::string, std::string>>& settings) {
  SqliteSettings out;
  for (const auto& [name, value] : settings) {
    if (name == "busy_timeout") {
      auto ms = ParseMs(value);
      if (!ms) {
        return Status::Usage(
            fmt::format("settings.busy_timeout: '{}' is not a duration (expected ms from 0 to "
                        "3600000: 2000, 2000ms or 2s)",
                        value));
      }
      out.busy_timeout_ms = *ms;
    } else if (name == "journal_mode") {
      std::string m = Lower(value);
      static const char* kModes[] = {"delete", "truncate", "persist", "memory", "wal"};
      if (m == "off") {
        // SQLITE_DBCONFIG_DEFENSIVE (confinement.h) keeps a connection out of journal_mode OFF.
        return Status::Usage(
            "settings.journal_mode: 'off' is refused: racelab runs SQLite defensive "
            "(SQLITE_DBCONFIG_DEFENSIVE), which keeps the journal (docs/sqlite.md \"What a "
            "scenario "
            "may not do\"); expected one of: delete, truncate, persist, memory, wal");
      }
      if (std::none_of(std::begin(kModes), std::end(kModes),
                       [&](const char* k) { return m == k; })) {
        return Status::Usage(
            fmt::format("settings.journal_mode: '{}' is not a journal mode (expected one of: "
                        "delete, truncate, persist, memory, wal)",
                        value));
      }
      out.journal_mode = m;
    } else if (name == "begin") {
      std::string m = Lower(value);
      if (m != "deferred" && m != "immediate" && m != "exclusive") {
        return Status::Usage(
            fmt::format("settings.begin: '{}' is not a transaction mode (expected one of: "
                        "deferred, immediate, exclusive)",
                        value));
      }
      std::transform(m.begin(), m.end(), m.begin(),
                     [](unsigned char c) { return std::toupper(c); });
      out.begin_mode = m;
    } else {
      bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::islower(c) || std::isdigit(c) || c == '_';
      });
      if (!ok)
        return Status::Usage(
            fmt::format("settings.{}: not a SQLite pragma name ([a-z_][a-z0-9_]*)", name));
      out.pragmas.emplace_back(name, value);
    }
  }
  return out;
}

}  // namespace racelab::sqlite
