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
// shorter than that may go unseen, and another client reading those tables just as often on the same
// server delays what this monitor sees.
// Waits outside InnoDB (GET_LOCK, metadata locks) are seen in information_schema.PROCESSLIST by their
// state ("User lock", "Waiting for table metadata lock"), without blockers.
// Thread-safety: Begin/End from the runner thread; AwaitBlocked/Terminate/error/healthy from any.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/mariadb/connection.h"

namespace racelab::mariadb {

// The shortest time between two polls: more than InnoDB's 100 ms cache idle time.
inline constexpr std::chrono::milliseconds kMinPollInterval(120);

class MariaWaitMonitor : public WaitMonitor {
 public:
  // Opens its connection by `deadline`. `poll`: the interval between polls.
  static Result<std::unique_ptr<MariaWaitMonitor>> Open(const ConnectTarget& target,
                                                        std::chrono::microseconds poll,
                                                        SteadyTime deadline, const StopFlag* stop);
  ~MariaWaitMonitor() override;

  void Begin(std::vector<int64_t> sessions, SteadyTime origin) override;
  std::vector<WaitObservation> End() override;
  bool AwaitBlocked(const std::vector<int64_t>& sessions, SteadyTime deadline,
                    const StopFlag* stop) override;
  std::string Terminate(const std::vector<int64_t>& sessions, SteadyTime deadline) override;
  std::string error() override;
  bool healthy() override;
  int64_t session_id() override { return id_; }

  // One poll now, outside a trial (tests): the waits the server shows.
  std::vector<WaitObservation> PollOnce(SteadyTime origin);

 private:
  MariaWaitMonitor(ConnectTarget target, std::unique_ptr<MariaConnection> c,
                   std::chrono::microseconds poll, const StopFlag* stop)
      : target_(std::move(target)),
        conn_(std::move(c)),
        poll_(std::max<std::chrono::microseconds>(poll, kMinPollInterval)),
        stop_(stop) {
    id_ = conn_->session_id();
  }
  void Loop();

  ConnectTarget target_;
  std::unique_ptr<MariaConnection> conn_;  // used by the poll thread only while it runs
  std::chrono::microseconds poll_;
  const StopFlag* stop_;
  int64_t id_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  bool running_ = false;
  std::vector<int64_t> sessions_;
  SteadyTime origin_;
  std::vector<WaitObservation> observations_;
  uint64_t polls_done_ = 0;
  // End of the last read of InnoDB's lock tables: the next starts kMinPollInterval (or poll_) later,
  // InnoDB counting its cache's idle time from the last read.
  SteadyTime last_read_end_{};  // completed polls; AwaitBlocked looks at those started after its call
  std::string error_;
};

}  // namespace racelab::mariadb
