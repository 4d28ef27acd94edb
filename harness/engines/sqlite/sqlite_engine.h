// SqliteEngine: SQLite (libsqlite3, in this process) behind the Engine interface (docs/sqlite.md).
//
// - "Server": none. `--engine sqlite` works in a private run folder (run_folder.h); each plan
//   item's workspace is a folder there, and every trial gets a new database file in it (the first
//   StartClean or ResetWorkspace of a trial makes it, in whichever order the runner calls them),
//   so nothing of one trial reaches the next. `--dsn sqlite:///path/file.db`
//   does the same, but each trial's file starts as a copy of that database (SQLite's online backup
//   API, the source opened read-only — `immutable` when it is a WAL database with no -wal file, so
//   that no -wal or -shm is made beside it): racelab never writes the user's file or its folder.
// - Sessions: one connection each (sqlite_session.h), opened again on the trial's file by
//   StartClean, so every trial starts as if just connected. Session settings (session_settings.h):
//   `busy_timeout`, `journal_mode` (it belongs to the database file: sessions that name it must
//   agree), `begin`; any other name runs as `PRAGMA name = value`.
// - Levels: SQLite has one, serializable (SQLite docs isolation.html); Capabilities say so (from
//   harness/model/engine_traits.h), with no terminate and no row locks.
// - Confinement: every session's connection (confinement.h); a denial (SQLITE_AUTH) is a scenario
//   error.
// - Leftovers: the run folders of dead runs (ListLeftovers/DropLeftovers), also swept when an
//   engine opens.
// Thread-safety: as Engine says (the runner's thread), except that StartClean may also be called
// from several threads at once (one per worker): the workspace bookkeeping is under a mutex, and
// the `journal_mode` PRAGMA of one workspace runs one session at a time (see StartClean). Sessions
// follow sqlite_session.h.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/engine/engine_descriptor.h"
#include "harness/engines/sqlite/busy_log.h"
#include "harness/engines/sqlite/run_folder.h"
#include "harness/engines/sqlite/sqlite_session.h"

namespace racelab::sqlite {

// The path a `sqlite:` DSN names: "sqlite:///abs/file.db" -> "/abs/file.db", "sqlite:rel.db" ->
// "rel.db". kUsage for anything else (no path, a query string, a host).
Result<std::string> ParseSqliteDsn(const std::string& dsn);

class SqliteEngine final : public Engine {
 public:
  // Use OpenSqliteEngine().
  SqliteEngine(EngineOptions options, std::string source);
  ~SqliteEngine() override;

  std::string name() const override { return "sqlite"; }
  const Capabilities& capabilities() const override { return caps_; }
  const TargetInfo& info() const override { return info_; }

  Result<std::unique_ptr<Session>> OpenSession(const std::string& node, const std::string& label,
                                               SteadyTime deadline, const StopFlag* stop) override;
  Result<std::unique_ptr<WaitMonitor>> OpenMonitor(std::chrono::microseconds poll,
                                                   SteadyTime deadline,
                                                   const StopFlag* stop) override;
  Status ResetWorkspace(const std::string& name, SteadyTime deadline,
                        const StopFlag* stop) override;
  Status DropWorkspace(const std::string& name, SteadyTime deadline) override;
  std::string WorkspaceName(int n) const override;
  // "BEGIN": the session adds its `begin` mode (sqlite_session.h).
  std::string BeginSql(IsolationLevel level) const override { return "BEGIN"; }
  // A SQLite transaction is serializable and nothing else (sqlite.org/isolation.html), and has no
  // READ ONLY or DEFERRABLE mode (PRAGMA query_only holds for the connection until reset, not for
  // one transaction): "" for any other level or a mode.
  std::string BeginSqlWith(IsolationLevel level, const TransactionModes& modes) const override {
    return level == IsolationLevel::kSerializable && !modes.read_only && !modes.deferrable
               ? BeginSql(level)
               : "";
  }
  bool Committed(const QueryResult& commit) const override { return commit.ok(); }
  bool IsScenarioError(const QueryResult& r) const override;
  bool IsSessionLost(const QueryResult& r) const override;
  // SQLITE_FULL, SQLITE_IOERR*, SQLITE_CANTOPEN*, SQLITE_NOMEM, SQLITE_CORRUPT*, SQLITE_NOTADB: the
  // disk, memory or file under the trial's database failed (rescode.html), not the race.
  bool IsInfrastructureFault(const QueryResult& r) const override;
  // --keep (docs/step.md): the database file of workspace `name` — its current trial's, or the one
  // its first trial gets when it has none yet — and `sqlite3 FILE` for the sqlite3 shell (the path
  // shell-quoted when it needs it). A file path holds no secret. "" when the run folder is gone.
  std::string ClientConnectionString(const std::string& workspace) const override;
  std::string ClientCommand(const std::string& workspace) const override;
  Result<std::unique_ptr<ServerWaitLog>> OpenWaitLog() override;
  Status HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                     const StopFlag* stop) override;
  bool ServerAnswers(SteadyTime deadline) override;
  Result<std::vector<Leftover>> ListLeftovers(SteadyTime deadline) override;
  Status DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) override;
  Status Close() override;

  // The database file the current trial of workspace `name` uses ("" before its first trial).
  std::string WorkspaceFile(const std::string& name) const;
  const std::string& run_folder() const { return folder_.path(); }
  BusyLog* busy_log() { return &busy_log_; }
  // Creates the run folder and sweeps dead runs' folders (OpenSqliteEngine calls it).
  Status Start();

 private:
  // SqliteSession::StartClean of the sessions OpenSession made: the session on a new file of its
  // workspace (a new trial's, see ResetWorkspace), then its settings.
  Status StartCleanOn(SqliteSession* s, const SessionStart& start, SteadyTime deadline,
                      const std::string& file, bool* connection_lost);
  struct Workspace {
    std::string dir;
    int generation = 0;         // the current trial's file is trial-<generation>.db
    std::set<int64_t> started;  // sessions StartClean put on it
    bool reset = false;         // ResetWorkspace was called for it
  };

  // The current trial's database file of workspace `name`, made (empty, or a copy of the DSN's
  // database) when `new_trial` or when there is none yet.
  Result<std::string> TrialFile(const std::string& name, bool new_trial);

  EngineOptions options_;
  std::string source_;  // the --dsn database copied into every trial, or ""
  Capabilities caps_;
  TargetInfo info_;
  RunFolder folder_;
  BusyLog busy_log_;
  mutable std::mutex mu_;  // guards folder_ creation and workspaces_
  std::map<std::string, Workspace> workspaces_;
  std::mutex journal_mu_;  // one journal_mode switch at a time (StartClean)
  std::atomic<int64_t> next_session_id_{1};
};

// For its descriptor (descriptor.cc): a SQLite DSN is a file path, never a
// secret, so it is shown as written; it looks like "sqlite:…".
// A SQLite DSN names a file and holds no secret when written as documented, but a user may still
// type one in (`sqlite://me:pw@host/x.db`, `sqlite:x.db?password=pw`, a SQLCipher `?key=`): the
// part between ':' and '@' of any `user:secret@`, and every query value, are shown as `***`
// (the DSN is refused anyway: docs/sqlite.md). Everything else is shown as written.
std::string RedactSqliteDsn(const std::string& dsn);
inline bool LooksLikeSqliteDsn(std::string_view dsn) { return dsn.substr(0, 7) == "sqlite:"; }
// True when RedactSqliteDsn hides something in `dsn`.
bool SqliteDsnMayHoldPassword(std::string_view dsn);
// Removes the run folders of SQLite runs that are gone (run_folder.h); returns how many.
int CleanSqliteOrphans();
// The run folders CleanSqliteOrphans would remove (their run is gone), as paths; nothing is
// touched.
std::vector<std::string> ListSqliteOrphans();

// Opens the SQLite engine for `options` (engine "sqlite", or a sqlite: DSN). Errors: kUsage for a
// bad DSN; kDatabase when the DSN's file is missing or not a SQLite database; kInternal when the
// run folder cannot be made.
Result<std::unique_ptr<Engine>> OpenSqliteEngine(const EngineOptions& options);

}  // namespace racelab::sqlite
