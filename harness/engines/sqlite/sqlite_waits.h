// SQLite's waits as the runner sees them (docs/sqlite.md "Waits"): a WaitMonitor and a
// ServerWaitLog, both reading the engine's BusyLog — there is no lock table and no server to poll.
//
// - SqliteWaitMonitor: every busy-handler call is one WaitObservation (poll_sent_us and
//   poll_received_us are the call; wait_event "busy"; blocking: the inferred holders). Live: a wait
//   listener (SetWaitListener) gets each one as the busy handler records it — at the wait's first
//   call, then at each retry (1 to 100 ms apart, SQLite's schedule) — on the waiting session's own
//   thread, inside its busy handler. AwaitBlocked returns once each session made a busy-handler
//   call after it was asked. SnapshotLocks lists each watched session's locks as its connection
//   states them (sqlite_locks.h; method "sqlite3_txn_state"). Terminate is not supported: SQLite
//   runs in this process and cannot end another connection (Capabilities::terminate = false).
// - SqliteWaitLog: each ended wait as one ServerLockWait with its exact start (start_lo_us =
//   start_hi_us) and duration; `mode` says what the statement needed the lock for ("write",
//   "read", "commit"); `wait_event` carries the busy-handler retries and how the wait ended, e.g.
//   "busy: 7 retries, acquired" (so reports and the HTML timeline show them); `object` is
//   "database main".
// Thread-safety: as the interfaces say (WaitMonitor: Begin/End on the runner thread, the rest from
// any thread); the listener is called from the sessions' threads, one call at a time, never under
// the monitor's or the log's lock, and not after End() returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/sqlite/busy_log.h"

namespace racelab::sqlite {

class SqliteWaitMonitor final : public WaitMonitor {
 public:
  explicit SqliteWaitMonitor(BusyLog* log) : log_(log) {}
  ~SqliteWaitMonitor() override;  // stops the live sightings (End)
  SqliteWaitMonitor(const SqliteWaitMonitor&) = delete;
  SqliteWaitMonitor& operator=(const SqliteWaitMonitor&) = delete;
  void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) override;
  std::vector<WaitObservation> End() override;
  bool AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                    const StopFlag* stop) override;
  std::string Terminate(const std::vector<ConnectionId>& sessions, SteadyTime deadline) override;
  // kFailed: no server ends a SQLite connection (the loader refuses await_ended on SQLite first).
  EndWait AwaitEnded(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                     const StopFlag* stop) override;
  std::string error() override { return ""; }
  bool healthy() override { return true; }
  ConnectionId connection_id() override { return {kServerNode, 0}; }
  // Called from the busy handlers of the watched sessions (see the file comment); set it before
  // Begin().
  void SetWaitListener(std::function<void(const WaitObservation&)> listener) override;
  bool CanSnapshotLocks() const override { return true; }
  // The watched sessions' locks from their published states (never fails; `deadline` is not
  // needed: nothing is asked of a connection).
  Result<LockSnapshot> SnapshotLocks(SteadyTime deadline) override;

 private:
  // A sighting from the BusyLog (a session's thread): to the listener when it is a watched one.
  void OnSighting(const BusySighting& s);
  WaitObservation ToObservation(const BusySighting& s) const;  // REQUIRES: mu_ held

  BusyLog* const log_;
  mutable std::mutex mu_;
  std::vector<int64_t> sessions_;                         // guarded by mu_; set by Begin
  SteadyTime origin_;                                     // guarded by mu_
  bool live_ = false;                                     // guarded by mu_: between Begin and End
  std::function<void(const WaitObservation&)> listener_;  // guarded by mu_
};

class SqliteWaitLog final : public ServerWaitLog {
 public:
  explicit SqliteWaitLog(BusyLog* log) : log_(log) {}
  Result<ServerWaitBatch> Collect(Session* control, SteadyTime deadline) override;

 private:
  BusyLog* const log_;
};

// One ended BusyWait as a ServerLockWait (exposed for tests).
ServerLockWait ToServerLockWait(const BusyWait& w);

}  // namespace racelab::sqlite
