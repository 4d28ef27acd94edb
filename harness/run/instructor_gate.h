// InstructorGate: the step gate of step mode (`racelab step`, docs/step.md) — every statement step
// waits at the gate until a controller (a key press) releases it. It holds *on purpose*: while a
// step is held it publishes kGateHeld (and kGateReleased when it goes), pauses the trial's clock
// (TrialClock::PauseScope) and ends the hold by GateLimits::hold_deadline
// (RunOptions::gate_hold_timeout_ms).
//
// Which steps are held: with an order, the steps it lists (the others go at once, as in a run);
// without one, every step that is not one of the scenario's own waits — BEGIN, SQL,
// COMMIT, ROLLBACK, probe, terminate are held; barrier, sleep_ms, await_blocked and await_ended
// (StepKindInfo::is_wait) go at once: they pace a free run, and in step mode they still happen as
// the scenario wrote them (a's await_blocked: b waits until the monitor has seen b wait).
//
// What Next() releases — "the next step of the order":
//  - with an order (an ordered scenario's permutation, or one given with --permutation): its
//    entries in turn; an entry whose session is not at the gate yet is released as soon as it
//    arrives there; entries already run out of turn (NextOf) are passed over;
//  - without one, or once the order is used up (the default order): the step of the first session,
//    in the scenario's file order, held at the gate now; when none is held, the first step to
//    arrive there.
// NextOf(s) releases session s's held step, or its next one to arrive.
//
// Typed SQL (RunOnHeld, docs/step.md ":a"): a statement the teacher types for session s runs on s's
// own connection, inside its transaction, on s's worker thread while s's step is held here (the
// worker owns the connection then: GateTurn::connection). One per session at a time; its deadline
// is the statement's; CancelTyped cancels it (Session::Cancel). A release that comes while it runs
// lets the step go once it has ended.
//
// Thread-safety: every member is safe from any thread (workers call the StepGate members for their
// own sessions, the controller the others). Events are published outside the gate's lock, so a
// subscriber of the trial's stream may call the const members (NextInOrder, held) — never Next.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/session.h"
#include "harness/model/status.h"
#include "harness/run/step_gate.h"
#include "harness/run/trial_events.h"

namespace racelab {

// One step of an instructor's order: the session (index in PlanItem::sessions) and its step (index
// in PlannedSession::steps).
struct InstructorStep {
  int session_index = 0;
  size_t step_index = 0;
  bool operator<(const InstructorStep& o) const {
    return std::pair(session_index, step_index) < std::pair(o.session_index, o.step_index);
  }
  bool operator==(const InstructorStep& o) const = default;
};

// A statement typed for a held session (InstructorGate::RunOnHeld).
struct TypedStatement {
  std::string sql;
  SteadyTime deadline;  // Session::Exec's: cancelled then, returned by deadline + cancel_grace
  size_t max_rows = 1;  // rows kept of its result
  // Called once with the result, on the session's worker thread, outside the gate's lock — also
  // when it did not run (the walk was abandoned first: QueryResult::refused, with a message).
  std::function<void(const QueryResult&)> done;
};

class InstructorGate final : public StepGate {
 public:
  // `order`: what Next() releases in turn (empty: the default order). REQUIRES: setup.item,
  // setup.events and setup.clock outlive the gate; every entry names a held step of the item.
  InstructorGate(const GateSetup& setup, std::vector<InstructorStep> order);

  // The item's ordered steps (PlanItem::order_entries) as an instructor's order; empty when the
  // item is not ordered.
  static std::vector<InstructorStep> OrderOf(const PlanItem& item);
  // Whether the instructor gate holds `step` (see above).
  static bool Holds(const PlannedStep& step);

  std::string name() const override { return "instructor"; }
  GateAnswer AwaitTurn(const GateTurn& turn, const GateLimits& limits) override;
  void Started(const GateTurn& turn) override;
  void Ended(const GateTurn&) override {}
  void Abandon() override;

  // The controller. Next(): releases the next step of the order (see above); returns the session
  // it releases, or nullopt when it only granted the next step to arrive. NextOf(): releases
  // session `session_index`'s held step or its next one.
  std::optional<int> Next();
  void NextOf(int session_index);

  // The session whose step Next() would release now, or nullopt when none is known (nothing held
  // and no order left).
  std::optional<int> NextInOrder() const;
  // The steps held at the gate now, by session.
  std::vector<InstructorStep> held() const;

  // Runs `statement` on session `session_index`'s connection while its step is held (see above).
  // kUsage when that session is not held at the gate now (it runs, waits on a lock, is done), has
  // no connection, or runs a typed statement already.
  Status RunOnHeld(int session_index, TypedStatement statement);
  // Cancels session `session_index`'s typed statement when one runs; false when none does.
  bool CancelTyped(int session_index);

 private:
  // REQUIRES: mu_ is held.
  std::optional<InstructorStep> NextEntryLocked() const;
  std::optional<int> FirstHeldLocked() const;
  bool ReleasedLocked(const InstructorStep& s);  // consumes the grant that lets `s` go
  // Runs session's queued typed statement on `conn` with *lock released for the time.
  void RunTypedLocked(int session, Session* conn, std::unique_lock<std::mutex>* lock);
  TrialEvent EventOf(TrialEvent::Kind kind, const GateTurn& turn) const;

  const PlanItem& item_;
  const int trial_;
  TrialEvents* const events_;
  TrialClock* const clock_;
  const std::vector<InstructorStep> order_;
  const std::set<InstructorStep> in_order_;  // order_'s steps

  mutable std::mutex mu_;
  std::condition_variable cv_;
  size_t cursor_ = 0;                      // next entry of order_; guarded by mu_
  std::set<InstructorStep> started_;       // steps that ran; guarded by mu_
  std::set<InstructorStep> held_;          // at the gate now; guarded by mu_
  std::set<InstructorStep> granted_;       // released before they arrived; guarded by mu_
  std::vector<int> session_grants_;        // NextOf() before the session arrived; guarded by mu_
  int any_grants_ = 0;                     // Next() with nothing held: the first to arrive; guarded
  bool abandoned_ = false;                 // guarded by mu_
  std::map<int, Session*> held_conns_;     // of the sessions held now; guarded by mu_
  std::map<int, TypedStatement> typed_;    // to run, by session; guarded by mu_
  std::map<int, Session*> typed_running_;  // running now, by session; guarded by mu_
};

}  // namespace racelab
