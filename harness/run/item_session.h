// ItemSession: the sessions and workspaces of one PlanItem run — internal to the runner.
//
// Every trial runs in a workspace that was emptied (Engine::ResetWorkspace) and set up after the
// previous trial that used it; the control session that ran its `setup` runs its `final` checks and
// `teardown`. With Capabilities::workspace_reset_in_background the item has two workspaces and two
// control sessions, used in turn ("slots"): while trial N's server log is read and its final checks
// run on slot N%2, a helper thread empties slot (N+1)%2 and runs `setup` there, so trial N+1 does
// not wait for it. A scenario's `reset:` may stand in for emptying and setup, checked after every
// reset (harness/run/workspace_reset.h). The helper never runs while a trial's sessions race: the
// runner joins it (AwaitWorkspace) before the next trial starts, and starts it (PrepareAhead) only
// after the trial's workers are joined. Thread-safety: owned and used by the runner thread; worker
// threads each use only their own Session from `sessions` while a trial runs; the helper thread
// uses only its slot's control session and the engine's ResetWorkspace (engine.h: Thread-safety).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/engine/engine.h"
#include "harness/model/plan.h"
#include "harness/run/runner.h"

namespace racelab::internal {

class ItemSession {
 public:
  // `workspaces`: one name, or two when the engine allows the background reset (WorkspaceSlots()).
  ItemSession(const RunOptions& options, const PlanItem& item, std::vector<std::string> workspaces);
  ~ItemSession();  // joins the helper, drops the workspaces (best effort, with a deadline)

  // How many workspaces the runner should name for this engine: 2 with the background reset,
  // else 1.
  static int WorkspaceSlots(const Engine& engine);

  // Opens whatever is not open and healthy: the monitor, one connection per session instance.
  Status EnsureConnections();
  // Before trial `trial`, in three steps, so that the clean start's round trip overlaps other work
  // (docs/performance.md): SendSessionsClean sends every idle session's clean start for `trial`
  // (Session::SendStartClean: in `trial`'s workspace with its `settings`) without waiting — the
  // runner calls it once trial N's final checks and teardown are done, so it runs after everything
  // trial N did, final checks included; StartSessionsClean sends what was not sent yet and starts
  // clean at once the sessions that cannot be sent one (a transaction still open: ROLLBACK first;
  // engines that send nothing ahead), all at once (one thread each but the first), before the
  // workspace is prepared; FinishSessionsClean waits for what was sent, after AwaitWorkspace and
  // before the trial. Errors are reported as StartClean's; a session found lost is reopened once
  // and started clean again. Also sends the clean start of the control session that ran `trial - 1`
  // (its final checks and teardown are done), for the next trial in its workspace: CleanControl, on
  // whichever thread prepares that workspace, collects it, so the helper does one round trip fewer
  // (docs/performance.md).
  void SendSessionsClean(int trial);
  Status StartSessionsClean(int trial);
  Status FinishSessionsClean(int trial);
  // Makes `trial`'s workspace current: waits for the helper that prepares it, or prepares it now —
  // the slot's control session starts clean, the workspace is emptied, `setup` runs on that
  // control.
  Status AwaitWorkspace(int trial);
  // Starts preparing `trial`'s workspace on the helper thread; does nothing with one slot or when
  // `trial` is past the item's last. Call only after the current trial's workers are joined.
  void PrepareAhead(int trial);
  // After `trial` (its final checks and teardown): `clean` false when it ended in an error or past
  // its deadline — its workspace is then set up fresh, never reset (workspace_reset.h).
  void TrialEnded(int trial, bool clean);
  // Final checks then teardown on the current control session. RunTeardown returns the error, or
  // "", and sets *scenario_error when its SQL cannot run (Engine::IsScenarioError).
  std::vector<FinalValue> RunFinals();
  std::string RunTeardown(bool* scenario_error);
  // Joins the helper and drops the workspaces now. Safe to call twice.
  Status DropSchema();

  Session* session_conn(size_t i) { return sessions_[i].get(); }
  Session* control() { return slots_[current_].control.get(); }
  WaitMonitor* monitor() { return monitor_.get(); }
  const std::string& schema() const { return slots_[current_].workspace; }

 private:
  struct Slot {
    std::string workspace;
    std::unique_ptr<Session> control;
    bool created = false;       // ResetWorkspace ran: DropSchema drops it
    int prepared_for = -1;      // the trial whose setup ran here last
    int used_by = -1;           // the last trial that ran here
    bool control_sent = false;  // the control's clean start is in flight (SendSessionsClean)
    // `reset:` (workspace_reset.h): the state read right after the last fresh setup, the resets
    // since, and whether the last trial here ended in an error (then the next one gets a fresh
    // setup).
    std::unique_ptr<Session> checker;     // reads the state (Engine::ReadWorkspaceState)
    std::optional<QueryResult> baseline;  // the state after the last fresh setup
    std::optional<QueryResult> version;   // the version last read with the baseline's state
    int resets = 0;
    bool dirty = false;
    std::thread helper;  // preparing it, when joinable
    Status helper_status = Status::Ok();
  };

  // Opens a connection on `node` ("" = the engine's default node, Engine::nodes().front()).
  Result<std::unique_ptr<Session>> Open(const std::string& node, const std::string& label);
  SteadyTime Deadline() const;
  // now + `ms`, at most kAfterStopDeadlineMs once a stop is requested.
  SteadyTime In(long ms) const;
  Slot& SlotOf(int trial) { return slots_[static_cast<size_t>(trial) % slots_.size()]; }
  // Control session (re)opened and started clean in the slot's workspace, then the workspace is
  // reset
  // (`reset:`, verified) or emptied and set up.
  Status Prepare(Slot* slot);
  Status CleanControl(Slot* slot);
  static SessionStart ControlStart(const Slot& slot);
  // `reset:` and the state check; *done false when a fresh setup is needed instead.
  Status TryReset(Slot* slot, bool* done);
  void ReadBaseline(Slot* slot);
  // Session i reopened (it was found lost) and started clean in `workspace`.
  Status ReopenAndStart(size_t i, const std::string& workspace, bool* lost);
  // Starts session i clean in `workspace`; *lost when it turned out to be gone.
  Status StartOne(size_t i, const std::string& workspace, bool* lost);
  SessionStart StartOf(size_t i, const std::string& workspace) const;
  void JoinHelpers();

  const RunOptions& options_;
  const PlanItem& item_;
  Engine& engine_;
  std::vector<Slot> slots_;
  size_t current_ = 0;
  std::unique_ptr<WaitMonitor> monitor_;
  std::vector<std::unique_ptr<Session>> sessions_;
  // sent_[i] >= 0: session i's clean start for trial sent_[i] is in flight (SendSessionsClean);
  // nothing else uses the session until FinishSessionsClean collects it.
  std::vector<int> sent_;
};

}  // namespace racelab::internal
