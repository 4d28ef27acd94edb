// Monitor: a separate connection that watches the workers' backends — who waits on a lock, on whom.
// The PostgreSQL engine's WaitMonitor (harness/engine/wait_monitor.h); session ids are backend pids.
//
// While a trial runs, a monitor thread polls pg_stat_activity every `poll_interval` (default 2 ms):
//   SELECT pid, wait_event_type, wait_event, pg_blocking_pids(pid), query FROM pg_stat_activity
//   WHERE pid = ANY(<worker pids>)
// (PostgreSQL docs §28.2.3 pg_stat_activity; §9.26 pg_blocking_pids: "the process IDs of the sessions
// that are blocking the server process with the specified process ID from acquiring a lock").
// Only lock waits (wait_event_type = 'Lock') are kept as observations. Workers call AwaitBlocked() to
// proceed only once another session is seen waiting — no guessing with sleeps — and Terminate() to
// end a backend (pg_terminate_backend) for crash-window scenarios.
// Thread-safety: Begin/End from the runner thread; AwaitBlocked/Terminate/observations safe from any
// thread (members guarded by mu_ say so).
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/lock_guard.hpp>
#include <boost/thread/mutex.hpp>
#include <boost/thread/thread.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/engines/postgresql/connection.h"

namespace racelab::pg {

class Monitor : public WaitMonitor {
 public:
  // Takes ownership of `conn` (a connection of its own, never a worker's).
  Monitor(std::unique_ptr<Connection> conn, std::chrono::microseconds poll_interval);
  ~Monitor() override;  // End()

  // Starts polling `pids` for one trial; times are µs since `origin`. REQUIRES: not already begun.
  void Begin(std::vector<int64_t> pids, SteadyTime origin) override;
  // Stops polling and returns the lock-wait observations of the trial, in poll order.
  std::vector<WaitObservation> End() override;

  // Waits until every pid in `pids` has been seen in a lock wait by one poll that started after this
  // call. False at `deadline`, on stop, or when the monitor connection failed (see error()).
  bool AwaitBlocked(const std::vector<int64_t>& pids, SteadyTime deadline, const StopFlag* stop) override;

  // pg_terminate_backend(pid, timeout) for each pid, on the monitor's connection, waiting until each
  // backend has exited (at most until `deadline`). Returns an error message, or empty.
  std::string Terminate(const std::vector<int64_t>& pids, SteadyTime deadline) override;

  // First error of the monitor connection in this trial, empty if none.
  std::string error() override;

  // The monitor connection is open and idle (call between trials).
  bool healthy() override;

  // The monitor connection's backend pid (to name it when it holds a lock someone waits for).
  int64_t session_id() override;


 private:
  void PollLoop();  // the monitor thread

  std::unique_ptr<Connection> conn_;   // used under conn_mu_ only
  const std::chrono::microseconds interval_;
  boost::mutex conn_mu_;
  boost::mutex mu_;
  boost::condition_variable cv_;
  bool running_ = false;                        // guarded by mu_
  std::vector<int64_t> pids_;                       // guarded by mu_
  SteadyTime origin_;                           // guarded by mu_
  std::vector<WaitObservation> observations_;   // guarded by mu_
  std::map<int64_t, uint64_t> last_seen_poll_;      // pid -> poll number that saw it waiting; guarded by mu_
  uint64_t poll_number_ = 0;                    // guarded by mu_ (number of the poll in flight/last)
  std::string error_;                           // guarded by mu_
  boost::thread thread_;
};

}  // namespace racelab::pg
