#include "harness/engines/sqlite/confinement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

namespace racelab::sqlite {
namespace {

std::string Lower(const char* s) {
  std::string out = s == nullptr ? "" : s;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool IsDeniedPragma(const std::string& name) {
  return std::any_of(std::begin(kDeniedPragmas), std::end(kDeniedPragmas),
                     [&](const char* p) { return name == p; });
}

}  // namespace

int Confinement::Authorize(void* self, int action, const char* a, const char* b, const char* db,
                           const char* trigger) {
  auto* c = static_cast<Confinement*>(self);
  switch (action) {
    case SQLITE_ATTACH:
      // VACUUM (a temporary database, "") and VACUUM INTO 'f' ("f") attach too.
      c->denied_ = a == nullptr || *a == '\0'
                       ? std::string("VACUUM (SQLite runs it by attaching a database)")
                       : fmt::format("ATTACH DATABASE or VACUUM INTO '{}'", a);
      return SQLITE_DENY;
    case SQLITE_DETACH:
      c->denied_ = "DETACH DATABASE";
      return SQLITE_DENY;
    case SQLITE_FUNCTION:
      if (Lower(b) == "load_extension") {
        c->denied_ = "load_extension()";
        return SQLITE_DENY;
      }
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      if (IsDeniedPragma(Lower(a))) {
        c->denied_ = fmt::format("PRAGMA {} (a setting of the whole racelab process)", Lower(a));
        return SQLITE_DENY;
      }
      return SQLITE_OK;
    default:
      return SQLITE_OK;
  }
}

Status Confinement::Apply(sqlite3* db) {
  denied_.clear();
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  struct Config {
    int op;
    int value;
    const char* name;
  };
  static constexpr Config kConfig[] = {
      {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION"},
      {SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER"},
      {SQLITE_DBCONFIG_DEFENSIVE, 1, "SQLITE_DBCONFIG_DEFENSIVE"},
      {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "SQLITE_DBCONFIG_TRUSTED_SCHEMA"},
  };
  for (const Config& c : kConfig) {
    int now = -1;
    if (sqlite3_db_config(db, c.op, c.value, &now) != SQLITE_OK || now != c.value) {
      return Status::Database(fmt::format(
          "SQLite refused {} = {} (racelab's confinement of scenario SQL)", c.name, c.value));
    }
  }
  if (sqlite3_set_authorizer(db, &Confinement::Authorize, this) != SQLITE_OK) {
    return Status::Database(
        "SQLite refused racelab's authorizer (the confinement of scenario SQL)");
  }
  return Status::Ok();
}

std::string DeniedText(const std::string& denied) {
  return fmt::format(
      "racelab confines scenario SQL and denies {}: docs/sqlite.md \"What a scenario may not do\"",
      denied);
}

}  // namespace racelab::sqlite
