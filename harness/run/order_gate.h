// OrderGates: the hand-overs of an ordered scenario (`order:`, docs/scenario-format.md "Ordered steps
// and permutations") — isolationtester's rule in the normal runner: the next step of a permutation
// starts once the step before it is done or its session is seen waiting.
//
// The planner marks, in each session's planned steps, where a step of another session must come first
// (PlannedStep::await_handover) and which step ends a hand-over (PlannedStep::signal_handover). Per
// trial the runner makes one gate per hand-over (PlanItem::handovers). The step before a hand-over marks
// it started when it begins and done when it ends (run, skipped or failed); the step after it waits
// until it is done, or started and its session seen waiting by the engine's WaitMonitor (a lock wait;
// on PostgreSQL also a DEFERRABLE transaction waiting for a safe snapshot) by a poll that began after
// it started.
// Every wait has a deadline (the step's timeout_ms, else the run's statement deadline, never past the
// trial's); Abandon() wakes every waiter.
// Thread-safety: every member is safe from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/stop_flag.h"

namespace racelab {

class OrderGates {
 public:
  explicit OrderGates(size_t count) : gates_(count) {}

  // The step before hand-over `i` begins (before it sends anything) / has ended.
  void Started(int i);
  void Done(int i);
  // Wakes every waiter; their AwaitHandover answers kAbandoned.
  void Abandon();

  enum class Result {
    kDone,       // the step before it ended
    kWaiting,    // it started, and its session was seen waiting
    kTimedOut,   // neither by `deadline`
    kAbandoned,  // the trial was abandoned or racelab was stopped
    kMonitorFailed,  // the wait monitor failed (monitor->error())
  };
  // Waits until hand-over `i` is done, or started with `session_id` (the session of the step before
  // it) seen waiting by `monitor`.
  Result AwaitHandover(int i, int64_t session_id, WaitMonitor* monitor, SteadyTime deadline,
                       const StopFlag* stop);

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
