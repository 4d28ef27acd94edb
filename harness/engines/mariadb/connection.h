// MariaConnection: one MariaDB/MySQL connection over MariaDB Connector/C, with a deadline on every
// wait (docs/architecture.md "The engine interface").
//
// - Every call uses Connector/C's non-blocking API (mysql_real_query_start/_cont and friends;
// MariaDB
//   Connector/C docs "Non-blocking API") driven by poll(2) in slices of kStopPollSlice, so a wait
//   ends at its deadline or on stop whatever the server does.
// - At an Exec deadline the running statement is cancelled by `KILL QUERY <id>` sent on a separate,
//   short-lived control connection (its own deadline: kControlTimeout); if the server has not
//   answered `cancel_grace` later, the socket is shut down and the connection reported lost
//   (SQLSTATE 08006).
// - Errors keep both codes: QueryResult::error_code is the MariaDB error number ("1213"), sqlstate
// the
//   server's SQLSTATE ("40001"); client errors (2013 lost connection, …) get 08006.
// - A server that does not take a cancel is marked silent (ServerSilence above).
// - Local infile is off on every connection (MYSQL_OPT_LOCAL_INFILE = 0): `LOAD DATA LOCAL INFILE`
// in
//   scenario SQL would make racelab's client read a file of racelab's machine and upload it; the
//   server answers it with error 4166 (ER_LOAD_INFILE_CAPABILITY_DISABLED, SQLSTATE HY000) instead.
// - A scenario session (set_refuse_xa) refuses SQL with an XA statement (XA START … XA PREPARE: a
//   prepared XA transaction outlives its connection and keeps its locks, and MariaDB says no owner
//   of it: docs/mariadb.md "Scenario SQL is confined") without sending it: QueryResult::refused,
//   SQLSTATE 0A000.
// - Connected with CLIENT_FOUND_ROWS (affected rows = rows matched by an UPDATE's WHERE clause, as
//   PostgreSQL counts them; MariaDB docs "mysql_affected_rows") and CLIENT_MULTI_STATEMENTS.
// Thread-safety: one thread uses a connection at a time; Cancel() may be called from any thread.
#pragma once

#include <mysql.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "harness/engine/session.h"
#include "harness/model/stop_flag.h"

namespace racelab::mariadb {

// Whether one server took racelab's last cancel (KILL QUERY on a control connection). A server that
// did not (a stopped server: SIGSTOP, a paused VM) is silent: until it answers again, every wait on
// it by any connection sharing this flag (connecting, a statement, a cancel) lasts at most
// kSilentServerWait, and a statement past its deadline is cut without a cancel, so what follows —
// the other sessions' cancels, cleanup — gives up in a second each instead of a deadline each.
// Thread-safety: any thread.
struct ServerSilence {
  std::atomic<bool> silent{false};
};

// How long any wait on a silent server lasts.
inline constexpr std::chrono::milliseconds kSilentServerWait(1000);

// Where and as whom to connect. `socket` non-empty: a Unix socket (host ignored).
struct ConnectTarget {
  std::string host;
  unsigned port = 0;
  std::string socket;
  std::string user;
  std::string password;  // never printed
  std::string database;  // "" = none
  // Shared by every connection to this server (the engine makes one per server); nullptr = not
  // tracked (each wait lasts its own deadline).
  std::shared_ptr<ServerSilence> silence;
};

// How long a KILL QUERY / KILL on the control connection may take (connect + statement).
inline constexpr std::chrono::milliseconds kControlTimeout(5000);

class MariaConnection : public Session {
 public:
  // Connects (program_name = `label`, shown in SHOW PROCESSLIST's connect attributes) by
  // `deadline`. Errors: kDatabase with the server's or client's message (never the password).
  static Result<std::unique_ptr<MariaConnection>> Open(const ConnectTarget& target,
                                                       const std::string& label,
                                                       SteadyTime deadline, const StopFlag* stop);
  ~MariaConnection() override;

  QueryResult Exec(
      const std::string& sql, SteadyTime deadline, size_t max_rows = 1,
      std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000)) override;
  bool Cancel(std::chrono::milliseconds wait = std::chrono::milliseconds(0)) override;
  void Close() override;
  int64_t session_id() const override { return id_; }
  bool healthy() const override;
  bool in_transaction() const override;

  // COM_RESET_CONNECTION (MariaDB docs "mysql_reset_connection"): rolls back, releases GET_LOCK
  // locks, drops temporary tables and prepared statements, resets session variables to their
  // global values. By `deadline`.
  QueryResult Reset(SteadyTime deadline);
  // Ends another session of the same server: `KILL QUERY id` (query_only) or `KILL id`, on a new
  // control connection, by `deadline`. Returns "" (also when the session is already gone) or the
  // error.
  static std::string Kill(const ConnectTarget& target, int64_t id, bool query_only,
                          SteadyTime deadline);

  const ConnectTarget& target() const { return target_; }
  // Scenario SQL runs here: statements with an XA keyword are refused (see above).
  void set_refuse_xa(bool refuse) { refuse_xa_ = refuse; }

  // Session::StartClean: what the engine that opened this session does to start it clean
  // (COM_RESET_CONNECTION, the workspace's grant and USE, the settings — engine.cc), set by it
  // (MariaDbEngine::OpenSession); a connection without one answers kInternal.
  using StartCleanFn = std::function<Status(MariaConnection*, const SessionStart&, SteadyTime,
                                            const std::string&, bool*)>;
  void set_start_clean(StartCleanFn fn) { start_clean_ = std::move(fn); }
  Status StartClean(const SessionStart& start, SteadyTime deadline, const std::string& file,
                    bool* connection_lost) override {
    if (!start_clean_) return Status::Internal("StartClean: not a scenario session");
    return start_clean_(this, start, deadline, file, connection_lost);
  }

 private:
  MariaConnection(ConnectTarget target, const StopFlag* stop)
      : target_(std::move(target)), stop_(stop) {}
  // Drives a non-blocking call: `status` is what *_start returned, `cont(events)` calls *_cont.
  // Waits until `deadline`; past it, cancels (once) and waits up to `grace` more, then cuts the
  // socket. Sets *cancelled when it cancelled. Returns the last status (0: the call completed).
  template <class Cont>
  int Drive(int status, Cont cont, SteadyTime deadline, std::chrono::milliseconds grace,
            bool* cancelled);
  void FillError(QueryResult* r);

  ConnectTarget target_;
  const StopFlag* stop_;
  MYSQL* mysql_ = nullptr;
  int64_t id_ = 0;
  std::atomic<bool> open_{false};
  bool lost_ = false;
  // The transaction was rolled back by the server (deadlock victim) since the last BEGIN: a COMMIT
  // then commits nothing, and its command_tag is "ROLLBACK" (as PostgreSQL says it).
  bool rolled_back_ = false;
  bool refuse_xa_ = false;
  StartCleanFn start_clean_;
};

// Whether `sql` holds the keyword XA outside string literals, quoted identifiers and comments (the
// contents of a MariaDB executable comment, `/*! … */` and `/*M! … */`, count as SQL). Exposed for
// tests.
bool HasXaStatement(const std::string& sql);

}  // namespace racelab::mariadb
