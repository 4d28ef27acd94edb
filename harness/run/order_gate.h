// OrderGates: the entries of an ordered scenario's permutation (`order:`, docs/scenario-format.md
// "Ordered steps and permutations") — isolationtester's rule in the normal runner: the next step of
// a permutation starts once the step before it is done or its session is seen waiting, and a
// session's step starts once its previous step is reported complete (PostgreSQL's
// src/test/isolation/README).
//
// The planner numbers the permutation's entries (PlanItem::order_entries) and marks, in each
// session's planned steps, which entry it is (PlannedStep::order_entry), which entry of another
// session must come first (await_entry) and which entries must have ended first (await_ended: the
// markers `(other)` of its session's previous entry). Per trial the runner makes one gate per
// entry. Each step marks its entry started when it begins and done when it ends (run, skipped or
// failed). A step with an await_entry waits until that entry is done, or started and — unless the
// entry is marked `(*)`, which is enough — its session seen waiting by the engine's WaitMonitor (a
// lock wait; on PostgreSQL also a DEFERRABLE transaction waiting for a safe snapshot) by a poll
// that began after it started. Every wait has a deadline (the step's timeout_ms, else the run's
// statement deadline, never past the trial's); Abandon() wakes every waiter. Thread-safety: every
// member is safe from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/plan.h"
#include "harness/model/stop_flag.h"

namespace racelab {

class OrderGates {
 public:
  explicit OrderGates(size_t count) : gates_(count) {}

  // The step of entry `i` begins (before it sends anything) / has ended.
  void Started(int i);
  void Done(int i);
  // Wakes every waiter; their waits answer kAbandoned.
  void Abandon();

  enum class Result {
    kDone,           // the entry's step ended
    kWaiting,        // it started, and its session was seen waiting (or it is marked `(*)`)
    kTimedOut,       // neither by `deadline`
    kAbandoned,      // the trial was abandoned or racelab was stopped
    kMonitorFailed,  // the wait monitor failed (monitor->error())
  };
  // Waits until entry `i` is done, or started and — when `once`, nothing more — `session_id` (the
  // session of entry `i`) seen waiting by `monitor`.
  Result AwaitHandover(int i, bool once, const ConnectionId& session_id, WaitMonitor* monitor,
                       SteadyTime deadline, const StopFlag* stop);
  // Waits until every entry in `entries` is done (kDone, kTimedOut or kAbandoned); `*late` is then
  // the first one not done.
  Result AwaitEnded(const std::vector<int>& entries, SteadyTime deadline, const StopFlag* stop,
                    int* late);

  // Why entry `i` may not have started: when it has not, the entry of its own session (`entries`
  // are the permutation's, PlanItem::order_entries) that started before it and has not ended — the
  // step its session is still in, typically waiting on a lock no earlier entry released (an order
  // that cannot go on). -1 when `i` started, or its session is in no entry.
  int StillRunningBefore(int i, const std::vector<PlannedOrderEntry>& entries);

 private:
  struct Gate {
    bool started = false;
    bool done = false;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Gate> gates_;
  bool abandoned_ = false;
};

}  // namespace racelab
