// StepSession: step mode without a UI (docs/step.md) — one plan item walked one step per key
// press. It runs one trial of the item at a time (a "walk") on a thread of its own, through the
// Runner with the instructor's gate (harness/run/instructor_gate.h) and lock snapshots on, and
// folds the trial's events into a StepView (step_view.h) that a terminal view, a transcript or a
// test renders. While a session waits on a lock it also takes a look at the locks (WaitMonitor::
// SnapshotLocks), so the view shows the awaited lock while the wait lasts, not only after it.
//
// Operations: Next() runs the next step of the order; Next(label) that session's next step;
// Reset() abandons the walk (its statements are cancelled, its workspace dropped) and starts a new
// one — measured in StepView::reset_ms; SwitchLevel() does the same at another isolation level
// (the `l` key); Quit() ends it. The engine stays open throughout (the caller owns it).
//
// Typed SQL (RunTyped, docs/step.md ":"; step_typed.cc): a statement the teacher types runs on a
// teacher's connection of its own — like a third psql window: autocommit, outside the sessions'
// transactions, in the walk's workspace — or, for a session held at the gate, on that session's
// connection inside its transaction (InstructorGate::RunOnHeld). One at a time; it runs on its own
// thread (the teacher's, or the session's worker), ends by StepOptions::typed_timeout_ms (then it
// is cancelled) or CancelTyped(), and shows in StepView::typed and the transcript, its lock wait
// too (the teacher's connection has a wait monitor of its own while a statement runs).
//
// Thread-safety: every member is safe from any thread; Reset() and Quit() are the controller's,
// from one thread at a time. `on_change` is called on the thread that changed the view (a worker,
// the monitor's poll thread, the walk's thread), after the change and outside the session's locks;
// it must be quick and must not call the StepSession (wake a UI thread instead).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/model/plan.h"
#include "harness/model/status.h"
#include "harness/run/instructor_gate.h"
#include "harness/run/runner.h"
#include "harness/step/step_view.h"

namespace racelab::step {

struct StepOptions {
  Engine* engine = nullptr;  // open; outlives the StepSession
  PlanItem item;             // the walk's item (its `trials` is ignored: one trial per walk)
  // What Next() releases in turn (instructor_gate.h); empty: the item's order: (OrderOf), else the
  // default order.
  std::vector<InstructorStep> order;
  // Deadlines and the poll interval (engine, gate, subscriber, stop and lock_snapshots are set
  // here). In step mode a statement may wait for as long as the teacher talks: the defaults below
  // are an hour.
  RunOptions run = DefaultRunOptions();
  std::function<void()> on_change;
  // The item at every isolation level `l` switches between (SwitchLevel), in the order `racelab
  // run` runs them; `item` is one of them (by isolation). Empty: `item` alone.
  std::vector<PlanItem> levels;
  // A typed statement's deadline (RunTyped), ms: then it is cancelled.
  long typed_timeout_ms = 60000;
  // Open the teacher's connection and its wait monitor (at construction, on the caller's thread:
  // the engine's thread rule). False: RunTyped runs on sessions only.
  bool teacher = true;

  static RunOptions DefaultRunOptions();
};

class StepSession {
 public:
  // Starts the first walk. REQUIRES: options.engine is open.
  explicit StepSession(StepOptions options);
  ~StepSession();  // Quit()
  StepSession(const StepSession&) = delete;
  StepSession& operator=(const StepSession&) = delete;

  // A copy of the view now (next_session filled from the gate).
  StepView view() const;
  uint64_t version() const;
  // Waits until the view's version is past `seen`, or `deadline`; the version then.
  uint64_t AwaitChange(uint64_t seen, SteadyTime deadline) const;

  // Runs the next step of the order; the session it released, or nullopt when it granted the next
  // step to arrive (nothing held now). kUsage when the walk is over (Reset() starts a new one).
  Result<std::optional<std::string>> Next();
  // Runs session `label`'s next step. kUsage: no such session, or the walk is over.
  Status Next(const std::string& label);
  // After a Next(): waits until what it released has settled — the step started and every session
  // is at the gate, waiting on a lock or its partners, or done — or `deadline`. The transcript's
  // rule (isolationtester's): the next command acts on a quiet trial. False at the deadline.
  // `pending`: the session the Next() was for (its label, "" when unknown). When that session is
  // in a lock wait and the trial is quiet otherwise, what was released cannot start until another
  // session's key ends the wait (a lock queue that the server ordered otherwise than the order
  // did): that is quiet too, and *stuck (when given) says so.
  bool AwaitQuiet(int releases_before, SteadyTime deadline, const std::string& pending = "",
                  bool* stuck = nullptr) const;
  int releases() const;  // kGateReleased events of this walk so far

  // Abandons the walk and starts a new one; returns once the new walk's first step is held (or it
  // ended), with the time it took in view().reset_ms.
  Status Reset();
  // Like Reset(), at isolation level `level` (a name or rc/rr/ser/ru), or at the next one of
  // StepOptions::levels after this walk's (cyclic) when `level` is empty. kUsage: a level the
  // scenario does not run at here (the message lists those it does).
  Status SwitchLevel(const std::string& level);
  // The levels SwitchLevel moves between ("read committed", …), in order.
  std::vector<std::string> level_names() const;

  // Typed SQL (see above). `target`: "" for the teacher's connection, else a session's label.
  // Returns once it is sent off; kUsage (and nothing runs) when a typed statement runs already,
  // `sql` is empty, the target is no session or is not held at the gate, or the statement would
  // begin or end the session's transaction (BEGIN, COMMIT, ROLLBACK…: its own steps do that).
  Status RunTyped(const std::string& target, const std::string& sql);
  // Cancels the typed statement that runs (Session::Cancel); false when none does.
  bool CancelTyped();
  // No typed statement runs, or the one that runs is seen waiting on a lock.
  bool TypedQuiet() const;

  // Ends the walk (cancels what runs, drops its workspace) and returns when it is gone.
  void Quit();

 private:
  struct Walk;
  void StartWalk(size_t level);
  void StopWalk();
  Status Restart(size_t level);
  // Typed SQL (step_typed.cc).
  void OpenTeacher();
  void StopTyped(Walk* walk);  // REQUIRES: mu_ is not held; the controller's thread
  void RunTeacher(Walk* walk, std::string sql);
  void TypedStarted(Walk* walk, const std::string& who, const std::string& sql);  // mu_ held
  void TypedEnded(Walk* walk, const QueryResult& r);                              // mu_ held
  void TypedWaiting(Walk* walk, const WaitObservation& o);                        // mu_ held
  bool TypedQuietLocked() const;                                                  // mu_ held
  void RunWalk(Walk* walk);
  std::unique_ptr<StepGate> MakeGate(Walk* walk, const GateSetup& setup);
  void OnEvent(Walk* walk, const TrialEvent& e);
  void SnapshotLoop(Walk* walk);
  void Notify();

  const StepOptions options_;
  const std::vector<PlanItem> items_;  // at each level (StepOptions::levels)
  const std::vector<std::vector<std::vector<std::string>>> describe_;  // of each item
  // The teacher's connection and its monitor: used by one typed statement's thread at a time
  // (Walk::typed_thread), or by the controller when none runs. Null when they could not open.
  std::unique_ptr<Session> teacher_;
  std::unique_ptr<WaitMonitor> teacher_monitor_;
  std::string teacher_error_;  // why they are null

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::unique_ptr<Walk> walk_;  // guarded by mu_ (its members say their own rules)
  int walks_ = 0;               // guarded by mu_
  size_t level_ = 0;            // index in items_ of the walk's item; guarded by mu_
  double reset_ms_ = -1;        // guarded by mu_
};

// What step k of each session sends, for the view: the SQL, "BEGIN ISOLATION LEVEL …", "COMMIT",
// "barrier locked", "sleep 1200 ms", "await_blocked b".
std::vector<std::vector<std::string>> DescribeSteps(const PlanItem& item, const Engine& engine);

// A typed statement's result as step mode shows it: "1 row (status): queued", "UPDATE 1",
// "ERROR 42601 syntax_error: …" (with a note when it was cancelled at `timeout_ms`), or the
// message of a statement racelab did not run (QueryResult::refused).
std::string TypedResultText(const std::string& engine, const QueryResult& r, long timeout_ms);

// "a.claim b.claim a.commit" -> the steps of the item (session label, step name); kUsage names the
// word that is no step, with the steps the session has.
Result<std::vector<InstructorStep>> ParsePermutation(const PlanItem& item, const std::string& text);

}  // namespace racelab::step
