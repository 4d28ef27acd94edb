#include "harness/engines/sqlite/sqlite_engine.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "harness/engines/sqlite/error_names.h"
#include "harness/engines/sqlite/session_settings.h"
#include "harness/engines/sqlite/sqlite_session.h"
#include "harness/engines/sqlite/sqlite_waits.h"
#include "harness/model/engine_traits.h"

namespace racelab::sqlite {
namespace fs = std::filesystem;
namespace {

// Whether `path` is a SQLite database in WAL mode: its header's read and write versions (bytes 18
// and 19) are 2 (SQLite docs fileformat2.html "1.3.4 File format version numbers"). Only for a file
// no connection of this process has open: closing any descriptor of a file drops every POSIX lock
// the process holds on it, SQLite's too (howtocorrupt.html 2.2).
bool IsWalDatabase(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char header[20] = {};
  const bool read = std::fread(header, 1, sizeof header, f) == sizeof header;
  std::fclose(f);
  return read && header[18] == 2 && header[19] == 2;
}

// `path` as a file: URI (SQLite docs uri.html): '%', '?' and '#' and bytes outside printable ASCII
// percent-encoded.
std::string FileUri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c <= 0x20 || c >= 0x7f) {
      out += fmt::format("%{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Opens the --dsn database to read it, making nothing beside it. A read-only connection to a WAL
// database makes `-wal` and `-shm` files and leaves them when it closes (it may not checkpoint), so
// a WAL database with no `-wal` file — every commit is in the main file — is opened `immutable`
// (uri.html: no locks, no WAL index), which reads the main file alone. One with a `-wal` file has a
// writer, or a crash, of its own: it is opened read-only, with the files that are already there.
int OpenSource(const std::string& path, sqlite3** db) {
  std::error_code ec;
  if (IsWalDatabase(path) && !fs::exists(path + "-wal", ec)) {
    return sqlite3_open_v2((FileUri(path) + "?immutable=1").c_str(), db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  }
  return sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READONLY, nullptr);
}

// Copies database `from` (opened read-only) into `to` with SQLite's online backup API
// (SQLite docs backup.html), which gives a consistent copy even of a database in WAL mode.
Status CopyDatabase(const std::string& from, const std::string& to) {
  sqlite3* src = nullptr;
  sqlite3* dst = nullptr;
  auto close = [&] {
    sqlite3_close_v2(src);
    sqlite3_close_v2(dst);
  };
  int rc = OpenSource(from, &src);
  if (rc == SQLITE_OK)
    rc = sqlite3_open_v2(to.c_str(), &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errstr(rc);
    close();
    return Status::Database(
        fmt::format("cannot copy SQLite database {}: {} ({})", from, msg, ErrorName(rc)));
  }
  sqlite3_busy_timeout(src, 5000);
  sqlite3_backup* b = sqlite3_backup_init(dst, "main", src, "main");
  if (b == nullptr) {
    std::string msg = sqlite3_errmsg(dst);
    close();
    return Status::Database(fmt::format("cannot copy SQLite database {}: {}", from, msg));
  }
  rc = sqlite3_backup_step(b, -1);
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE) {
    std::string msg = sqlite3_errstr(rc);
    close();
    return Status::Database(
        fmt::format("cannot copy SQLite database {}: {} ({})", from, msg, ErrorName(rc)));
  }
  close();
  return Status::Ok();
}

void RemoveDatabaseFiles(const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((db + suffix).c_str());
}

std::string GenerationFile(const std::string& dir, int generation) {
  return fmt::format("{}/trial-{}.db", dir, generation);
}

}  // namespace

std::string RedactSqliteDsn(const std::string& dsn) {
  std::string out = dsn;
  // user:secret@ — the secret runs from the ':' after "sqlite:" (and an optional "//") to the last
  // '@' before any '/' that follows it.
  const size_t body = out.rfind("sqlite:", 0) == 0 ? 7 : 0;
  const size_t query = out.find('?', body);
  const size_t end = query == std::string::npos ? out.size() : query;
  const size_t at = out.rfind('@', end == 0 ? 0 : end - 1);
  if (at != std::string::npos && at >= body) {
    size_t colon = out.rfind(':', at);
    if (colon != std::string::npos && colon >= body && out.find('/', colon) >= at)
      out.replace(colon + 1, at - colon - 1, "***");
  }
  // ?name=value&… — every value.
  size_t q = out.find('?', body);
  while (q != std::string::npos && q < out.size()) {
    size_t eq = out.find('=', q);
    if (eq == std::string::npos) break;
    size_t amp = out.find('&', eq);
    out.replace(eq + 1, (amp == std::string::npos ? out.size() : amp) - eq - 1, "***");
    q = out.find('&', eq);
  }
  return out;
}

bool SqliteDsnMayHoldPassword(std::string_view dsn) {
  const std::string s(dsn);
  return RedactSqliteDsn(s) != s;
}

Result<std::string> ParseSqliteDsn(const std::string& dsn_as_written) {
  const std::string dsn = RedactSqliteDsn(dsn_as_written);  // for messages
  const std::string& written = dsn_as_written;
  const std::string scheme = "sqlite:";
  if (written.rfind(scheme, 0) != 0)
    return Status::Usage(fmt::format("'{}' is not a sqlite: DSN", dsn));
  std::string rest = written.substr(scheme.size());
  if (rest.rfind("//", 0) == 0) {
    rest = rest.substr(2);
    if (rest.empty() || rest[0] != '/') {
      return Status::Usage(
          fmt::format("--dsn {}: a SQLite DSN names a file, not a host: sqlite:///absolute/path.db "
                      "or sqlite:relative/path.db",
                      dsn));
    }
  }
  if (rest.empty())
    return Status::Usage(
        fmt::format("--dsn {}: no database file named (sqlite:///path/file.db)", dsn));
  if (rest.find('?') != std::string::npos) {
    return Status::Usage(
        fmt::format("--dsn {}: SQLite DSNs take no options (settings go in the scenario's "
                    "session settings)",
                    dsn));
  }
  return rest;
}

SqliteEngine::SqliteEngine(EngineOptions options, std::string source)
    : options_(std::move(options)), source_(std::move(source)) {
  caps_.levels = FindEngineTraits("sqlite")->levels;  // serializable
  caps_.default_level = IsolationLevel::kSerializable;
  caps_.terminate = false;
  caps_.row_locks = false;
  caps_.server_lock_log = true;  // the busy handler's record (sqlite_waits.h)
  caps_.returning = sqlite3_libversion_number() >= 3035000;  // UPDATE … RETURNING: SQLite 3.35.0
  caps_.multi_statement = true;
  info_.engine = "sqlite";
  info_.server_version = sqlite3_libversion();
  info_.embedded = source_.empty();
  info_.dsn_redacted = options_.dsn;
  info_.settings = {{"database", source_.empty() ? "a new empty file per trial"
                                                 : "a copy of " + source_ + " per trial"},
                    {"threadsafe", std::to_string(sqlite3_threadsafe())}};
}

SqliteEngine::~SqliteEngine() { Close(); }

Status SqliteEngine::Start() {
  CleanSqliteOrphans();  // a SIGKILLed run's folder goes with the next run
  return folder_.Create(TempBase());
}

Result<std::unique_ptr<Session>> SqliteEngine::OpenSession(const std::string& node,
                                                           const std::string& label,
                                                           SteadyTime deadline,
                                                           const StopFlag* stop) {
  if (Status st = CheckNode(*this, node); !st.ok()) return st;
  auto s = std::make_unique<SqliteSession>(next_session_id_++, label, &busy_log_, stop);
  Status st = s->Open(":memory:");  // until StartClean puts it on a trial's file
  if (!st.ok()) return st;
  // The engine outlives its sessions (Close: after every Session is closed).
  s->set_start_clean([this](SqliteSession* session, const SessionStart& start, SteadyTime until,
                            const std::string& file, bool* lost) {
    return StartCleanOn(session, start, until, file, lost);
  });
  return std::unique_ptr<Session>(std::move(s));
}

Result<std::unique_ptr<WaitMonitor>> SqliteEngine::OpenMonitor(std::chrono::microseconds poll,
                                                               SteadyTime deadline,
                                                               const StopFlag* stop) {
  return std::unique_ptr<WaitMonitor>(std::make_unique<SqliteWaitMonitor>(&busy_log_));
}

Result<std::unique_ptr<ServerWaitLog>> SqliteEngine::OpenWaitLog() {
  return std::unique_ptr<ServerWaitLog>(std::make_unique<SqliteWaitLog>(&busy_log_));
}

std::string SqliteEngine::WorkspaceName(int n) const {
  return fmt::format("racelab_{}_{}_{}", ::getpid(), SqliteRunId(), n);
}

std::string SqliteEngine::WorkspaceFile(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workspaces_.find(name);
  return it == workspaces_.end() || it->second.generation == 0
             ? ""
             : GenerationFile(it->second.dir, it->second.generation);
}

std::string SqliteEngine::ClientConnectionString(const std::string& workspace) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!folder_.created()) return "";
  auto it = workspaces_.find(workspace);
  if (it == workspaces_.end() || it->second.generation == 0)
    return GenerationFile(folder_.path() + "/" + workspace, 1);  // what TrialFile makes first
  return GenerationFile(it->second.dir, it->second.generation);
}

std::string SqliteEngine::ClientCommand(const std::string& workspace) const {
  const std::string file = ClientConnectionString(workspace);
  if (file.empty()) return "";
  const bool plain = std::all_of(file.begin(), file.end(), [](unsigned char c) {
    return std::isalnum(c) || std::strchr("/._-+,:=@%", c) != nullptr;
  });
  if (plain) return "sqlite3 " + file;
  std::string quoted = "'";
  for (char c : file) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "sqlite3 " + quoted + "'";
}

Result<std::string> SqliteEngine::TrialFile(const std::string& name, bool new_trial) {
  if (!folder_.created()) {
    Status st = folder_.Create(TempBase());
    if (!st.ok()) return st;
  }
  Workspace& ws = workspaces_[name];
  if (ws.dir.empty()) {
    ws.dir = folder_.path() + "/" + name;
    if (::mkdir(ws.dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::Internal(fmt::format("cannot create {}: {}", ws.dir, std::strerror(errno)));
    }
  }
  if (new_trial || ws.generation == 0) {
    // A new name per trial: the last trial's connections may still have the old file open, and a
    // file deleted and made again under one name while open is how SQLite databases get corrupted
    // (SQLite docs howtocorrupt.html, "Unlinking or renaming a database file while in use").
    if (ws.generation > 0) RemoveDatabaseFiles(GenerationFile(ws.dir, ws.generation));
    ++ws.generation;
    ws.started.clear();
    ws.reset = false;
    const std::string file = GenerationFile(ws.dir, ws.generation);
    RemoveDatabaseFiles(file);
    if (!source_.empty()) {
      Status st = CopyDatabase(source_, file);
      if (!st.ok()) return st;
    }
  }
  return GenerationFile(ws.dir, ws.generation);
}

Status SqliteEngine::ResetWorkspace(const std::string& name, SteadyTime deadline,
                                    const StopFlag* stop) {
  // Each trial starts every session once and resets the workspace once, in either order (the
  // runner starts the sessions first). A second reset of one file is a new trial: a new file.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workspaces_.find(name);
  auto file = TrialFile(name, it != workspaces_.end() && it->second.reset);
  if (!file.ok()) return file.status();
  workspaces_[name].reset = true;
  return Status::Ok();
}

Status SqliteEngine::DropWorkspace(const std::string& name, SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workspaces_.find(name);
  if (it == workspaces_.end()) return Status::Ok();
  std::error_code ec;
  fs::remove_all(it->second.dir, ec);
  workspaces_.erase(it);
  if (ec)
    return Status::Internal(fmt::format("cannot remove workspace {}: {}", name, ec.message()));
  return Status::Ok();
}

Status SqliteEngine::StartCleanOn(SqliteSession* s, const SessionStart& start, SteadyTime deadline,
                                  const std::string& file, bool* connection_lost) {
  if (connection_lost != nullptr) *connection_lost = false;
  auto settings = ParseSqliteSettings(start.settings);
  if (!settings.ok())
    return Status::Usage(
        fmt::format("{}: session {}: {}", file, start.label, settings.status().message()));
  // A session started twice on one file is in a new trial: a new file (see ResetWorkspace).
  Result<std::string> db = Status::Internal("no trial file");
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto ws = workspaces_.find(start.workspace);
    db = TrialFile(start.workspace,
                   ws != workspaces_.end() && ws->second.started.count(s->session_id()) > 0);
    if (!db.ok()) return db.status();
    workspaces_[start.workspace].started.insert(s->session_id());
  }
  Status st = s->Open(*db);  // a new connection: nothing of the last trial is left on it
  if (!st.ok()) return st;
  // The pragmas may meet another session's (sessions start in parallel; leaving rollback mode for
  // WAL takes an exclusive lock for a moment): they wait until the deadline, unrecorded.
  s->set_recording(false);
  struct Recording {
    SqliteSession* s;
    ~Recording() { s->set_recording(true); }
  } recording_again{s};
  s->set_busy_timeout_ms(std::max<long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                               deadline - std::chrono::steady_clock::now())
                                               .count()));
  if (!settings->journal_mode.empty()) {
    // Two connections switching one new file to WAL at once both hold SHARED and ask for EXCLUSIVE:
    // SQLite answers one SQLITE_BUSY at once without calling the busy handler, which would deadlock
    // (SQLite docs c3ref/busy_handler.html). Sessions starting in parallel switch one at a time.
    std::lock_guard<std::mutex> journal(journal_mu_);
    QueryResult r = s->Exec("PRAGMA journal_mode = " + settings->journal_mode, deadline);
    std::string got = r.ok() && !r.values.empty() && r.values[0][0] ? *r.values[0][0] : "";
    if (!r.ok() || got != settings->journal_mode) {
      // Leaving WAL needs the only connection (pragma.html#pragma_journal_mode): SQLITE_BUSY here.
      return Status::Usage(
          fmt::format("{}: session {}: settings.journal_mode: asked for '{}', the database "
                      "stays in '{}'{} (the journal mode belongs to the file: sessions must agree)",
                      file, start.label, settings->journal_mode, r.ok() ? got : "its mode",
                      r.ok() ? "" : ": " + r.message + " (" + r.error_code + ")"));
    }
  }
  for (const auto& [name, value] : settings->pragmas) {
    QueryResult r = s->Exec(fmt::format("PRAGMA {} = {}", name, value), deadline);
    if (!r.ok()) {
      return Status::Usage(fmt::format("{}: session {}: settings.{}: {} ({})", file, start.label,
                                       name, r.message, r.error_code));
    }
  }
  s->set_busy_timeout_ms(settings->busy_timeout_ms.value_or(0));
  s->set_begin_mode(settings->begin_mode);
  return Status::Ok();
}

bool SqliteEngine::IsScenarioError(const QueryResult& r) const {
  // SQLITE_ERROR is SQLite's generic "SQL error" (syntax, no such table/column —
  // rescode.html#error); "cannot commit/rollback - no transaction is active" follows a transaction
  // SQLite already rolled back, an outcome of the race. SQLITE_AUTH is racelab's confinement
  // denying the statement (confinement.h): the scenario asked for what it may not do.
  return (r.error_code == "SQLITE_ERROR" &&
          r.message.find("no transaction is active") == std::string::npos) ||
         r.error_code.rfind("SQLITE_AUTH", 0) == 0;
}

bool SqliteEngine::IsSessionLost(const QueryResult& r) const { return r.connection_lost; }

bool SqliteEngine::IsInfrastructureFault(const QueryResult& r) const {
  const std::string& c = r.error_code;
  auto is = [&c](const char* name) {  // the primary code, or one of its extended codes
    const size_t n = std::strlen(name);
    return c.compare(0, n, name) == 0 && (c.size() == n || c[n] == '_');
  };
  return is("SQLITE_FULL") || is("SQLITE_IOERR") || is("SQLITE_CANTOPEN") || is("SQLITE_NOMEM") ||
         is("SQLITE_CORRUPT") || is("SQLITE_NOTADB");
}

Status SqliteEngine::HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                                 const StopFlag* stop) {
  return folder_.created() ? Status::Ok() : folder_.Create(TempBase());
}

bool SqliteEngine::ServerAnswers(SteadyTime deadline) {
  std::error_code ec;
  return folder_.created() && fs::is_directory(folder_.path(), ec);
}

Result<std::vector<Leftover>> SqliteEngine::ListLeftovers(SteadyTime deadline) {
  std::vector<Leftover> out;
  for (const RunFolderEntry& e : ListRunFolders(TempBase(), folder_.path())) {
    out.push_back(Leftover{"file", e.path, e.live});
  }
  return out;
}

Status SqliteEngine::DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) {
  std::string failed;
  for (const Leftover& l : which) {
    if (l.live || l.kind != "file") continue;
    if (!RemoveIfDead(l.name)) failed += (failed.empty() ? "" : ", ") + l.name;
  }
  if (!failed.empty())
    return Status::Internal("could not remove " + failed + " (in use, or not removable)");
  return Status::Ok();
}

Status SqliteEngine::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  workspaces_.clear();
  return folder_.Remove();
}

std::vector<std::string> ListSqliteOrphans() {
  std::vector<std::string> dead;
  for (const RunFolderEntry& e : ListRunFolders(TempBase(), "")) {
    if (!e.live) dead.push_back(e.path);
  }
  std::sort(dead.begin(), dead.end());
  return dead;
}

int CleanSqliteOrphans() {
  int removed = 0;
  for (const RunFolderEntry& e : ListRunFolders(TempBase(), "")) {
    if (!e.live && RemoveIfDead(e.path)) ++removed;
  }
  return removed;
}

Result<std::unique_ptr<Engine>> OpenSqliteEngine(const EngineOptions& options) {
  if (!options.engine.empty() && options.engine != "sqlite") {
    return Status::Usage(fmt::format("--engine {} does not match a SQLite DSN", options.engine));
  }
  std::string source;
  if (!options.dsn.empty()) {
    auto path = ParseSqliteDsn(options.dsn);
    if (!path.ok()) return path.status();
    std::error_code ec;
    if (!fs::is_regular_file(*path, ec)) {
      return Status::Database(fmt::format(
          "--dsn {}: {}", RedactSqliteDsn(options.dsn),
          fs::is_directory(*path, ec) ? "a folder, not a database file" : "no such database file"));
    }
    source = fs::absolute(*path, ec).string();
    // Is it a SQLite database? Reading its schema says (SQLITE_NOTADB otherwise).
    sqlite3* db = nullptr;
    int rc = OpenSource(source, &db);
    if (rc == SQLITE_OK)
      rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    if (rc != SQLITE_OK) {
      return Status::Database(fmt::format("--dsn {}: cannot read it as a SQLite database: {} ({})",
                                          RedactSqliteDsn(options.dsn), msg, ErrorName(rc)));
    }
  }
  auto engine = std::make_unique<SqliteEngine>(options, source);
  Status st = engine->Start();
  if (!st.ok()) return st;
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace racelab::sqlite
