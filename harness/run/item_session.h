// ItemSession: the sessions and workspace of one PlanItem run — internal to the runner.
// Thread-safety: owned and used by the runner thread; worker threads each use only their own
// Session from `sessions` while a trial runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/engine/engine.h"
#include "harness/run/runner.h"

namespace racelab::internal {

class ItemSession {
 public:
  ItemSession(const RunOptions& options, const PlanItem& item, std::string schema);
  ~ItemSession();  // drops the workspace (best effort, with a deadline)

  // Opens whatever is not open and healthy: control, monitor, one connection per session instance.
  Status EnsureConnections();
  // Before each trial: every session starts clean (Engine::StartClean) in the workspace with its
  // `settings`; a session found lost is reopened once.
  Status StartSessionsClean();
  // The control session starts clean; the workspace is emptied (Engine::ResetWorkspace); then the
  // item's setup runs on the control session.
  Status ResetSchema();
  // Final checks then teardown on the control connection. RunTeardown returns the error, or "", and
  // sets *scenario_error when its SQL cannot run (Engine::IsScenarioError).
  std::vector<FinalValue> RunFinals();
  std::string RunTeardown(bool* scenario_error);
  // Drops the workspace now. Safe to call twice.
  Status DropSchema();

  Session* session_conn(size_t i) { return sessions_[i].get(); }
  Session* control() { return control_.get(); }
  WaitMonitor* monitor() { return monitor_.get(); }
  const std::string& schema() const { return schema_; }

 private:
  Result<std::unique_ptr<Session>> Open(const std::string& label);
  SteadyTime Deadline() const;
  // now + `ms`, at most kAfterStopDeadlineMs once a stop is requested.
  SteadyTime In(long ms) const;

  const RunOptions& options_;
  const PlanItem& item_;
  const std::string schema_;
  Engine& engine_;
  bool schema_created_ = false;
  std::unique_ptr<Session> control_;
  std::unique_ptr<WaitMonitor> monitor_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace racelab::internal
