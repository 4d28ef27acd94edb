// BusyLog: what every SQLite session's busy handler saw, shared by the sessions, the wait monitor
// and the wait log of one SqliteEngine (docs/sqlite.md "Waits").
//
// SQLite has no lock table to poll. When a connection finds the database locked it calls its busy
// handler, once per retry, with the number of earlier calls for the same locking event (SQLite
// docs c3ref/busy_handler.html); when the handler returns 0 the statement fails with SQLITE_BUSY,
// when it returns non-zero SQLite tries again. racelab installs its own handler
// (sqlite_session.h), so every wait is seen exactly: its first call (the wait began), each retry,
// and its end — the handler gave up (busy_timeout spent, statement deadline, cancel) or the
// statement went on (the lock was taken: the next progress-handler call or the statement's end,
// whichever comes first).
//
// SQLite does not call the handler at all when waiting could deadlock (a read transaction asking
// to write while another connection holds the write lock): that SQLITE_BUSY comes back at once and
// is no wait here.
//
// Holders are inferred, not reported by SQLite: the other sessions on the same database file that
// are in a write transaction (sqlite3_txn_state() == SQLITE_TXN_WRITE), or, for a session that
// already writes (a COMMIT waiting for readers to leave in rollback-journal mode, an autocommit
// statement at its commit), those in any transaction. Each session publishes its state after every
// statement and while a statement runs (from its progress and busy handlers, on its own thread), so
// an autocommit statement that holds the write lock is named too, not only an open transaction. The
// holders of a wait are the union over its busy-handler calls: whoever held the lock at some call.
//
// Live: a sink (AddSink) is handed each busy-handler call as it is recorded, on the waiting
// session's own thread inside its busy handler, one call at a time in record order, and before the
// call wakes AwaitSightings. The published states also answer LockStates() (the lock view,
// sqlite_locks.h): sampled on each session's own thread, read here under the mutex, so no thread
// touches another's connection (each is opened SQLITE_OPEN_FULLMUTEX, and a connection in its busy
// handler holds its mutex: a call from another thread would wait until the wait ends).
// Thread-safety: every member is safe from any thread. A sink is called outside mu_: it may call
// any member but WaitStarted, Retried, AddSink and RemoveSink.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace racelab::sqlite {

using SteadyTime = std::chrono::steady_clock::time_point;

// Why a wait ended.
enum class WaitEnd { kAcquired, kBusyTimeout, kDeadline, kCancelled };
const char* WaitEndName(WaitEnd end);  // "acquired", "busy_timeout", "deadline", "cancelled"

// One locking event of one statement, from the first busy-handler call to its end.
struct BusyWait {
  int64_t session_id = 0;
  std::string statement;      // the statement that waited, as sent
  std::string need;           // what it waited for: "read", "write" or "commit"
  SteadyTime start;           // the first busy-handler call
  int64_t start_wall_us = 0;  // the same instant, µs since the Unix epoch
  SteadyTime end;             // when it ended (REQUIRES: ended)
  bool ended = false;
  WaitEnd how = WaitEnd::kAcquired;
  int retries = 0;               // times the handler let SQLite try again
  std::vector<int64_t> holders;  // inferred (see the file comment), sorted
};

// One busy-handler call: the session was waiting at `at`.
struct BusySighting {
  SteadyTime at;
  int64_t session_id = 0;
  std::string statement;
  std::vector<int64_t> holders;
};

// What one session's connection is in now, as its own thread last published it (LockStates).
struct SessionLockState {
  int64_t session_id = 0;
  std::string file;   // the database file it works on ("" = none)
  int txn_state = 0;  // sqlite3_txn_state(db, "main"): SQLITE_TXN_NONE / READ / WRITE
  // The locking event it is in its busy handler for ("read", "write", "commit"; BusyWait::need),
  // "" when it waits for nothing.
  std::string awaiting;
};

class BusyLog {
 public:
  // The session works on `file` ("" = none); called when it opens or closes its connection.
  void SetFile(int64_t session, const std::string& file);
  // The session's transaction state now (SQLITE_TXN_NONE/READ/WRITE): after each statement, and
  // while one runs once it took a lock.
  void SetTxnState(int64_t session, int state);
  // The state `session` last published (SQLITE_TXN_NONE for an unknown session).
  int TxnState(int64_t session) const;
  void Forget(int64_t session);

  // From a busy handler: a new locking event of `session` began now; returns its handle.
  // `own_state`: the session's transaction state now (it decides whom the session waits for). Both
  // this and Retried record one busy-handler call (a sighting) and hand it to the sinks before they
  // return.
  size_t WaitStarted(int64_t session, const std::string& statement, const std::string& need,
                     int own_state);
  // The handler was called again for the same event (`retries` so far); the holders now are added
  // to the wait's.
  void Retried(size_t handle, int retries, int own_state);
  // The event ended at `at`.
  void WaitEnded(size_t handle, SteadyTime at, WaitEnd how);

  // Waits that ended and were not taken yet, in start order; they are taken (and forgotten once no
  // wait is open).
  std::vector<BusyWait> TakeEnded();
  // Busy-handler calls since `since` of the given sessions (all when empty).
  std::vector<BusySighting> SightingsSince(SteadyTime since) const;
  // Forgets the busy-handler calls (a monitor's Begin).
  void ClearSightings();

  // The published state of each of `sessions` that has a connection, in the order given.
  std::vector<SessionLockState> LockStates(const std::vector<int64_t>& sessions) const;

  // Live sightings: `sink` is called with every busy-handler call recorded from now on (any
  // session), on the recording thread, until RemoveSink(key). One sink per key; `key` names it.
  using Sink = std::function<void(const BusySighting&)>;
  void AddSink(const void* key, Sink sink);
  // Removes the sink; returns once no call of it is in progress (so the sink's owner may go). Not
  // from inside a sink.
  void RemoveSink(const void* key);

  // Waits until each of `sessions` has a busy-handler call at or after `since`; false at `deadline`
  // or when `stop()` turns true (checked every 20 ms).
  template <typename StopFn>
  bool AwaitSightings(const std::vector<int64_t>& sessions, SteadyTime since, SteadyTime deadline,
                      StopFn stop) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      bool all = true;
      for (int64_t s : sessions) all = all && SeenSinceLocked(s, since);
      if (all) return true;
      if (stop()) return false;
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      cv_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(20)));
    }
  }

 private:
  struct SessionState {
    std::string file;
    int txn_state = 0;
  };
  bool SeenSinceLocked(int64_t session, SteadyTime since) const;
  // Hands `sighting` to `sinks`, then records it and wakes AwaitSightings. REQUIRES: delivery_mu_
  // held (so sightings_ has the order the sinks saw), mu_ not held.
  void Deliver(const std::vector<Sink>& sinks, BusySighting sighting);
  std::vector<int64_t> HoldersLocked(int64_t session, int own_state) const;

  // Held from recording a call until the sinks have it: one delivery at a time, in record order;
  // RemoveSink takes it to wait for a delivery in progress. Taken before mu_, never after.
  std::mutex delivery_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<const void*, Sink> sinks_;         // guarded by mu_
  std::map<int64_t, SessionState> sessions_;  // guarded by mu_
  std::vector<BusyWait> waits_;               // guarded by mu_; a handle indexes it until Clear()
  std::vector<bool> taken_;                   // guarded by mu_: waits_[i] was returned by TakeEnded
  std::vector<BusySighting> sightings_;       // guarded by mu_
};

}  // namespace racelab::sqlite
