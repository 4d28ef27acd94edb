// PolledWaitMonitor: the part of a WaitMonitor (wait_monitor.h) that is the same for every engine
// that sees waits by polling the server from a connection of its own — PostgreSQL's
// pg_stat_activity + pg_blocking_pids (harness/engines/postgresql/monitor.h), MariaDB's
// information_schema.INNODB_TRX / INNODB_LOCK_WAITS (harness/engines/mariadb/wait_monitor.h).
//
// Between Begin() and End() a thread of its own calls Poll() over and over, each poll starting
// `interval` after the previous one ended — across trials too, so the first poll of a trial may
// wait for the rest of the interval (MariaDB needs that: InnoDB refreshes its lock tables only
// after 100 ms unread). It keeps the waits of the watched sessions, numbers the polls, and answers
// AwaitBlocked() from the polls that started after the call. A poll's error ends the polling for
// the trial and is error(); so does a stop request (the `stop` given to the constructor, if any).
// What an engine writes: Poll() (one query, its own deadline; observations of its node(), which the
// base fills in), Terminate(), healthy(), connection_id().
// Thread-safety: Begin/End from the runner thread; AwaitBlocked/error from any thread. Poll() runs
// on the polling thread only, never twice at once. REQUIRES: a derived class calls End() in its
// destructor (the polling thread calls Poll(), which must not outlive the derived object).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/stop_flag.h"

namespace racelab {

class PolledWaitMonitor : public WaitMonitor {
 public:
  // What one poll saw: the sessions in a lock wait (any session; the monitor keeps the watched
  // ones), or an error message (then the polling stops until the next Begin).
  struct PollResult {
    std::vector<WaitObservation> waits;
    std::string error;
  };

  // `interval`: from the end of a poll to the start of the next. `stop` may be null. `node`: the
  // one node it watches (its observations' node; connections of other nodes are never seen).
  PolledWaitMonitor(std::chrono::microseconds interval, const StopFlag* stop,
                    std::string node = kServerNode);
  ~PolledWaitMonitor() override;  // End(); see REQUIRES above

  // Starts polling for `sessions`; observation times are µs since `origin`. Ends a trial still
  // running first.
  void Begin(std::vector<ConnectionId> sessions, SteadyTime origin) override;
  // Stops polling (waits for the poll in flight) and returns the trial's observations, in the order
  // of their polls.
  std::vector<WaitObservation> End() override;
  // True once each of `sessions` has been seen waiting by a poll that started after this call.
  bool AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                    const StopFlag* stop) override;
  std::string error() override;
  // Called from the polling thread after each poll, outside mu_, with that poll's observations of
  // watched sessions.
  void SetWaitListener(std::function<void(const WaitObservation&)> listener) override;

  std::chrono::microseconds interval() const { return interval_; }
  const std::string& node() const { return node_; }

 protected:
  // One look at the server: the waits it shows now, with poll_sent_us/poll_received_us measured
  // from `origin` around the query. `sessions` are the watched ones (a query may filter on them).
  virtual PollResult Poll(const std::vector<int64_t>& sessions, SteadyTime origin) = 0;
  // The ids of those of `sessions` on node(), in order (for Terminate, AwaitEnded).
  std::vector<int64_t> IdsOnNode(const std::vector<ConnectionId>& sessions) const;

 private:
  void Loop();  // the polling thread

  const std::chrono::microseconds interval_;
  const StopFlag* const stop_;
  const std::string node_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;                          // joined by End()
  bool running_ = false;                        // guarded by mu_
  std::vector<int64_t> sessions_;               // guarded by mu_
  SteadyTime origin_;                           // guarded by mu_
  std::vector<WaitObservation> observations_;   // guarded by mu_
  std::map<int64_t, uint64_t> last_seen_poll_;  // session -> number of the last poll that saw it
                                                // waiting; guarded by mu_
  uint64_t poll_number_ = 0;                    // the poll in flight or the last; guarded by mu_
  SteadyTime last_poll_end_{};                  // guarded by mu_; kept across trials
  std::string error_;                           // guarded by mu_
  std::function<void(const WaitObservation&)> listener_;  // set between trials; read by Loop
};

}  // namespace racelab
