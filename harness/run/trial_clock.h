// TrialClock: a trial's deadline, which a step gate may pause (docs/architecture.md "A trial inside
// the runner").
//
// Two kinds of waiting happen in a trial, and they have different deadlines:
//  - the race's own waits (a statement, a lock wait, a barrier, an ordered hand-over): each has its
//    own deadline (the step's timeout_ms, else the run's statement deadline) and none may pass the
//    trial's deadline; a wait past its deadline is "a statement has run too long";
//  - a step gate holding a step on purpose (an instructor's key press, a user's program at a pause
//    point): the trial is *paused*. While at least one step is held this way the trial's budget
//    stops running, so a ten-minute pause never makes the trial pass its deadline; the hold itself
//    has a deadline of its own (RunOptions::gate_hold_timeout_ms), and statements already in flight
//    keep theirs.
// The deadline is origin + budget + the time paused so far; during a pause it is now + the budget
// that was left when the pause began. A wait that took its deadline before a pause began keeps it
// (barrier and statement waits take one deadline when they start). The free and ordered gates never
// pause (only the instructor's gate does, instructor_gate.h), so a trial without pauses has exactly
// the fixed deadline origin + trial_timeout_ms it always had.
// Thread-safety: every member is safe from any thread.
#pragma once

#include <chrono>
#include <mutex>

#include "harness/engine/session.h"

namespace racelab {

class TrialClock {
 public:
  TrialClock() = default;
  TrialClock(const TrialClock&) = delete;
  TrialClock& operator=(const TrialClock&) = delete;

  // Starts the trial's clock: t = 0 at `origin`, `budget` until the deadline, nothing paused.
  void Start(SteadyTime origin, std::chrono::milliseconds budget);

  SteadyTime origin() const;
  // The trial's deadline now (see above).
  SteadyTime deadline() const;
  // now + `ms`, but never past deadline().
  SteadyTime DeadlineIn(long ms) const;
  bool passed() const { return std::chrono::steady_clock::now() >= deadline(); }

  // A step gate begins / ends holding a step on purpose. Holds nest (several sessions held at
  // once): the budget runs again when the last one ends. REQUIRES: each Resume() follows a Pause().
  void Pause();
  void Resume();
  bool paused() const;
  // The time the trial has been paused so far, the current pause included.
  std::chrono::microseconds paused_for() const;

  // Pause() on construction, Resume() on destruction.
  class PauseScope {
   public:
    explicit PauseScope(TrialClock* clock) : clock_(clock) { clock_->Pause(); }
    ~PauseScope() { clock_->Resume(); }
    PauseScope(const PauseScope&) = delete;
    PauseScope& operator=(const PauseScope&) = delete;

   private:
    TrialClock* clock_;
  };

 private:
  SteadyTime DeadlineLocked(SteadyTime now) const;  // REQUIRES: mu_ is held

  mutable std::mutex mu_;
  SteadyTime origin_{};                           // guarded by mu_
  std::chrono::steady_clock::duration budget_{};  // guarded by mu_
  std::chrono::steady_clock::duration paused_{};  // ended pauses; guarded by mu_
  int holds_ = 0;                                 // pauses in progress; guarded by mu_
  SteadyTime pause_began_{};                      // when holds_ went from 0 to 1; guarded by mu_
};

}  // namespace racelab
