// StepGate: decides when a session may start its next step — "may session S start step k now? wait
// until yes, or the deadline, or a stop" (docs/architecture.md "A trial inside the runner"). A
// worker asks its trial's gate before every step (AwaitTurn) and tells it when the step starts and
// ends.
//
// Implementations:
//  - FreeGate (below): every step may start at once; sessions meet only at their barriers — the
//    default run.
//  - OrderedGate (ordered_gate.h): a permutation's hand-overs (`order:`), isolationtester's rule.
//  - InstructorGate (instructor_gate.h): step mode — every statement step waits for a key press.
// A gate that waits for something outside the race (the instructor's key press; later a seeded
// random schedule, a pause point of a user's program) may hold a step for as long as it likes: it
// then holds it *on purpose* — it publishes kGateHeld/kGateReleased (trial_events.h), pauses the
// trial's clock for the time (TrialClock::PauseScope, trial_clock.h) and ends the hold by
// GateLimits::hold_deadline. A wait that is part of the race (an ordered hand-over) is no pause: it
// ends by race_deadline.
//
// Thread-safety: every member is safe from any thread (each worker calls it for its own session;
// the runner calls Abandon()).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/plan.h"
#include "harness/model/stop_flag.h"
#include "harness/run/trial_clock.h"

namespace racelab {

class TrialEvents;

// One session's next step, as a worker asks about it.
struct GateTurn {
  int session_index = 0;                    // in PlanItem::sessions
  const PlannedSession* session = nullptr;  // its plan
  size_t step_index = 0;                    // in session->steps
  const PlannedStep* step = nullptr;
  int attempt = 1;  // of the session's transaction (a retry asks again)
  // The session has failed: the step will be skipped whatever the answer, so a refusal needs no
  // explanation (no message, no extra look at the monitor).
  bool session_failed = false;
  // The session's own connection, null when it has none (an exec session). The worker owns it and
  // is blocked in AwaitTurn: a gate may run a statement on it there, on the calling thread (the
  // instructor's typed SQL, instructor_gate.h RunOnHeld), and must not keep it past AwaitTurn.
  Session* connection = nullptr;
};

// The deadlines of one AwaitTurn.
struct GateLimits {
  // A wait that is part of the race (a hand-over) ends by then: the step's timeout_ms, else the
  // run's statement deadline, never past the trial's (`race_ms` is that length, for messages).
  SteadyTime race_deadline;
  long race_ms = 0;
  // A hold on purpose (a pause) ends by then: RunOptions::gate_hold_timeout_ms from the ask.
  SteadyTime hold_deadline;
  long trial_timeout_ms = 0;    // for messages ("before the trial deadline (… ms)")
  TrialClock* clock = nullptr;  // the trial's; a gate pauses it while it holds a step on purpose
  const StopFlag* stop = nullptr;
};

struct GateAnswer {
  enum class Result {
    kGo,        // the step may start
    kTimedOut,  // a deadline came first
    kStopped,   // the trial was abandoned or racelab was stopped: the step is skipped, no error
    kFailed,    // the gate cannot tell (the wait monitor failed) or the trial cannot go on
  };
  Result result = Result::kGo;
  std::string message;  // not kGo: why, in the words of the step's record (the session's message)
  bool deadline_exceeded = false;  // the wait passed its deadline (TrialResult::deadline_exceeded)
  bool ends_trial = false;  // the worker abandons the trial now (its cause is the trial's error)
};

class StepGate {
 public:
  virtual ~StepGate() = default;
  // "free", "ordered", … (what reports and messages may call it).
  virtual std::string name() const = 0;
  // Waits until `turn` may start, or a deadline of `limits`, or Abandon() or a stop. Called before
  // every step, also by a session that has failed (its steps are then skipped).
  virtual GateAnswer AwaitTurn(const GateTurn& turn, const GateLimits& limits) = 0;
  // The step begins (before it sends anything) / has ended (run, skipped or failed).
  virtual void Started(const GateTurn& turn) = 0;
  virtual void Ended(const GateTurn& turn) = 0;
  // Wakes every waiter; their AwaitTurn answers kStopped.
  virtual void Abandon() = 0;
};

// The default run's gate: only barriers pace the sessions.
class FreeGate final : public StepGate {
 public:
  std::string name() const override { return "free"; }
  GateAnswer AwaitTurn(const GateTurn&, const GateLimits&) override { return {}; }
  void Started(const GateTurn&) override {}
  void Ended(const GateTurn&) override {}
  void Abandon() override {}
};

// What a gate of one trial may use, for the factory that makes it.
struct GateSetup {
  const PlanItem* item = nullptr;
  int trial = 0;
  // role -> the connections of its instances, (node, session id)
  const std::map<std::string, std::vector<ConnectionId>>* role_pids = nullptr;
  WaitMonitor* monitor = nullptr;  // thread-safe
  TrialEvents* events = nullptr;   // where it publishes kGateHeld/kGateReleased
  TrialClock* clock = nullptr;
  std::string workspace;  // the trial's workspace (schema / database / file name)
};

// Makes each trial's gate (RunOptions::gate); null: MakeDefaultGate.
using GateFactory = std::function<std::unique_ptr<StepGate>(const GateSetup&)>;
// An ordered item (PlanItem::order_entries) gets an OrderedGate, any other a FreeGate.
std::unique_ptr<StepGate> MakeDefaultGate(const GateSetup& setup);

}  // namespace racelab
