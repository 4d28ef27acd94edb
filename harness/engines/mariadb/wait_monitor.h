// MariaWaitMonitor: who waits on whom in InnoDB, polled on a connection of its own
// (docs/lock-waits.md; harness/engine/wait_monitor.h).
//
// Each poll runs one query over information_schema.INNODB_TRX (every InnoDB transaction, its state
// 'LOCK WAIT' and the connection it belongs to, trx_mysql_thread_id = CONNECTION_ID()) left-joined
// with INNODB_LOCK_WAITS (requesting -> blocking transaction) and INNODB_LOCKS (the lock's type,
// RECORD or TABLE) — MariaDB docs "Information Schema INNODB_TRX / INNODB_LOCK_WAITS". A waiter
// whose blocker is not known (the wait began between the two views) is reported with no blockers.
// InnoDB serves these tables from a cache it refreshes only when nobody has read it for 100 ms
// (storage/innobase/trx/trx0i_s.cc, CACHE_MIN_IDLE_TIME_US; MariaDB docs "INNODB_TRX": "the data is
// cached … refreshed … if not read for 0.1 s"): a monitor polling faster would read the same stale
// picture forever. So polls are at least kMinPollInterval apart, whatever `poll` asks for; a wait
// shorter than that may go unseen, and another client reading those tables just as often on the
// same server delays what this monitor sees. Waits outside InnoDB (GET_LOCK, metadata locks) are
// seen in information_schema.PROCESSLIST by their state ("User lock", "Waiting for table metadata
// lock"), without blockers. Held and awaited locks (SnapshotLocks) come from
// harness/engines/mariadb/innodb_locks.h, on a connection of their own. The polling thread, its
// spacing and AwaitBlocked are harness/engine/polled_wait_monitor.h's. Thread-safety: Begin/End
// from the runner thread; AwaitBlocked/AwaitEnded/Terminate/error/healthy from any.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/polled_wait_monitor.h"
#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/innodb_locks.h"

namespace racelab::mariadb {

// The shortest time between two polls: more than InnoDB's 100 ms cache idle time.
inline constexpr std::chrono::milliseconds kMinPollInterval(120);

class MariaWaitMonitor : public PolledWaitMonitor {
 public:
  // Opens its connection by `deadline`. `poll`: the interval between polls (at least
  // kMinPollInterval).
  static Result<std::unique_ptr<MariaWaitMonitor>> Open(const ConnectTarget& target,
                                                        std::chrono::microseconds poll,
                                                        SteadyTime deadline, const StopFlag* stop);
  ~MariaWaitMonitor() override;

  std::string Terminate(const std::vector<ConnectionId>& sessions, SteadyTime deadline) override;
  // Looks every few ms, on a control connection of its own (the monitor's is the polling thread's),
  // whether any of `sessions` is still in information_schema.PROCESSLIST. A connection leaves it
  // after its transaction was rolled back (THD::cleanup before the server forgets the thread;
  // MariaDB source sql/sql_class.cc, sql/mysqld.cc unlink_thd).
  EndWait AwaitEnded(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                     const StopFlag* stop) override;
  bool healthy() override;
  ConnectionId connection_id() override { return {node(), id_}; }

  // Every lock the watched sessions hold or await (InnodbLockReader: SHOW ENGINE INNODB STATUS
  // with innodb_status_output_locks, else INNODB_LOCKS, saying so), on a connection of its own
  // opened at the first call. Safe from any thread (one look at a time).
  bool CanSnapshotLocks() const override { return true; }
  Result<LockSnapshot> SnapshotLocks(SteadyTime deadline) override;
  // Keeps the trial's session ids and origin for SnapshotLocks, then starts polling.
  void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) override;

 protected:
  // One query over INNODB_TRX / INNODB_LOCK_WAITS / INNODB_LOCKS and PROCESSLIST; every waiter on
  // the server (the base keeps the watched ones).
  PollResult Poll(const std::vector<int64_t>& sessions, SteadyTime origin) override;

 private:
  MariaWaitMonitor(ConnectTarget target, std::unique_ptr<MariaConnection> c,
                   std::chrono::microseconds poll, const StopFlag* stop)
      : PolledWaitMonitor(std::max<std::chrono::microseconds>(poll, kMinPollInterval), stop),
        target_(std::move(target)),
        conn_(std::move(c)),
        stop_(stop),
        locks_(target_) {
    id_ = conn_->session_id();
  }

  ConnectTarget target_;
  std::unique_ptr<MariaConnection> conn_;  // used by the polling thread only while it runs
  const StopFlag* stop_;
  int64_t id_ = 0;
  std::mutex locks_mu_;
  InnodbLockReader locks_;        // guarded by locks_mu_
  std::vector<int64_t> watched_;  // this trial's session ids; guarded by locks_mu_
  SteadyTime origin_{};           // this trial's t = 0; guarded by locks_mu_
};

}  // namespace racelab::mariadb
