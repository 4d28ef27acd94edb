// PostgresEngine: PostgreSQL behind the engine interface (harness/engine/engine.h;
// docs/architecture.md "The engine interface").
//
// One engine per run and server: the embedded throwaway cluster (cluster.h) or a --dsn server. What
// is PostgreSQL's lives here and nowhere above: sessions are libpq connections (connection.h) with
// application_name "racelab:<label>"; a workspace is a schema racelab_<pid>_<run id>_<n> (quoted),
// created and dropped over an admin connection of the engine's own; every trial starts clean with
// DISCARD ALL (session_reset.h), and the transactions a trial prepared are rolled back after it
// (prepared_xacts.h); the run lock is an idle connection of its own (run_lock.h); scenario SQL runs
// as a generated role under confinement (scenario_role.h); lock waits come from pg_stat_activity
// (monitor.h) and, on the embedded cluster, from its jsonlog (server_log.h). `racelab clean` lists
// and ends, rolls back or drops the backends, prepared transactions, schemas and roles of dead runs
// (pg_leftovers.cc).
// Thread-safety: see Engine; one thread uses the engine's own connections (admin, run lock, clean).
#pragma once

#include <memory>
#include <string>

#include "harness/engine/engine.h"
#include "harness/engines/postgresql/cluster.h"
#include "harness/engines/postgresql/connection.h"
#include "harness/engines/postgresql/run_lock.h"
#include "harness/engines/postgresql/scenario_role.h"

namespace racelab::pg {

struct PgEngineOptions {
  std::string dsn;                 // libpq key=value or URI; "" = start an embedded cluster
  std::string pg_bindir;           // embedded only: PostgreSQL binaries ("" = discover)
  long connect_timeout_ms = 5000;  // deadline of one connection attempt
  const StopFlag* stop = nullptr;
  bool confine = true;           // run scenario SQL as a generated role (scenario_role.h)
  bool allow_superuser = false;  // accept a DSN that connects as a superuser
  // The server's jsonlog when racelab can read it although it did not start the server (the test
  // suite's shared cluster); the embedded cluster's own is used without it. "" = polls only.
  std::string server_log_path;
};

// Starts the embedded cluster or checks that the DSN parses (kUsage), answers (kDatabase) and is
// not a superuser unless allowed (kUsage); reads the server's version and settings; (confine)
// creates the role scenario SQL runs as. Error messages never contain a password.
Result<std::unique_ptr<Engine>> OpenPostgresEngine(const PgEngineOptions& options);

class PostgresEngine : public Engine {
 public:
  ~PostgresEngine() override;

  std::string name() const override { return "postgresql"; }
  const Capabilities& capabilities() const override { return caps_; }
  const TargetInfo& info() const override { return info_; }
  double ready_ms() const override { return cluster_ ? cluster_->ready_ms() : -1; }

  Result<std::unique_ptr<Session>> OpenSession(const std::string& node, const std::string& label,
                                               SteadyTime deadline, const StopFlag* stop) override;
  Result<std::unique_ptr<WaitMonitor>> OpenMonitor(std::chrono::microseconds poll,
                                                   SteadyTime deadline,
                                                   const StopFlag* stop) override;
  Status ResetWorkspace(const std::string& name, SteadyTime deadline,
                        const StopFlag* stop) override;
  Status DropWorkspace(const std::string& name, SteadyTime deadline) override;
  bool CanCheckWorkspace() const override { return true; }
  Status PrepareWorkspaceChecks(Session* checker, const std::string& workspace,
                                SteadyTime deadline) override;
  Result<QueryResult> ReadWorkspaceState(Session* checker, WorkspaceStateKind kind,
                                         SteadyTime deadline) override;
  std::string WorkspaceName(int n) const override;

  // Rolls back the transactions the trial's scenario SQL prepared (prepared_xacts.h), over a
  // connection of its own ("racelab:prepared") logged in as the role scenario SQL runs as; nothing
  // when the server allows none (max_prepared_transactions = 0, as on the embedded cluster).
  Status EndTrial(SteadyTime deadline) override;

  Result<std::string> ProgramDsn(
      const std::string& workspace, const std::string& label, IsolationLevel level,
      const std::vector<std::pair<std::string, std::string>>& settings) const override;
  std::string BeginSql(IsolationLevel level) const override;
  std::string BeginSqlWith(IsolationLevel level, const TransactionModes& modes) const override;
  bool Committed(const QueryResult& commit) const override;
  bool IsScenarioError(const QueryResult& r) const override;
  bool IsSessionLost(const QueryResult& r) const override;
  std::string ScenarioErrorHint(const std::set<std::string>& sqlstates) const override;
  // The embedded cluster's superuser over its socket, search_path = the workspace; "" on a --dsn.
  std::string ClientConnectionString(const std::string& workspace) const override;
  std::string ClientCommand(const std::string& workspace) const override;

  Result<std::unique_ptr<ServerWaitLog>> OpenWaitLog() override;
  Status HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                     const StopFlag* stop) override;
  bool ServerAnswers(SteadyTime deadline) override;
  Result<std::vector<Leftover>> ListLeftovers(SteadyTime deadline) override;
  Status DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) override;
  // `racelab run X.spec`: isolationtester's run of the spec (spec/transcript_runner.h), in a
  // database of its own on this server, as the admin role (the DSN's, or the embedded superuser).
  Status RunIsolationSpec(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                          const SpecRunOptions& options, const StopFlag* stop, FILE* out) override;
  Status Close() override;

  // Where scenario SQL runs: the generated role's conninfo under confinement, else the admin's.
  const std::string& session_conninfo() const { return role_ ? role_->conninfo() : conninfo_; }

 private:
  friend Result<std::unique_ptr<Engine>> OpenPostgresEngine(const PgEngineOptions& options);
  PostgresEngine() = default;
  // The engine's admin connection (the DSN's role, or the embedded superuser), opened if needed; it
  // creates and drops the workspaces. Like the control connection it must finish its cleanup after
  // a stop request, so only deadlines bound it.
  Result<Connection*> Admin();
  // The connection `racelab clean` works on ("racelab:clean").
  Result<Connection*> CleanConnection(SteadyTime deadline);
  Status DropLeftover(const Leftover& leftover, SteadyTime deadline);
  // EndTrial's work, also before DropWorkspace and Close.
  Status RollbackRunPrepared(SteadyTime deadline);
  // `racelab clean`: ROLLBACK PREPARED of a dead run's prepared transaction, as its owner, in its
  // database.
  Status RollbackLeftoverPrepared(Connection& c, const Leftover& leftover, SteadyTime deadline);

  std::unique_ptr<EmbeddedCluster> cluster_;
  std::unique_ptr<ScenarioRole> role_;
  std::string conninfo_;  // admin: the DSN's, or the embedded superuser's
  std::string server_log_path_;
  long connect_timeout_ms_ = 5000;
  const StopFlag* stop_ = nullptr;
  TargetInfo info_;
  Capabilities caps_;
  RunLock run_lock_;
  std::unique_ptr<Connection> admin_;
  std::unique_ptr<Connection> clean_;
  // EndTrial's, opened on first use; used only by the runner's thread (EndTrial, DropWorkspace,
  // Close).
  std::unique_ptr<Connection> prepared_;
  bool prepared_xacts_ =
      false;  // max_prepared_transactions > 0: scenario SQL can prepare transactions
};

}  // namespace racelab::pg
