// Connection: one libpq connection with deadlines on every wait (STYLE.md habit 4).
//
// Every call is non-blocking underneath (PQconnectStartParams/PQconnectPoll, PQsendQuery + poll(2)):
// a wait ends at its deadline, or at a stop request, by PQcancel, then a grace period, then the
// connection is declared lost. Errors are data: a QueryResult carries the SQLSTATE and primary message.
// Thread-safety: one thread uses a Connection at a time; Cancel() may be called from any thread.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/thread/lock_guard.hpp>
#include <boost/thread/mutex.hpp>

#include "harness/model/status.h"
#include "harness/run/stop_flag.h"

namespace racelab {

using SteadyTime = std::chrono::steady_clock::time_point;

// SQLSTATE racelab records when the connection is lost without a server error
// (class 08, connection_failure; PostgreSQL docs Appendix A).
inline constexpr const char* kSqlstateConnectionFailure = "08006";

struct QueryResult {
  bool ok() const { return sqlstate.empty(); }
  long rows = -1;                        // tuples returned, else affected rows (PQcmdTuples), else -1
  std::string command_tag;               // PQcmdStatus of the last result, e.g. "COMMIT", "ROLLBACK"
  std::vector<std::string> columns;      // of the last result that returned tuples
  // Its first rows, at most Exec's `max_rows` (nullopt = SQL NULL).
  std::vector<std::vector<std::optional<std::string>>> values;
  std::string sqlstate;                  // empty on success
  std::string message;                   // primary message (PG_DIAG_MESSAGE_PRIMARY) or libpq's text
  bool cancelled_by_deadline = false;    // racelab sent a cancel request after the deadline/stop
  bool connection_lost = false;
  // Run-queue delay of the calling thread during Exec (harness/pg/run_queue_delay.h), leaving out the
  // poll(2) slices that ended without data (the stop-flag checks every kStopPollSlice): the time this
  // thread was ready to run but had no CPU on the answer's path — how late a busy machine made it. µs;
  // -1 if unknown.
  int64_t client_late_us = -1;
};

class Connection {
 public:
  // Opens a connection, waiting at most until `deadline`. `application_name` is shown in
  // pg_stat_activity. Errors: kDatabase, with the password redacted from libpq's message.
  static Result<std::unique_ptr<Connection>> Open(const std::string& conninfo,
                                                  const std::string& application_name,
                                                  SteadyTime deadline, const StopFlag* stop);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `sql` (simple query protocol; several statements allowed) and collects every result. At
  // `deadline` (or on stop) it sends a cancel request and waits up to `cancel_grace` more; after that
  // the connection is closed and reported lost. The first error wins.
  QueryResult Exec(const std::string& sql, SteadyTime deadline, size_t max_rows = 1,
                   std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000));

  // Sends a cancel request for whatever runs now. Safe from any thread; no-op once closed.
  void Cancel();

  // Closes the socket now (the server ends the backend). Safe from the owning thread only.
  void Close();

  // The SCRAM-SHA-256 verifier of `password` for role `user` (PQencryptPasswordConn), so that
  // CREATE/ALTER ROLE … PASSWORD neither sends nor logs the password itself. Empty on failure.
  std::string EncryptPassword(const std::string& password, const std::string& user);

  int backend_pid() const { return backend_pid_; }
  // The backend is a process of this machine (run_queue_delay.h IsLocalBackend): its run-queue delay
  // can be read. Fixed when the connection opens.
  bool local_backend() const { return local_backend_; }
  // Open, not lost, and not inside a failed or unknown transaction state.
  bool healthy() const;
  bool in_transaction() const;

 private:
  Connection(PGconn* conn, const StopFlag* stop);
  bool WaitSocket(bool for_write, SteadyTime until, const StopFlag* stop);

  PGconn* conn_ = nullptr;
  const StopFlag* stop_ = nullptr;
  int backend_pid_ = 0;
  bool local_backend_ = false;
  int64_t idle_poll_delay_us_ = 0;  // run-queue delay in poll slices that timed out (owning thread)
  boost::mutex cancel_mu_;
  PGcancel* cancel_ = nullptr;  // guarded by cancel_mu_
};

// Quotes an identifier for SQL (PostgreSQL docs §4.1.1): "a""b".
std::string QuoteIdent(const std::string& name);

}  // namespace racelab
