#include "harness/engines/sqlite/sqlite_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <thread>

#include "harness/engines/sqlite/error_names.h"

namespace racelab::sqlite {
namespace {

using Clock = std::chrono::steady_clock;

// The first keyword of a statement, upper-cased, after whitespace and comments.
std::string Verb(const char* sql) {
  const char* p = sql;
  for (;;) {
    while (*p != '\0' && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p[0] == '-' && p[1] == '-') {
      while (*p != '\0' && *p != '\n') ++p;
    } else if (p[0] == '/' && p[1] == '*') {
      const char* e = std::strstr(p + 2, "*/");
      p = e == nullptr ? p + std::strlen(p) : e + 2;
    } else {
      break;
    }
  }
  std::string verb;
  while (*p != '\0' && std::isalpha(static_cast<unsigned char>(*p))) {
    verb += static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
    ++p;
  }
  return verb;
}

bool MentionsBusyTimeout(const char* sql) {
  std::string s(sql);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s.find("busy_timeout") != std::string::npos;
}

std::string UpperTrimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n;");
  size_t e = s.find_last_not_of(" \t\r\n;");
  if (b == std::string::npos) return "";
  std::string out = s.substr(b, e - b + 1);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return out;
}

}  // namespace

SqliteSession::SqliteSession(int64_t id, std::string label, BusyLog* log, const StopFlag* stop)
    : id_(id), label_(std::move(label)), log_(log), stop_(stop) {}

SqliteSession::~SqliteSession() {
  Close();
  log_->Forget(id_);
}

Status SqliteSession::Open(const std::string& file) {
  Close();
  sqlite3* db = nullptr;
  int rc =
      sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::Database(fmt::format("{}: cannot open SQLite database {}: {} ({})", label_, file,
                                        msg, ErrorName(rc)));
  }
  if (Status confined = confinement_.Apply(db); !confined.ok()) {
    sqlite3_close_v2(db);
    return Status::Database(fmt::format("{}: {}", label_, confined.message()));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_handler(db, &SqliteSession::BusyHandler, this);
  sqlite3_progress_handler(db, kProgressOps, &SqliteSession::ProgressHandler, this);
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    db_ = db;
  }
  file_ = file;
  busy_timeout_ms_ = 0;
  begin_mode_.clear();
  log_->SetFile(id_, file);
  published_state_ = SQLITE_TXN_NONE;
  return Status::Ok();
}

void SqliteSession::Close() {
  std::lock_guard<std::mutex> lock(db_mu_);
  if (db_ == nullptr) return;
  sqlite3_close_v2(db_);  // rolls back an open transaction
  db_ = nullptr;
  log_->SetFile(id_, "");
  published_state_ = SQLITE_TXN_NONE;
}

WaitEnd SqliteSession::StopReason() const {
  if (cancel_.load(std::memory_order_acquire)) return WaitEnd::kCancelled;
  if (stop_ != nullptr && stop_->stop_requested()) return WaitEnd::kCancelled;
  if (Clock::now() >= deadline_) return WaitEnd::kDeadline;
  return WaitEnd::kAcquired;
}

void SqliteSession::EndOpenWait(SteadyTime at) {
  if (!wait_open_) return;
  log_->WaitEnded(wait_handle_, at, WaitEnd::kAcquired);
  wait_open_ = false;
}

bool SqliteSession::SleepUntil(SteadyTime until) {
  std::unique_lock<std::mutex> lock(cancel_mu_);
  while (Clock::now() < until) {
    if (cancel_.load() || (stop_ != nullptr && stop_->stop_requested())) return false;
    cancel_cv_.wait_until(lock, std::min(until, Clock::now() + std::chrono::milliseconds(10)));
  }
  return !(cancel_.load() || (stop_ != nullptr && stop_->stop_requested()));
}

int SqliteSession::BusyHandler(void* self, int calls) {
  auto* s = static_cast<SqliteSession*>(self);
  if (!s->running_.load()) return 0;  // not inside Exec: never wait
  if (!s->recording_) {
    // Not the scenario's wait: SQLite's schedule (below) without a record.
  } else if (calls == 0 || !s->wait_open_) {
    s->EndOpenWait(Clock::now());  // an earlier locking event of this statement got its lock
    // The state now, not at the statement's start: an autocommit write that waits at its commit for
    // readers to leave (rollback journal) already holds the write lock, and others wait for it.
    const int own = s->PublishTxnState();
    const char* need = own == SQLITE_TXN_WRITE                        ? "commit"
                       : (s->current_begin_ || !s->current_readonly_) ? "write"
                                                                      : "read";
    s->wait_handle_ =
        s->log_->WaitStarted(s->id_, s->current_sql_ != nullptr ? s->current_sql_ : "", need, own);
    s->wait_open_ = true;
    s->wait_retries_ = 0;
  }
  WaitEnd why = s->StopReason();
  if (why == WaitEnd::kAcquired) {
    // SQLite's own schedule (main.c sqliteDefaultBusyCallback), so busy_timeout means what it means
    // in SQLite: the nominal sleeps add up to at most the timeout.
    static constexpr int kDelays[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    static constexpr int kTotals[] = {0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228};
    constexpr int kN = sizeof(kDelays) / sizeof(kDelays[0]);
    long delay, prior;
    if (calls < kN) {
      delay = kDelays[calls];
      prior = kTotals[calls];
    } else {
      delay = kDelays[kN - 1];
      prior = kTotals[kN - 1] + delay * static_cast<long>(calls - (kN - 1));
    }
    if (prior + delay > s->busy_timeout_ms_) delay = s->busy_timeout_ms_ - prior;
    if (delay <= 0) {
      why = WaitEnd::kBusyTimeout;
    } else {
      SteadyTime until = std::min(Clock::now() + std::chrono::milliseconds(delay), s->deadline_);
      if (!s->SleepUntil(until)) {
        why = WaitEnd::kCancelled;
      } else if (Clock::now() >= s->deadline_) {
        why = WaitEnd::kDeadline;
      }
    }
  }
  if (why != WaitEnd::kAcquired) {
    if (s->wait_open_) s->log_->WaitEnded(s->wait_handle_, Clock::now(), why);
    s->wait_open_ = false;
    if (why != WaitEnd::kBusyTimeout) s->stopped_ = why;
    return 0;  // SQLITE_BUSY
  }
  s->wait_retries_ = calls + 1;
  if (s->wait_open_) s->log_->Retried(s->wait_handle_, s->wait_retries_, s->PublishTxnState());
  return 1;  // try again
}

int SqliteSession::ProgressHandler(void* self) {
  auto* s = static_cast<SqliteSession*>(self);
  if (!s->running_.load()) return 0;
  s->EndOpenWait(Clock::now());  // the statement runs again: its lock was taken
  // A running statement's lock, as soon as it has one (a write: SQLITE_TXN_WRITE, a read: READ), so
  // that others' waits name this session while an autocommit statement holds the lock. Checked only
  // until that state is published: the state does not go down while a statement runs.
  if (s->published_state_ < (s->current_readonly_ ? SQLITE_TXN_READ : SQLITE_TXN_WRITE)) {
    s->PublishTxnState();
  }
  WaitEnd why = s->StopReason();
  if (why == WaitEnd::kAcquired) return 0;
  s->stopped_ = why;
  return 1;  // SQLITE_INTERRUPT
}

int SqliteSession::PublishTxnState() {
  if (db_ == nullptr) return SQLITE_TXN_NONE;
  // sqlite3_txn_state only reads the connection's state (c3ref/txn_state.html); from the progress
  // and busy handlers it runs on the thread that holds the connection's (recursive) mutex.
  const int state = sqlite3_txn_state(db_, "main");
  if (state != published_state_) {
    published_state_ = state;
    log_->SetTxnState(id_, state);
  }
  return state;
}

QueryResult SqliteSession::Exec(const std::string& sql_in, SteadyTime deadline, size_t max_rows,
                                std::chrono::milliseconds cancel_grace) {
  QueryResult r;
  if (db_ == nullptr) {
    r.error_code = "SQLITE_MISUSE";
    r.sqlstate = kSqlstateGeneralError;
    r.message = "the session has no open database";
    r.connection_lost = true;
    return r;
  }
  std::string sql = sql_in;
  if (!begin_mode_.empty() && UpperTrimmed(sql_in) == "BEGIN") sql = "BEGIN " + begin_mode_;
  deadline_ = deadline;
  stopped_ = WaitEnd::kAcquired;
  confinement_.Clear();
  cancel_.store(false);
  running_.store(true);
  const char* p = sql.c_str();
  const char* end = p + sql.size();
  auto fail = [&](int rc) {
    r.error_code = ErrorName(rc);
    // SQLite has no SQLSTATE: HY000, "general error" (SQL/CLI, as MariaDB reports its own errors),
    // which claims nothing about the kind; the kind is error_code (docs/sqlite.md "Errors").
    r.sqlstate = kSqlstateGeneralError;
    r.message = sqlite3_errmsg(db_);
    // A denial fails the statement with SQLITE_AUTH (a denied function: SQLITE_ERROR, "not
    // authorized to use function"): either way the message says what racelab denied.
    if (!confinement_.denied().empty()) {
      r.message += " (" + DeniedText(confinement_.denied()) + ")";
    }
    // sqlite3_interrupt() is also seen by SQLite's own checks, before the progress handler's.
    if (stopped_ == WaitEnd::kAcquired && (rc & 0xff) == SQLITE_INTERRUPT && cancel_.load()) {
      stopped_ = WaitEnd::kCancelled;
    }
    if (stopped_ == WaitEnd::kDeadline || stopped_ == WaitEnd::kCancelled) {
      r.cancelled_by_deadline = true;
      const bool busy = (rc & 0xff) == SQLITE_BUSY;
      r.message += fmt::format(" (racelab {} {})",
                               busy ? "stopped waiting for the lock" : "interrupted the statement",
                               stopped_ == WaitEnd::kDeadline ? "at the statement deadline"
                                                              : "on a cancel or stop request");
    }
  };
  while (p < end && r.ok()) {
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db_, p, static_cast<int>(end - p), &st, &tail);
    if (rc != SQLITE_OK) {
      fail(rc);
      break;
    }
    p = tail;
    if (st == nullptr) continue;  // only whitespace or a comment
    current_sql_ = sqlite3_sql(st);
    current_readonly_ = sqlite3_stmt_readonly(st) != 0;
    const std::string verb = Verb(current_sql_);
    current_begin_ = verb == "BEGIN";
    const int ncol = sqlite3_column_count(st);
    long nrows = 0;
    std::vector<std::vector<std::optional<std::string>>> values;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (values.size() < max_rows) {
        std::vector<std::optional<std::string>> row;
        for (int c = 0; c < ncol; ++c) {
          const unsigned char* v = sqlite3_column_text(st, c);
          if (v == nullptr) {
            row.emplace_back(std::nullopt);
          } else {
            row.emplace_back(std::string(reinterpret_cast<const char*>(v),
                                         static_cast<size_t>(sqlite3_column_bytes(st, c))));
          }
        }
        values.push_back(std::move(row));
      }
      ++nrows;
    }
    EndOpenWait(Clock::now());
    if (rc != SQLITE_DONE) {
      fail(rc);
    } else {
      r.command_tag = verb;
      if (ncol > 0) {
        r.rows = nrows;
        r.columns.clear();
        for (int c = 0; c < ncol; ++c) r.columns.emplace_back(sqlite3_column_name(st, c));
        r.values = std::move(values);
      } else if (verb == "INSERT" || verb == "UPDATE" || verb == "DELETE" || verb == "REPLACE" ||
                 (verb == "WITH" && !current_readonly_)) {
        r.rows = static_cast<long>(sqlite3_changes64(db_));
      } else {
        r.rows = -1;
      }
    }
    const bool resync = MentionsBusyTimeout(current_sql_);
    current_sql_ = nullptr;
    sqlite3_finalize(st);
    PublishTxnState();
    if (resync) {
      // PRAGMA busy_timeout installs SQLite's own handler (c3ref/busy_handler.html): keep the
      // value, put racelab's handler back so that waits stay observed.
      sqlite3_stmt* q = nullptr;
      if (sqlite3_prepare_v2(db_, "PRAGMA busy_timeout", -1, &q, nullptr) == SQLITE_OK &&
          sqlite3_step(q) == SQLITE_ROW) {
        busy_timeout_ms_ = sqlite3_column_int64(q, 0);
      }
      sqlite3_finalize(q);
      sqlite3_busy_handler(db_, &SqliteSession::BusyHandler, this);
    }
  }
  running_.store(false);
  PublishTxnState();
  return r;
}

bool SqliteSession::Cancel(std::chrono::milliseconds wait) {
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    if (db_ == nullptr) return false;
    if (!running_.load()) return true;
    cancel_.store(true, std::memory_order_release);
    sqlite3_interrupt(db_);
  }
  {
    std::lock_guard<std::mutex> lock(cancel_mu_);
    cancel_cv_.notify_all();
  }
  const SteadyTime until = Clock::now() + wait;
  while (running_.load() && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return !running_.load();
}

}  // namespace racelab::sqlite
