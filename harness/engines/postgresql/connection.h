// Connection: one libpq connection with deadlines on every wait — the PostgreSQL engine's Session
// (harness/engine/session.h; docs/architecture.md "The engine interface").
//
// Every call is non-blocking underneath (PQconnectStartParams/PQconnectPoll, PQsendQuery +
// poll(2)): a wait ends at its deadline, or at a stop request, by a cancel request, then a grace
// period, then the connection is declared lost. The cancel request has a deadline too: libpq's
// PQcancel() blocks until the server answers (a stopped server never does), so it runs on a
// detached helper thread that is abandoned at the deadline (it ends when the server answers or the
// process exits; it touches only memory it owns, so it never delays exit). A server that does not
// take a cancel request within the grace is marked silent for this process: until it answers again,
// every wait on it (any Connection) lasts at most 1 s, so what follows — other statements, cleanup
// — ends in seconds, not a deadline each. Errors are data: a QueryResult carries the SQLSTATE and
// primary message.
// COPY: `COPY … TO STDOUT` is drained (its rows are counted, not kept); `COPY … FROM STDIN` is
// refused (racelab has no data to send): the statement ends with SQLSTATE 0A000 and a message
// saying so. Thread-safety: one thread uses a Connection at a time; Cancel() may be called from any
// thread.
#pragma once

#include <libpq-fe.h>

#include <boost/thread/lock_guard.hpp>
#include <boost/thread/mutex.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/session.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"

namespace racelab::pg {

class Connection : public Session {
 public:
  // Opens a connection, waiting at most until `deadline`. `application_name` is shown in
  // pg_stat_activity. Errors: kDatabase, with the password redacted from libpq's message.
  static Result<std::unique_ptr<Connection>> Open(const std::string& conninfo,
                                                  const std::string& application_name,
                                                  SteadyTime deadline, const StopFlag* stop);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `sql` (simple query protocol; several statements allowed) and collects every result. At
  // `deadline` (or on stop) it sends a cancel request and waits up to `cancel_grace` more, counted
  // from the request (delivering it included); after that the connection is closed and reported
  // lost. So Exec returns by deadline + cancel_grace (+ one poll slice), whatever the server does.
  // The first error wins.
  QueryResult Exec(
      const std::string& sql, SteadyTime deadline, size_t max_rows = 1,
      std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000)) override;

  // Exec in two halves, for a statement whose answer can wait (the runner sends a session's clean
  // start after a trial and collects it before the next): Send sends `sql` and returns at once —
  // false, sending nothing, when a transaction is open or a statement is in flight, and false with
  // the connection closed when it could not be sent (Finish or Exec then report it lost); Finish
  // collects its results as Exec does (deadline, cancel, grace; client_late_us not measured). Until
  // Finish, nothing else may use the connection (healthy() is false while the statement is in
  // flight).
  bool Send(const std::string& sql, SteadyTime deadline);
  QueryResult Finish(SteadyTime deadline, size_t max_rows = 1,
                     std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000));

  // Sends a cancel request for whatever runs now (PQcancel on a helper thread) and waits at most
  // `wait` for the server to take it; 0 (the default) does not wait. Returns true when the server
  // took the request within `wait`. While one request is in flight no other is started (a server
  // that has not taken one will not take two). Safe from any thread; no-op (false) once closed.
  bool Cancel(std::chrono::milliseconds wait = std::chrono::milliseconds(0)) override;

  // Closes the socket now (the server ends the backend). Safe from the owning thread only.
  void Close() override;

  // The SCRAM-SHA-256 verifier of `password` for role `user` (PQencryptPasswordConn), so that
  // CREATE/ALTER ROLE … PASSWORD neither sends nor logs the password itself. Empty on failure.
  std::string EncryptPassword(const std::string& password, const std::string& user);

  int backend_pid() const { return backend_pid_; }
  int64_t session_id() const override { return backend_pid_; }
  // The backend is a process of this machine (run_queue_delay.h IsLocalBackend): its run-queue
  // delay can be read. Fixed when the connection opens.
  bool local_backend() const override { return local_backend_; }
  // Starts the session clean for a trial (session_reset.h: ROLLBACK, DISCARD ALL's parts,
  // search_path, settings), whole or in two halves (Session).
  Status StartClean(const SessionStart& start, SteadyTime deadline, const std::string& file,
                    bool* connection_lost) override;
  bool SendStartClean(const SessionStart& start, SteadyTime deadline) override;
  Status FinishStartClean(const SessionStart& start, SteadyTime deadline, const std::string& file,
                          bool* connection_lost) override;
  // The sentence StartClean adds when the server refuses a setting to the scenario's role (the
  // engine's, set when it opens the session; "" when scenario SQL is not confined).
  void set_denied_setting_hint(std::string hint) { denied_setting_hint_ = std::move(hint); }
  // Open, not lost, and not inside a failed or unknown transaction state.
  bool healthy() const override;
  bool in_transaction() const override;

 private:
  // One cancel request on its helper thread; shared by the thread and its waiters.
  struct CancelCall {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;  // guarded by mu
    bool sent = false;  // guarded by mu: PQcancel succeeded
  };

  Connection(PGconn* conn, const StopFlag* stop);
  // Collects the results of the statement sent last (Exec's second half).
  // `out` as a lost connection (08006 with `why`, unless it already holds a server error that was
  // not a deadline's cancel), after closing the connection.
  QueryResult Lost(QueryResult out, const std::string& why);
  QueryResult Receive(SteadyTime deadline, size_t max_rows, std::chrono::milliseconds cancel_grace,
                      int64_t run_delay_start);
  bool WaitSocket(bool for_write, SteadyTime until, const StopFlag* stop);
  // Flushes libpq's output buffer (non-blocking mode) until `until`. False on error or deadline.
  bool Flush(SteadyTime until);
  // Ends a COPY FROM STDIN the server started: racelab has no data. False if the connection broke.
  bool RefuseCopyIn(SteadyTime until);

  PGconn* conn_ = nullptr;
  std::string server_;  // "host:port" (see SilentServers in connection.cc)
  const StopFlag* stop_ = nullptr;
  int backend_pid_ = 0;
  bool local_backend_ = false;
  std::string denied_setting_hint_;
  int64_t idle_poll_delay_us_ = 0;  // run-queue delay in poll slices that timed out (owning thread)
  boost::mutex cancel_mu_;
  std::shared_ptr<PGcancel> cancel_;       // guarded by cancel_mu_; the helper thread holds a copy
  std::shared_ptr<CancelCall> in_flight_;  // guarded by cancel_mu_
};

// Quotes an identifier for SQL (PostgreSQL docs §4.1.1): "a""b".
std::string QuoteIdent(const std::string& name);

}  // namespace racelab::pg
