// Worker: runs one session's steps on its own connection, in its own thread.
//
// Rules (docs/scenario-format.md "How a session runs"):
// - `begin` opens a transaction at the trial's isolation level, or the step's own, with its modes
//   (Engine::BeginSqlWith); `commit`'s result
//   tells whether it committed (Engine::Committed).
// - A failed statement (SQLSTATE) with on_error=abort rolls back and skips the remaining steps, but
// the
//   worker still meets its remaining barriers, so nobody is stranded. With a retry policy that
//   lists the SQLSTATE, the transaction restarts at its `begin` after a backoff; barriers already
//   met are not met again.
// - Every wait has a deadline (step timeout_ms or the run's statement deadline, never past the
// trial
//   deadline); a statement past it is cancelled (Session::Exec) and the trial is marked
//   deadline_exceeded.
// Thread-safety: a Worker is used by one thread; it reads the shared TrialContext (see its rules).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/engine/run_queue_delay.h"
#include "harness/engine/session.h"
#include "harness/model/plan.h"
#include "harness/model/trial_result.h"
#include "harness/run/trial_context.h"

namespace racelab {

class Worker {
 public:
  // `session` is item.sessions[session_index]. REQUIRES: `ctx`, `session` and `conn` outlive Run().
  Worker(TrialContext* ctx, int session_index, const PlannedSession* session, Session* conn);

  // Runs every step; never throws for database errors (they are data in the output).
  WorkerOutput Run();

 private:
  void RunStep(size_t index, const PlannedStep& step);
  // An exec session (worker_program.cc): its program's stretches as steps, its pause points met
  // as barriers (or released by the gate), the process killed by the time it returns.
  WorkerOutput RunProgram();
  // The program failed the trial (`why`, with its last output): the session fails, the trial is
  // abandoned and every other session's statement cancelled.
  void ProgramFailed(StepEvent* ev, const std::string& why, bool scenario_error);
  // Asks the trial's gate (step_gate.h) whether `turn` may start; a refusal fails the session and,
  // when the gate says so, ends the trial (an order that cannot go on: ordered_gate.h).
  void AwaitGate(const GateTurn& turn);
  // The step's deadline in ms: its timeout_ms, else the run's statement deadline.
  long StepMs(const PlannedStep& step) const;
  // A new record of `step`, published as kStepStarted (trial_events.h).
  StepEvent StartEvent(const PlannedStep& step);
  // The step's record, published as kStepEnded: the trial's record is the stream folded.
  void Record(StepEvent ev);
  // RunOptions::lock_snapshots: the locks every session holds and awaits, as kLockSnapshot.
  void PublishLocks(const PlannedStep& step);
  QueryResult ExecSql(const PlannedStep& step, StepEvent* ev, const std::string& sql);
  // An `await_ended` step: waits (until its timeout_ms) for the server to end every instance of the
  // target role; past the deadline, or when the monitor cannot look, the session fails.
  void AwaitEnded(const PlannedStep& step, StepEvent* ev);
  // A `probe` step on the control connection (worker_probe.cc): its rows into ev->read; a failure
  // is in ev->message (not a SQLSTATE of the session); past its deadline, the trial is an error.
  void RunProbe(const PlannedStep& step, StepEvent* ev);
  void Fail(const StepEvent& ev);
  void HandleError(const PlannedStep& step, const StepEvent& ev);
  // The step's `when`: true/false, or nullopt when it used an unset ${capture} (recorded as a
  // scenario error; the session has failed).
  std::optional<bool> EvalWhen(const PlannedStep& step, StepEvent* ev);
  // Replaces ${capture}s with their values; false (with *missing) at the first unset one.
  bool Substitute(const std::string& sql, std::string* out, std::string* missing) const;
  // The step ran without a value for its captures (0 rows, skipped, failed): they become unset.
  void Unset(const PlannedStep& step, const std::string& why);
  // `step` needed ${name}, which is unset: a scenario error naming the step, the trial and why.
  void UnsetUsed(const PlannedStep& step, StepEvent* ev, const std::string& name);
  StepEvent NewEvent(const PlannedStep& step) const;
  void NoteNextSend(int64_t sent_us);

  TrialContext* ctx_;
  const int session_index_;
  const PlannedSession* session_;
  Session* conn_;
  ProcessRunDelay backend_delay_;  // its backend's run-queue delay (local server only)
  std::unique_ptr<ProcessRunDelay>
      control_delay_;               // the control connection's backend's, at the first probe
  int64_t step_thread_delay_ = -1;  // this thread's run-queue delay when the current step started
  WorkerOutput out_;
  std::map<std::string, std::string> vars_;  // captured values
  struct UnsetCapture {
    std::string step;  // the step that should have captured it
    std::string why;   // "returned 0 rows", "was skipped (its when was false)", …
  };
  std::map<std::string, UnsetCapture> unset_;  // captures whose step ran but left them unset
  // SQLSTATE of each statement step's last run: "" when it succeeded or was skipped, "?" when it
  // failed without one (when: sqlstate(STEP), failed(STEP)).
  std::map<std::string, std::string> errors_;
  std::map<std::string, long> rows_;  // rows of each sql step's last run (0: skipped/failed)
  std::map<std::string, int> barrier_counts_;  // occurrences met, by barrier name
  std::map<size_t, bool> barrier_met_;         // step index -> met (for retries)
  bool failed_ = false;
  bool in_txn_ = false;
  size_t begin_index_ = 0;
  size_t next_index_ = 0;
  int attempt_ = 1;
};

}  // namespace racelab
