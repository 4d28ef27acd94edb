// Session: one connection of one engine, with a deadline on every wait (docs/architecture.md
// "The engine interface").
//
// A Session is what a worker, the control side and the monitor talk through; the runner never sees
// the client library under it (libpq, MariaDB Connector/C, SQLite). Errors are data: a QueryResult
// carries the SQLSTATE (or the engine's nearest equivalent), the engine's own error name or number
// and the primary message.
// Thread-safety: one thread uses a Session at a time; Cancel() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/connection_id.h"
#include "harness/model/status.h"

namespace racelab {

using SteadyTime = std::chrono::steady_clock::time_point;

// SQLSTATE racelab records when the connection is lost without a server error
// (class 08, connection_failure; PostgreSQL docs Appendix A, SQL standard).
inline constexpr const char* kSqlstateConnectionFailure = "08006";
// SQLSTATE racelab records when it refuses a statement it cannot serve, e.g. COPY FROM STDIN
// (class 0A, feature_not_supported; SQL standard).
inline constexpr const char* kSqlstateNotSupported = "0A000";

struct QueryResult {
  bool ok() const { return sqlstate.empty() && error_code.empty(); }
  long rows = -1;           // rows returned, else affected rows, else -1
  std::string command_tag;  // e.g. "COMMIT", "ROLLBACK" (PostgreSQL's tag; others: the verb)
  std::vector<std::string> columns;  // of the last result that returned rows
  // Its first rows, at most Exec's `max_rows` (nullopt = SQL NULL).
  std::vector<std::vector<std::optional<std::string>>> values;
  std::string sqlstate;  // empty on success; the SQL-standard code when the engine has one
  // The engine's own name or number of the error, empty on success or when the SQLSTATE is all
  // there is (PostgreSQL): "1213" (MariaDB ER_LOCK_DEADLOCK), "SQLITE_BUSY_SNAPSHOT" (SQLite
  // extended code).
  std::string error_code;
  std::string message;  // primary message
  // The error's DETAIL, empty when none: PostgreSQL's PG_DIAG_MESSAGE_DETAIL (libpq docs,
  // PQresultErrorField); MariaDB and SQLite send none.
  std::string detail;
  bool cancelled_by_deadline = false;  // racelab cancelled the statement after the deadline/stop
  bool connection_lost = false;
  // Run-queue delay of the calling thread during Exec, µs, -1 if unknown (harness/eval/lateness.h).
  int64_t client_late_us = -1;
  // racelab refused the statement (e.g. COPY FROM STDIN): a fault of the SQL given, not of the
  // server.
  bool refused = false;
};

// How one session starts each trial (Session::StartClean; the PostgreSQL engine: ROLLBACK, DISCARD
// ALL, search_path, settings — harness/engines/postgresql/session_reset.h). No node: the session is
// on the node it was opened on (Engine::OpenSession).
struct SessionStart {
  std::string label;      // the session's label, for errors ("worker.2")
  std::string workspace;  // the item's workspace (schema / database / file)
  std::vector<std::pair<std::string, std::string>> settings;  // engine settings, in file order
};

class Session {
 public:
  virtual ~Session() = default;

  // Sends `sql` (several statements allowed where the engine allows them) and collects every
  // result. At `deadline` (or on stop) it cancels the statement and waits up to `cancel_grace`
  // more; after that the connection is closed and reported lost. So Exec returns by deadline +
  // cancel_grace (+ one poll slice), whatever the server does. The first error wins.
  virtual QueryResult Exec(
      const std::string& sql, SteadyTime deadline, size_t max_rows = 1,
      std::chrono::milliseconds cancel_grace = std::chrono::milliseconds(5000)) = 0;

  // Cancels whatever runs now (PQcancel, KILL QUERY, sqlite3_interrupt) and waits at most `wait`
  // for the server to take it; 0 does not wait. True when it was taken within `wait`. Safe from any
  // thread; no-op (false) once closed.
  virtual bool Cancel(std::chrono::milliseconds wait = std::chrono::milliseconds(0)) = 0;

  // Closes the connection now. Owning thread only.
  virtual void Close() = 0;

  // The server's id of this session: PostgreSQL backend pid, MariaDB CONNECTION_ID(); for engines
  // without one, a number racelab assigns (unique within the process). Used to name who waits on
  // whom.
  virtual int64_t session_id() const = 0;
  // The node this connection is on (one of its engine's Engine::nodes()); a single-server engine's
  // sessions are all on kServerNode.
  virtual std::string node() const { return kServerNode; }
  // (node, session_id): the connection's identity across the engine's nodes.
  ConnectionId connection_id() const { return {node(), session_id()}; }
  // The session's server process is a process of this machine whose run-queue delay can be read
  // (PostgreSQL backends of a local server); false otherwise.
  virtual bool local_backend() const { return false; }
  // Makes this session begin a trial as if it had just connected, inside `start.workspace`, with
  // the session's settings. kUsage when the scenario asks for a setting that cannot be (naming
  // `file` and start.label); kDatabase otherwise; *connection_lost (may be null) when the session
  // turned out to be gone. Thread-safety: sessions of one engine may start clean on several threads
  // at once (Engine's rules, engine.h).
  virtual Status StartClean(const SessionStart& start, SteadyTime deadline, const std::string& file,
                            bool* connection_lost) = 0;
  // StartClean in two halves, so that its round trip overlaps other work: SendStartClean sends it
  // and returns at once; false when it sent nothing (the engine cannot, or the session needs more
  // than one statement, e.g. a ROLLBACK first) — then call StartClean. FinishStartClean waits for
  // what was sent and returns what StartClean would have. Between the two nothing else may use the
  // session. PostgreSQL: session_reset.h; the others send nothing.
  virtual bool SendStartClean(const SessionStart& start, SteadyTime deadline) { return false; }
  virtual Status FinishStartClean(const SessionStart& start, SteadyTime deadline,
                                  const std::string& file, bool* connection_lost) {
    return Status::Internal("this engine sends no clean start ahead");
  }

  // Open, not lost, and not inside a failed or unknown transaction state.
  virtual bool healthy() const = 0;
  virtual bool in_transaction() const = 0;
};

}  // namespace racelab
