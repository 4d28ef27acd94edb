// Monitor: a separate connection that watches the workers' backends — who waits on a lock, on whom.
// The PostgreSQL engine's WaitMonitor (harness/engine/wait_monitor.h); session ids are backend
// pids.
//
// While a trial runs, a monitor thread (harness/engine/polled_wait_monitor.h) polls
// pg_stat_activity `poll_interval` (default 2 ms) after the end of the previous poll:
//   SELECT pid, wait_event_type, wait_event, pg_blocking_pids(pid), query FROM pg_stat_activity
//   WHERE pid = ANY(<worker pids>)
// prepared once on the connection (PREPARE racelab_poll), so a poll is not planned again each time.
// (PostgreSQL docs §28.2.3 pg_stat_activity; §9.26 pg_blocking_pids: "the process IDs of the
// sessions that are blocking the server process with the specified process ID from acquiring a
// lock"). Only lock waits (wait_event_type = 'Lock') are kept as observations. Workers call
// AwaitBlocked() to proceed only once another session is seen waiting — no guessing with sleeps —,
// AwaitEnded() to proceed once the server has ended a backend
// (idle_in_transaction_session_timeout), and Terminate() to end a backend (pg_terminate_backend)
// for crash-window scenarios. Thread-safety: Begin/End from the runner thread;
// AwaitBlocked/AwaitEnded/Terminate/error/healthy/session_id safe from any thread (the connection
// is used under conn_mu_).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/polled_wait_monitor.h"
#include "harness/engines/postgresql/connection.h"

namespace racelab::pg {

class Monitor : public PolledWaitMonitor {
 public:
  // Takes ownership of `conn` (a connection of its own, never a worker's).
  Monitor(std::unique_ptr<Connection> conn, std::chrono::microseconds poll_interval);
  ~Monitor() override;  // End()

  // pg_terminate_backend(pid, timeout) for each pid, on the monitor's connection, waiting until
  // each backend has exited (at most until `deadline`). Returns an error message, or empty.
  std::string Terminate(const std::vector<ConnectionId>& sessions, SteadyTime deadline) override;

  // Looks every few ms, on the monitor's connection, whether any of `pids` is still in
  // pg_stat_activity. A backend leaves it while exiting, after its transaction was aborted and its
  // locks released (ShutdownPostgres runs before the shared-memory exit hooks; PostgreSQL source
  // src/backend/utils/init/postinit.c, storage/ipc/ipc.c).
  EndWait AwaitEnded(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                     const StopFlag* stop) override;

  // pg_locks of the watched pids, on the monitor's connection: every heavyweight lock each holds
  // (granted) or awaits. A row lock is no pg_locks row (it lives in the tuple): a row's holder
  // shows as its transactionid lock, and its waiter as awaiting that transactionid (or a tuple
  // lock) (PostgreSQL docs §54.12 pg_locks).
  bool CanSnapshotLocks() const override { return true; }
  Result<LockSnapshot> SnapshotLocks(SteadyTime deadline) override;
  // Keeps the trial's pids and origin for SnapshotLocks, then starts polling.
  void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) override;

  // The monitor connection is open and idle (call between trials).
  bool healthy() override;

  // The monitor connection's backend pid on its node (to name it when it holds a lock someone
  // waits for).
  ConnectionId connection_id() override;

 protected:
  // One SELECT over pg_stat_activity for `pids`; only lock waits (wait_event_type = 'Lock') are
  // kept.
  PollResult Poll(const std::vector<int64_t>& pids, SteadyTime origin) override;

 private:
  std::mutex conn_mu_;
  std::unique_ptr<Connection> conn_;  // used under conn_mu_ only
  bool poll_prepared_ = false;        // racelab_poll exists on conn_ (under conn_mu_)
  std::vector<int64_t> watched_;      // this trial's pids, for SnapshotLocks (under conn_mu_)
  SteadyTime origin_{};               // this trial's t = 0 (under conn_mu_)
};

}  // namespace racelab::pg
