// TrialContext: what the workers of one trial share — and the only thing they share besides the
// result each one fills for itself (the thread rules are written down here).
//
// Filled by: the runner before the worker threads start; read-only for workers while they run,
// except the members that say otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/model/plan.h"
#include "harness/model/stop_flag.h"
#include "harness/model/trial_result.h"
#include "harness/run/barrier.h"
#include "harness/run/faults.h"
#include "harness/run/step_gate.h"
#include "harness/run/trial_clock.h"
#include "harness/run/trial_events.h"

namespace racelab {

struct TrialContext {
  const PlanItem* item = nullptr;
  int trial = 0;      // 0-based index of the trial in its PlanItem
  SteadyTime origin;  // trial start: t = 0 µs
  // The trial's deadline: origin + trial_timeout_ms + the time its gate paused it (trial_clock.h).
  // Thread-safe.
  TrialClock clock;
  long statement_timeout_ms = 30000;  // default deadline of one statement/wait
  long trial_timeout_ms = 120000;     // origin + this = deadline
  const StopFlag* stop = nullptr;
  WaitMonitor* monitor = nullptr;  // thread-safe
  const Engine* engine = nullptr;  // only its const classification methods (thread-safe)
  std::map<std::string, std::unique_ptr<Barrier>> barriers;  // by name; Barrier is thread-safe
  // role -> the connections of its instances, (node, session id)
  std::map<std::string, std::vector<ConnectionId>> role_pids;
  // Says when each step may start (step_gate.h): FreeGate, or OrderedGate for an ordered item
  // (PlanItem::order_entries). Thread-safe; never null while workers run.
  std::unique_ptr<StepGate> gate;
  long gate_hold_timeout_ms = 0;  // RunOptions::gate_hold_timeout_ms
  // The trial's events (trial_events.h): workers publish their steps, the monitor its waits.
  // Thread-safe.
  TrialEvents* events = nullptr;
  bool lock_snapshots = false;  // publish the held and awaited locks after each step
  // racelab's control connection (ItemSession::control) for `probe` steps. It belongs to the runner
  // thread, which does not use it between starting the workers and joining them; in that time
  // workers use it only while holding `control_mutex` (one probe at a time, each with its
  // deadline).
  Session* control = nullptr;
  std::timed_mutex control_mutex;
  // Every session's connection, to cancel what they run when a worker ends the trial early
  // (Session::Cancel is safe from any thread; nothing else may be called on another's connection).
  std::vector<Session*> sessions;
  std::atomic<bool> abort{false};  // set by the runner when the trial is abandoned; workers stop
  // Exec sessions (PlannedSession::exec), by session index: RACELAB_DSN (Engine::ProgramDsn), or
  // "" with the reason in program_dsn_errors. Empty vectors when the item runs no program.
  std::vector<std::string> program_dsns;
  std::vector<std::string> program_dsn_errors;

  // Stops the trial: workers see `abort`, every barrier wakes its waiters. Safe from any thread.
  void Abandon() {
    abort = true;
    for (auto& [name, b] : barriers) b->Abort();
    if (gate) gate->Abandon();
  }

  int64_t NowUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                 origin)
        .count();
  }
  int64_t ToUs(SteadyTime t) const {
    return std::chrono::duration_cast<std::chrono::microseconds>(t - origin).count();
  }
  SteadyTime deadline() const { return clock.deadline(); }
  // now + ms, but never past the trial deadline.
  SteadyTime DeadlineIn(long ms) const { return clock.DeadlineIn(ms); }
};

// One worker's record of one barrier meeting, for the release skew.
struct BarrierMeeting {
  std::string barrier;
  int occurrence = 1;
  int64_t released_us = 0;
  int64_t next_sent_us = -1;  // when this worker started its next step; -1 if it had none
};

// What one worker hands back. Written only by its own thread; read by the runner after join.
// (Its steps' records are not here: each is published as a kStepEnded event, TrialContext::events.)
struct WorkerOutput {
  SessionResult session;
  std::vector<BarrierMeeting> meetings;
  std::string error;  // harness error (a wait that never ended, a missing capture, …)
  bool deadline_exceeded = false;
  bool scenario_error =
      false;  // a step's SQL can never run (Engine::IsScenarioError; see TrialResult)
  bool ended_trial = false;  // this worker abandoned the trial: its error is the trial's
  // Sessions this session's terminate steps ended, or its await_ended steps saw the server end.
  std::vector<internal::OwnTermination> terminated;
};

}  // namespace racelab
