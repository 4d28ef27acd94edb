// TrialEvents: one trial as a stream of events, as it happens (docs/architecture.md "A trial inside
// the runner"). Workers publish each step's start and end, the wait monitor each wait it sees
// (live, from its polling thread, not only at the trial's end), the step gate what it holds, and —
// when asked (RunOptions::lock_snapshots) — the locks every session holds and awaits after each
// step. Subscribers (tests, and later the step view, the web page, the history recorder) see every
// event as it is published; the runner's record of the trial's steps is the stream folded
// (FoldSteps): no other code writes TrialResult::events.
//
// Thread-safety: Publish and Subscribe from any thread. Subscribers are called on the publishing
// thread, one event at a time and in publish order (the stream's delivery lock is held: a
// subscriber must be quick — it delays the worker that published — and must not publish or
// subscribe itself). Events of one session are published by its worker in the order they happened.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/wait_monitor.h"
#include "harness/model/trial_result.h"

namespace racelab {

struct TrialEvent {
  enum class Kind {
    kTrialStarted,  // the workers are about to start (at_us 0); `trial` says which
    kStepStarted,   // a session begins a step (after its gate let it): session, step, attempt
    kWaiting,       // the wait monitor saw a session in a lock wait: `wait` (session_id = its id)
    kLockSnapshot,  // held and awaited locks of every session after a step: `locks`
    kGateHeld,      // the step gate holds session/step on purpose: the trial is paused
    kGateReleased,  // … and lets it go
    // An exec session's program (docs/race-your-own-code.md): it reached a pause point (`step`
    // is the point's name) and waits there; racelab let it go on; it ended (`message`: how).
    kPauseReached,
    kPauseReleased,
    kProgramEnded,
    kStepEnded,   // a session's step ended: `ended` is its record (the runner's StepEvent)
    kTrialEnded,  // the workers were joined
  };
  Kind kind = Kind::kStepStarted;
  int64_t at_us = 0;                    // µs since the trial's start, when it was published
  int trial = 0;                        // 0-based index of the trial in its item
  int session_index = -1;               // index in PlanItem::sessions; -1 for events of no session
  std::string session;                  // its label ("worker.2"), "" for events of no session
  std::string step;                     // the step's name, "" when none
  int attempt = 1;                      // of the step's transaction (retries)
  std::optional<StepEvent> ended;       // kStepEnded
  std::optional<WaitObservation> wait;  // kWaiting
  std::optional<LockSnapshot> locks;    // kLockSnapshot (nullopt when the look failed: `message`)
  std::string message;  // kLockSnapshot: why there is no snapshot; kProgramEnded: how; else ""
};

class TrialEvents {
 public:
  using Subscriber = std::function<void(const TrialEvent&)>;

  // Adds a subscriber; it sees the events published from now on.
  void Subscribe(Subscriber s);
  // Records `e` and hands it to every subscriber.
  void Publish(TrialEvent e);
  // Every event so far, in publish order.
  std::vector<TrialEvent> events() const;

 private:
  mutable std::mutex mu_;
  std::vector<Subscriber> subscribers_;  // guarded by mu_
  std::vector<TrialEvent> events_;       // guarded by mu_
};

// The trial's step record folded from its events: the kStepEnded events' StepEvents, ordered by
// when they were sent (sent_us), ties by session index, then in each session's own order — the
// order TrialResult::events has always had.
std::vector<StepEvent> FoldSteps(const std::vector<TrialEvent>& events);

// Human words for a kind ("step started", …), for messages and test output.
const char* TrialEventKindName(TrialEvent::Kind kind);

}  // namespace racelab
