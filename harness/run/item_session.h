// ItemSession: the connections and schema of one PlanItem run — internal to the runner.
// Thread-safety: owned and used by the runner thread; worker threads each use only their own
// Connection from `sessions` while a trial runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/pg/connection.h"
#include "harness/pg/monitor.h"
#include "harness/run/runner.h"

namespace racelab::internal {

class ItemSession {
 public:
  ItemSession(const RunOptions& options, const PlanItem& item, std::string schema);
  ~ItemSession();  // drops the schema (best effort, with a deadline)

  // Opens whatever is not open and healthy: control, monitor, one connection per session instance.
  Status EnsureConnections();
  // Before each trial: every session connection starts clean (harness/run/session_reset.h) with the
  // schema and its `settings`; a connection found lost is reopened once.
  Status StartSessionsClean();
  // The control connection starts clean (session_reset.h); DROP SCHEMA … CASCADE; CREATE SCHEMA;
  // then the item's setup on the control connection.
  Status ResetSchema();
  // Final checks then teardown on the control connection. RunTeardown returns the error, or "", and
  // sets *scenario_error when its SQL cannot run (SQLSTATE class 42).
  std::vector<FinalValue> RunFinals();
  std::string RunTeardown(bool* scenario_error);
  // Drops the schema now. Safe to call twice.
  Status DropSchema();

  Connection* session_conn(size_t i) { return sessions_[i].get(); }
  Connection* control() { return control_.get(); }
  Monitor* monitor() { return monitor_.get(); }
  const std::string& schema() const { return schema_; }

 private:
  Result<std::unique_ptr<Connection>> Open(const std::string& label);
  SteadyTime Deadline() const;
  // The connection that creates and drops the schema: admin_ under confinement, else control_.
  Result<Connection*> SchemaConnection();
  // now + `ms`, at most kAfterStopDeadlineMs once a stop is requested.
  SteadyTime In(long ms) const;

  const RunOptions& options_;
  const PlanItem& item_;
  const std::string schema_;
  bool schema_created_ = false;
  std::unique_ptr<Connection> admin_;  // confinement only: creates and drops the schema
  std::unique_ptr<Connection> control_;
  std::unique_ptr<Monitor> monitor_;
  bool monitor_ok_ = false;
  std::vector<std::unique_ptr<Connection>> sessions_;
};

}  // namespace racelab::internal
