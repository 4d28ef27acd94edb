// SqliteSession: one SQLite connection (libsqlite3) behind the Session interface
// (docs/architecture.md "The engine interface", docs/sqlite.md).
//
// - The connection lives in this process: Exec runs sqlite3_prepare_v2/sqlite3_step on the calling
//   thread, so a "wait" is the busy handler sleeping inside sqlite3_step.
// - Busy handler: racelab's own, always installed. It implements `busy_timeout` with SQLite's own
//   schedule (sqliteDefaultBusyCallback in SQLite's main.c: sleep 1, 2, 5, 10, 15, 20, 25, 25, 25,
//   50, 50, 100 ms, then 100 ms, until the sum of those sleeps would pass the timeout; then
//   SQLITE_BUSY), records every call in the BusyLog, and also gives up at the statement's
//   deadline, on stop and on Cancel(). busy_timeout 0 (SQLite's default) gives up on the first
//   call.
// - Deadlines: a progress handler (every kProgressOps virtual-machine instructions) interrupts a
//   statement that runs past its deadline, on stop or after Cancel() (SQLITE_INTERRUPT); a
//   statement waiting for a lock is ended by the busy handler at its deadline (SQLITE_BUSY).
//   Either way the result says cancelled_by_deadline and the message says what racelab did. Exec
//   returns within a few ms of its deadline; `cancel_grace` is not needed (nothing runs outside
//   this thread).
// - Errors: QueryResult::error_code is SQLite's name of the extended result code (error_names.h),
//   `message` is sqlite3_errmsg(); `sqlstate` is HY000 (general error): SQLite has no SQLSTATE,
//   and racelab claims no specific one (docs/sqlite.md "Errors").
// - Confinement: every connection Open() makes is confined before it runs anything (confinement.h:
//   no ATTACH/VACUUM INTO, load_extension or process-wide pragma); a denied statement fails with
//   SQLITE_AUTH and a message that says what was denied.
// - Begin mode: Exec("BEGIN") sends "BEGIN <mode>" when the session's `begin` setting is set
//   (deferred, immediate, exclusive: SQLite docs lang_transaction.html); any other text is sent as
//   written.
// Thread-safety: one thread uses a session at a time; Cancel() is safe from any thread (it calls
// sqlite3_interrupt, which SQLite docs c3ref/interrupt.html allow from another thread).
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/session.h"
#include "harness/engines/sqlite/busy_log.h"
#include "harness/engines/sqlite/confinement.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::sqlite {

inline constexpr int kProgressOps = 8;
// The SQLSTATE of every SQLite error: HY000, general error (SQL/CLI).
inline constexpr const char* kSqlstateGeneralError = "HY000";

class SqliteSession final : public Session {
 public:
  // A session with no database yet (Open() gives it one). `log` and `stop` outlive it.
  SqliteSession(int64_t id, std::string label, BusyLog* log, const StopFlag* stop);
  ~SqliteSession() override;
  SqliteSession(const SqliteSession&) = delete;
  SqliteSession& operator=(const SqliteSession&) = delete;

  // Closes the current connection (if any) and opens `file` (created if missing), as a new
  // connection with default settings: busy_timeout 0, begin mode "" (SQLite's DEFERRED), and
  // confined (confinement.h). Owning thread. Errors: kDatabase with SQLite's message.
  Status Open(const std::string& file);
  const std::string& file() const { return file_; }

  // Session::StartClean: what the engine that made this session does to start it clean (a new
  // trial file, the settings — SqliteEngine::StartCleanOn), set by it (SqliteEngine::OpenSession);
  // a session without one answers kInternal.
  using StartCleanFn = std::function<Status(SqliteSession*, const SessionStart&, SteadyTime,
                                            const std::string&, bool*)>;
  void set_start_clean(StartCleanFn fn) { start_clean_ = std::move(fn); }
  Status StartClean(const SessionStart& start, SteadyTime deadline, const std::string& file,
                    bool* connection_lost) override {
    if (!start_clean_) return Status::Internal("StartClean: not a scenario session");
    return start_clean_(this, start, deadline, file, connection_lost);
  }

  // busy_timeout in ms (>= 0) for racelab's busy handler (see the file comment).
  void set_busy_timeout_ms(long ms) { busy_timeout_ms_ = ms; }
  long busy_timeout_ms() const { return busy_timeout_ms_; }
  // Whether busy waits go to the BusyLog (default true). StartClean turns it off for its own
  // pragmas, which are racelab's, not the scenario's.
  void set_recording(bool on) { recording_ = on; }
  // "DEFERRED" | "IMMEDIATE" | "EXCLUSIVE" | "" (plain BEGIN).
  void set_begin_mode(std::string mode) { begin_mode_ = std::move(mode); }

  QueryResult Exec(
      const std::string& sql, SteadyTime deadline, size_t max_rows = 1,
      std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000)) override;
  bool Cancel(std::chrono::milliseconds wait = std::chrono::milliseconds(0)) override;
  void Close() override;
  int64_t session_id() const override { return id_; }
  bool healthy() const override { return db_ != nullptr; }
  bool in_transaction() const override {
    return db_ != nullptr && sqlite3_get_autocommit(db_) == 0;
  }

  const std::string& label() const { return label_; }

 private:
  static int BusyHandler(void* self, int calls);
  static int ProgressHandler(void* self);
  // Why the statement must stop now (kAcquired = it need not).
  WaitEnd StopReason() const;
  // Ends the open wait, if any, as acquired at `at`.
  void EndOpenWait(SteadyTime at);
  // Sleeps until `until`, waking early on Cancel(). False when woken by Cancel/stop.
  bool SleepUntil(SteadyTime until);
  // Tells the BusyLog the connection's transaction state when it changed; returns it.
  int PublishTxnState();

  const int64_t id_;
  const std::string label_;
  BusyLog* const log_;
  const StopFlag* const stop_;
  std::string file_;
  sqlite3* db_ = nullptr;  // written under db_mu_ (Cancel reads it there)
  long busy_timeout_ms_ = 0;
  bool recording_ = true;
  std::string begin_mode_;
  Confinement confinement_;  // the authorizer's state for db_ (owning thread)

  // State of the running Exec (owning thread, read by the handlers on the same thread).
  SteadyTime deadline_;
  const char* current_sql_ = nullptr;
  bool current_readonly_ = false;
  bool current_begin_ = false;
  int published_state_ = SQLITE_TXN_NONE;  // the last state told to the BusyLog
  bool wait_open_ = false;                 // a locking event is being waited on
  size_t wait_handle_ = 0;
  int wait_retries_ = 0;
  WaitEnd stopped_ = WaitEnd::kAcquired;  // why the handlers stopped the statement, if they did

  std::mutex db_mu_;
  std::mutex cancel_mu_;  // for cancel_cv_
  std::condition_variable cancel_cv_;
  std::atomic<bool> running_{false};
  std::atomic<bool> cancel_{false};
  StartCleanFn start_clean_;  // owning thread; set once by the engine
};

}  // namespace racelab::sqlite
