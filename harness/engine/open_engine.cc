// The engine registry: one row per engine this build knows (docs/architecture.md "The engine
// interface"). To add an engine, add its row to Registry() and link its library to
// racelab_open_engine.
#include "harness/engine/open_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "harness/engines/embedded/run_folders.h"
#include "harness/engines/mariadb/dsn.h"
#include "harness/engines/mariadb/engine.h"
#include "harness/engines/mariadb/server.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/dsn.h"
#include "harness/engines/postgresql/pg_engine.h"
#include "harness/engines/sqlite/sqlite_engine.h"

namespace racelab {
namespace {

struct EngineEntry {
  std::string name;     // --engine and reports: "postgresql"
  std::string display;  // "PostgreSQL"
  Result<std::unique_ptr<Engine>> (*open)(const EngineOptions&) = nullptr;
  std::string (*redact)(const std::string&) = nullptr;
  bool (*looks_like_dsn)(std::string_view) = nullptr;
  bool (*may_hold_password)(std::string_view) = nullptr;
  int (*clean_orphans)() = nullptr;
  std::vector<std::string> (*list_orphans)() =
      nullptr;              // what clean_orphans would remove, as paths
  std::string orphan_kind;  // "cluster", "server", "run folder"
  // Cached files this racelab never uses (nullptr: none), each as "<what> <path>", and their
  // removal.
  int (*clean_obsolete)() = nullptr;
  std::vector<std::string> (*list_obsolete)() = nullptr;
};

// `clean` or `list` applied to each of `dirs`: the removals summed, the paths joined.
int SumOver(const std::vector<std::string>& dirs, int (*clean)(const std::string&)) {
  int n = 0;
  for (const auto& d : dirs) n += clean(d);
  return n;
}
std::vector<std::string> ListOver(const std::vector<std::string>& dirs,
                                  std::vector<std::string> (*list)(const std::string&)) {
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    std::vector<std::string> more = list(d);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

// The PostgreSQL base folder under $RACELAB_TMPDIR when it is set (and valid), else none: the
// templates there are listed and removed by `racelab clean` (open_engine.h).
std::vector<std::string> TmpdirBaseDirs() {
  const char* dir = std::getenv("RACELAB_TMPDIR");
  if (dir == nullptr || *dir == '\0' || !embedded::CheckTmpdirVariable().ok()) return {};
  return {pg::DefaultBaseDir()};
}

Result<std::unique_ptr<Engine>> OpenPostgres(const EngineOptions& o) {
  pg::PgEngineOptions po;
  po.dsn = o.dsn;
  po.pg_bindir = o.server_bindir;
  po.connect_timeout_ms = o.connect_timeout_ms;
  po.stop = o.stop;
  po.confine = o.confine;
  po.allow_superuser = o.allow_superuser;
  return pg::OpenPostgresEngine(po);
}

const std::vector<EngineEntry>& Registry() {
  static const std::vector<EngineEntry> kEngines = {
      {"postgresql", "PostgreSQL", &OpenPostgres, &pg::RedactDsn, &pg::LooksLikeDsn,
       &pg::MayHoldPassword, [] { return SumOver(pg::BaseDirsToClean(), &pg::CleanOrphans); },
       [] { return ListOver(pg::BaseDirsToClean(), &pg::ListOrphans); }, "cluster",
       // The initdb templates of earlier racelab versions (16 MB WAL segments), and this version's
       // in a base folder racelab no longer uses: template.h.
       [] {
         return SumOver(pg::BaseDirsToClean(), &pg::CleanObsoleteTemplates) +
                SumOver(pg::UnusedBaseDirs(), &pg::CleanUnusedTemplates) +
                SumOver(TmpdirBaseDirs(), &pg::CleanUnusedTemplates);
       },
       [] {
         std::vector<std::string> out;
         for (const auto& path : ListOver(pg::BaseDirsToClean(), &pg::ListObsoleteTemplates)) {
           out.push_back("template of an earlier racelab " + path);
         }
         for (const auto& path : ListOver(pg::UnusedBaseDirs(), &pg::ListUnusedTemplates)) {
           out.push_back("template in a folder racelab no longer uses " + path);
         }
         for (const auto& path : ListOver(TmpdirBaseDirs(), &pg::ListUnusedTemplates)) {
           out.push_back("template under RACELAB_TMPDIR " + path);
         }
         return out;
       }},
      {"sqlite", "SQLite", &sqlite::OpenSqliteEngine, &sqlite::RedactSqliteDsn,
       &sqlite::LooksLikeSqliteDsn, &sqlite::SqliteDsnMayHoldPassword, &sqlite::CleanSqliteOrphans,
       &sqlite::ListSqliteOrphans, "run folder", nullptr, nullptr},
      {"mariadb", "MariaDB", &mariadb::OpenMariaDbEngine, &mariadb::RedactMariaDbDsn,
       &mariadb::LooksLikeMariaDbDsn, &mariadb::MariaDbDsnMayHoldPassword,
       [] { return mariadb::CleanMariaDbOrphans(mariadb::DefaultMariaDbBaseDir()); },
       [] { return mariadb::ListMariaDbOrphans(mariadb::DefaultMariaDbBaseDir()); }, "server",
       nullptr, nullptr},
  };
  return kEngines;
}

const EngineEntry* Find(const std::string& name) {
  for (const auto& e : Registry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Every engine the project plans, built in or not: a DSN of one not built in gets a clear error.
constexpr const char* kPlannedEngines[] = {"postgresql", "mariadb", "sqlite"};

std::string KnownNames() {
  std::string out;
  for (const auto& n : EngineNames()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> EngineNames() {
  std::vector<std::string> out;
  for (const auto& e : Registry()) out.push_back(e.name);
  return out;
}

std::string EngineOfDsn(const std::string& dsn) {
  if (StartsWith(dsn, "postgresql://") || StartsWith(dsn, "postgres://")) return "postgresql";
  if (StartsWith(dsn, "mariadb://") || StartsWith(dsn, "mysql://")) return "mariadb";
  if (StartsWith(dsn, "sqlite:")) return "sqlite";
  if (dsn.find("://") != std::string::npos) return "";
  return "postgresql";  // libpq key=value text (and service names): PostgreSQL's own form
}

std::string EngineDisplayName(const std::string& engine) {
  const EngineEntry* e = Find(engine);
  if (e != nullptr) return e->display;
  if (engine == "mariadb") return "MariaDB";
  if (engine == "sqlite") return "SQLite";
  return engine;
}

std::string SelectedEngine(const EngineOptions& options) {
  if (!options.engine.empty()) return options.engine;
  if (!options.dsn.empty() && !EngineOfDsn(options.dsn).empty()) return EngineOfDsn(options.dsn);
  return "postgresql";
}

std::string RedactDsn(const std::string& dsn) {
  const EngineEntry* e = Find(EngineOfDsn(dsn));
  return e != nullptr ? e->redact(dsn) : std::string(pg::kUnparseableDsn);
}

bool LooksLikeDsn(std::string_view arg) {
  for (const auto& e : Registry()) {
    if (e.looks_like_dsn(arg)) return true;
  }
  // A URI of an engine not built in may still carry a password: treat it as a secret too.
  for (const char* scheme : {"mariadb://", "mysql://"}) {
    if (StartsWith(arg, scheme)) return true;
  }
  return false;
}

bool MayHoldPassword(std::string_view dsn) {
  const EngineEntry* e = Find(EngineOfDsn(std::string(dsn)));
  return e != nullptr ? e->may_hold_password(dsn) : dsn.find("://") != std::string_view::npos;
}

std::vector<std::string> ListEmbeddedOrphans() {
  std::vector<std::string> out;
  for (const auto& e : Registry()) {
    for (const std::string& path : e.list_orphans())
      out.push_back(e.display + " " + e.orphan_kind + " " + path);
  }
  return out;
}

int CleanEmbeddedOrphans() {
  int n = 0;
  for (const auto& e : Registry()) n += e.clean_orphans();
  return n;
}

std::vector<std::string> ListObsoleteEmbeddedFiles() {
  std::vector<std::string> out;
  for (const auto& e : Registry()) {
    if (e.list_obsolete == nullptr) continue;
    for (const std::string& item : e.list_obsolete()) out.push_back(e.display + " " + item);
  }
  return out;
}

int CleanObsoleteEmbeddedFiles() {
  int n = 0;
  for (const auto& e : Registry()) n += e.clean_obsolete == nullptr ? 0 : e.clean_obsolete();
  return n;
}

Status CheckTmpdirVariable() { return embedded::CheckTmpdirVariable(); }

Result<std::unique_ptr<Engine>> OpenEngine(const EngineOptions& options) {
  if (Status tmpdir = CheckTmpdirVariable(); !tmpdir.ok()) return tmpdir;
  std::string name = options.engine;
  const std::string of_dsn = options.dsn.empty() ? "" : EngineOfDsn(options.dsn);
  if (!options.dsn.empty() && of_dsn.empty()) {
    return Status::Usage(fmt::format(
        "--dsn: no engine this build knows uses that scheme (known engines: {})", KnownNames()));
  }
  if (name.empty()) name = of_dsn.empty() ? "postgresql" : of_dsn;
  if (!of_dsn.empty() && of_dsn != name) {
    return Status::Usage(
        fmt::format("--engine {} does not match the --dsn, which names a {} server", name, of_dsn));
  }
  const EngineEntry* e = Find(name);
  if (e == nullptr) {
    const bool planned = std::find(std::begin(kPlannedEngines), std::end(kPlannedEngines), name) !=
                         std::end(kPlannedEngines);
    return Status::Usage(
        planned ? fmt::format("engine '{}' is not built into this racelab yet (known engines: {})",
                              name, KnownNames())
                : fmt::format("unknown engine '{}' (known engines: {})", name, KnownNames()));
  }
  return e->open(options);
}

}  // namespace racelab
