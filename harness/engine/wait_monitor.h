// WaitMonitor: sees which sessions wait on a lock and on whom, while a trial runs
// (docs/architecture.md "The engine interface", docs/lock-waits.md).
//
// Each engine observes waits its own way: PostgreSQL polls pg_stat_activity + pg_blocking_pids on a
// connection of its own; MariaDB polls information_schema.INNODB_TRX / INNODB_LOCK_WAITS; SQLite
// has no lock table and reports waits from each connection's busy handler. All of them hand the
// runner WaitObservations, which it attributes to the statement in flight
// (harness/run/lock_waits.h). Thread-safety: Begin/End from the runner thread;
// AwaitBlocked/AwaitEnded/Terminate/error/healthy from any.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/session.h"
#include "harness/model/stop_flag.h"

namespace racelab {

// One view of one session in a lock wait.
struct WaitObservation {
  int64_t poll_sent_us = 0;       // the observation started (µs since trial start)
  int64_t poll_received_us = 0;   // it ended: the wait held at some instant in between
  std::string node;               // the node the wait is on: of the waiter and of `blocking`
  int64_t session_id = 0;         // Session::session_id() of the waiter
  std::string wait_event;         // engine's name: "transactionid", "tuple", "RECORD", "busy", …
  std::vector<int64_t> blocking;  // session ids of the holders, when the engine knows them
  std::string query;  // the statement that waits, as the server shows it (may be truncated)
};

// One lock of one watched session as the server shows it: held (granted) or awaited.
struct SessionLock {
  int64_t session_id = 0;  // Session::session_id() of the holder or waiter
  std::string lock_type;   // the engine's kind: PostgreSQL pg_locks.locktype ("relation", "tuple",
                           // "transactionid", "virtualxid", "advisory", …); MariaDB "RECORD",
                           // "TABLE"; SQLite "database file" (rollback journal) or "wal-index"
  std::string mode;    // "RowExclusiveLock", "ExclusiveLock", "ShareLock", … (as the server names
                       // it); MariaDB "X record lock (not gap)", "X gap lock", "IX table lock";
                       // SQLite "SHARED", "RESERVED", "WAL_WRITE_LOCK", …
  std::string object;  // what it locks: "t" (a relation), "transaction 731", "tuple (0,1) of t";
                       // MariaDB "on db.runs PRIMARY id=1", "on db.runs"
  bool granted = false;  // held (true) or awaited (false)
};

// Every lock the watched sessions hold or await at one look (WaitMonitor::SnapshotLocks).
struct LockSnapshot {
  int64_t sent_us = 0;      // the look started (µs since trial start)
  int64_t received_us = 0;  // and ended: the locks were so at some instant in between
  std::string method;       // how the engine looked: "pg_locks", "SHOW ENGINE INNODB STATUS",
                            // "INNODB_LOCKS", "sqlite3_txn_state"
  std::string note;  // what this look cannot show, for the reader ("" when it shows every lock):
                     // "only the locks someone waits for: …"
  std::string node;  // the node the locks are on (session ids are unique per node)
  std::vector<SessionLock> locks;  // ordered by session, held before awaited
};

// What WaitMonitor::AwaitEnded saw.
struct EndWait {
  enum class Result {
    kEnded,     // every session was gone at one look
    kTimedOut,  // the deadline came first (`still_connected` of them were still there)
    kStopped,   // racelab was interrupted
    kFailed,    // the monitor could not look (`error`), or the engine has no server (SQLite)
  };
  Result result = Result::kFailed;
  // kEnded: when the last look that still saw one of them connected was sent — the server ended the
  // last one after that instant; nullopt when the first look found them all gone.
  std::optional<SteadyTime> last_seen_connected;
  size_t still_connected = 0;  // kTimedOut: at the last look
  std::string error;           // kFailed
};

class WaitMonitor {
 public:
  virtual ~WaitMonitor() = default;

  // Starts watching `sessions` for one trial; times are µs since `origin`. Connections are named by
  // (node, id) (Session::connection_id()); a monitor sees the nodes its engine has.
  virtual void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) = 0;
  // Stops watching and returns the trial's observations, in time order.
  virtual std::vector<WaitObservation> End() = 0;

  // Waits until every session in `sessions` has been seen waiting on a lock by an observation that
  // started after this call. False at `deadline`, on stop, or when the monitor failed (error()).
  virtual bool AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                            const StopFlag* stop) = 0;

  // Waits until none of `sessions` is connected to the server any more — the server ended each one
  // (PostgreSQL: its pid is gone from pg_stat_activity, MariaDB: its id from PROCESSLIST; an ended
  // session's transaction was rolled back and its locks released before that) — looking every few
  // ms until `deadline` or a stop. Does not end anything itself (that is Terminate).
  virtual EndWait AwaitEnded(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                             const StopFlag* stop) = 0;

  // Ends each session from the server side and waits (until `deadline`) until it is gone. Returns
  // an error message, or "". Engines without Capabilities::terminate return a message saying so.
  virtual std::string Terminate(const std::vector<ConnectionId>& sessions, SteadyTime deadline) = 0;

  // First error of the monitor in this trial, "" if none.
  virtual std::string error() = 0;
  // The monitor is ready for the next trial (call between trials).
  virtual bool healthy() = 0;
  // The monitor's own connection (to name it when it holds a lock someone waits for); id 0 when it
  // has none.
  virtual ConnectionId connection_id() = 0;

  // Live waits: `listener` is called with each observation of a watched session as the monitor
  // makes it (the same ones End() returns, in the same order), one call at a time and never under
  // the monitor's lock, until End() — from the monitor's polling thread (PostgreSQL, MariaDB) or
  // from the waiting session's own thread inside its busy handler (SQLite: at the wait's first
  // busy-handler call and each retry). Set it before Begin(); an empty function removes it. The
  // listener must be quick (SQLite: it delays the waiter's retry) and must not call End().
  // Default: the engine has no live view.
  virtual void SetWaitListener(std::function<void(const WaitObservation&)> listener) {}
  // Held and awaited locks: every lock the watched sessions hold or wait for now, at most until
  // `deadline`. Only engines with CanSnapshotLocks() (PostgreSQL: pg_locks; MariaDB: SHOW ENGINE
  // INNODB STATUS with innodb_status_output_locks, else INNODB_LOCKS; SQLite: each connection's
  // sqlite3_txn_state and busy handler, harness/engines/sqlite/sqlite_locks.h); the others answer
  // kInternal. Errors: kDatabase. Safe from any thread.
  virtual bool CanSnapshotLocks() const { return false; }
  virtual Result<LockSnapshot> SnapshotLocks(SteadyTime deadline) {
    return Status::Internal("this engine's wait monitor cannot list held locks");
  }
};

// One wait as the server itself recorded it (PostgreSQL: log_lock_waits in jsonlog,
// docs/lock-waits.md). Times are µs since the Unix epoch on the server's clock.
struct ServerLockWait {
  int64_t session_id = 0;
  std::string mode;        // "ShareLock", … (as the server names it)
  std::string object;      // "transaction 725", … (as logged)
  std::string wait_event;  // the monitor's name for the lock type: "transactionid", "relation", …
  std::string statement;   // the statement the session was running ("" if not logged)
  int64_t start_lo_us = 0;  // the wait started in [start_lo_us, start_hi_us]
  int64_t start_hi_us = 0;
  std::optional<int64_t> duration_us;  // the server's figure when it logged the end of the wait
  bool deadlock = false;               // ended by deadlock detection (this session is the victim)
  std::vector<int64_t> holders;        // session ids holding the lock, unique
};

struct ServerWaitBatch {
  std::string node;  // whose record it is: the session ids below are of this node
  std::vector<ServerLockWait> waits;
  std::map<int64_t, std::string>
      session_kinds;  // session id -> the server's kind of it, e.g. "autovacuum worker"
};

// The server's record of waits, read after each trial. Thread-safety: the runner's thread only.
class ServerWaitLog {
 public:
  virtual ~ServerWaitLog() = default;
  // Everything recorded up to now, waiting at most until `deadline`; `control` is a session the log
  // may use to mark "now" in the record. Errors: kDatabase / kInternal.
  virtual Result<ServerWaitBatch> Collect(Session* control, SteadyTime deadline) = 0;
};

}  // namespace racelab
