#include "harness/engines/postgresql/pg_engine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "harness/engines/postgresql/dsn.h"
#include "harness/engines/postgresql/errors.h"
#include "harness/engines/postgresql/monitor.h"
#include "harness/engines/postgresql/prepared_xacts.h"
#include "harness/engines/postgresql/program_dsn.h"
#include "harness/engines/postgresql/server_log.h"
#include "harness/engines/postgresql/session_reset.h"
#include "harness/engines/postgresql/spec/transcript_runner.h"
#include "harness/engines/postgresql/workspace_state.h"

namespace racelab::pg {
namespace {

// Server settings worth recording next to every result (they change what races do).
constexpr const char* kSettingsQuery =
    "SELECT name, CASE unit WHEN '8kB' THEN pg_size_pretty(setting::bigint * 8192) "
    "ELSE setting || COALESCE(unit, '') END FROM pg_settings WHERE name IN "
    "('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', "
    "'deadlock_timeout', 'lock_timeout', 'statement_timeout', 'max_connections', "
    "'default_transaction_isolation') "
    "ORDER BY name";

// lock_timeout of DROP SCHEMA at the end of an item, in ms (the caller's deadline adds a margin).
constexpr long kDropLockTimeoutMs = 15000;
// After a stop request only cleanup runs, and a server that cannot answer it within this never
// will: the cap on the admin connection's connect deadline then, in ms.
constexpr long kAfterStopDeadlineMs = 3000;

// A superuser-only setting the generated role may not SET (added to a 42501 on `settings`).
constexpr const char* kDeniedSettingHint =
    "scenario SQL runs as a generated non-superuser role: racelab grants it SET on "
    "deadlock_timeout and log_lock_waits on PostgreSQL 15+ when the --dsn role is a "
    "superuser or holds SET on them WITH GRANT OPTION; else only a superuser --dsn with "
    "--allow-superuser --no-confine can set them";

}  // namespace

Result<std::unique_ptr<Engine>> OpenPostgresEngine(const PgEngineOptions& options) {
  std::unique_ptr<PostgresEngine> e(new PostgresEngine());
  e->connect_timeout_ms_ = options.connect_timeout_ms;
  e->stop_ = options.stop;
  e->info_.engine = "postgresql";
  e->caps_.levels = AllIsolationLevels();
  e->caps_.default_level = IsolationLevel::kReadCommitted;
  // ResetWorkspace uses only admin_, which nothing on the runner's thread touches while a trial
  // runs (DropWorkspace comes after the helper is joined); OpenSession and StartClean use their own
  // connection.
  e->caps_.workspace_reset_in_background = true;
  if (options.dsn.empty()) {
    ClusterOptions co;
    co.pg_bindir = options.pg_bindir;
    auto cluster = EmbeddedCluster::Start(co);
    if (!cluster.ok()) return cluster.status();
    e->cluster_ = std::move(cluster.value());
    e->conninfo_ = e->cluster_->conninfo();
    e->server_log_path_ = e->cluster_->server_log_path();
    e->info_.embedded = true;
  } else {
    Status s = ValidateDsn(options.dsn);
    if (!s.ok()) return s;
    e->conninfo_ = options.dsn;
    e->server_log_path_ = options.server_log_path;
    e->info_.embedded = false;
    e->info_.dsn_redacted = RedactDsn(options.dsn);
  }
  e->caps_.server_lock_log = !e->server_log_path_.empty();
  auto conn = Connection::Open(
      e->conninfo_, "racelab:probe",
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.connect_timeout_ms),
      options.stop);
  if (!conn.ok()) return conn.status();
  QueryResult r =
      (*conn)->Exec(kSettingsQuery, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                    /*max_rows=*/100);
  if (!r.ok()) return Status::Database("cannot read server settings: " + r.message);
  QueryResult prepared =
      (*conn)->Exec("SELECT current_setting('max_prepared_transactions')::int > 0",
                    std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (!prepared.ok() || prepared.values.empty()) {
    return Status::Database("cannot read max_prepared_transactions: " + prepared.message);
  }
  e->prepared_xacts_ = prepared.values[0][0].value_or("f") == "t";
  if (!e->info_.embedded && !options.allow_superuser) {
    QueryResult su =
        (*conn)->Exec("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user",
                      std::chrono::steady_clock::now() + std::chrono::seconds(10));
    if (!su.ok()) return Status::Database("cannot read the --dsn role's attributes: " + su.message);
    if (!su.values.empty() && su.values[0][1].value_or("f") == "t") {
      return Status::Usage(
          fmt::format("--dsn connects as superuser '{}': refused without --allow-superuser. "
                      "Scenario files are code; connect "
                      "as a role with CREATEROLE (racelab then runs scenario SQL as a role it "
                      "creates, confined to its "
                      "schemas), or pass --allow-superuser",
                      su.values[0][0].value_or("")));
    }
  }
  conn.value().reset();
  if (options.confine) {
    auto role = ScenarioRole::Create(e->conninfo_, options.connect_timeout_ms, options.stop);
    if (!role.ok()) return role.status();
    e->role_ = std::move(role.value());
  }
  for (const auto& row : r.values) {
    std::string name = row[0].value_or(""), value = row[1].value_or("");
    if (name == "server_version") {
      e->info_.server_version = value;
    } else {
      e->info_.settings.emplace_back(name, value);
    }
  }
  return std::unique_ptr<Engine>(std::move(e));
}

PostgresEngine::~PostgresEngine() { Close(); }

Status PostgresEngine::Close() {
  // Before the role goes: a transaction it prepared would outlive it (the last item's were rolled
  // back after its trials; this catches a run cut short between them).
  if (role_ || prepared_) {
    Status rolled_back = RollbackRunPrepared(
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(std::min(connect_timeout_ms_, kAfterStopDeadlineMs)));
    (void)rolled_back;  // a server that went away keeps them: `racelab clean --dsn` rolls them back
  }
  prepared_.reset();
  run_lock_.Release();
  admin_.reset();
  clean_.reset();
  Status dropped = role_ ? role_->Drop() : Status::Ok();
  role_.reset();
  if (!cluster_) {
    if (dropped.ok()) return dropped;
    // A --dsn server that went away (or refused) keeps the role: clean finds it by its run lock.
    return Status::Database(dropped.message() +
                            " — `racelab clean --dsn …` drops it once the server answers");
  }
  // The embedded cluster's roles go with its folder: a role that could not be dropped (the server
  // died first: 57P01, a lost connection) is no leftover, and saying so would only be noise.
  Status s = cluster_->Stop();
  cluster_.reset();
  return s;
}

Result<std::unique_ptr<Session>> PostgresEngine::OpenSession(const std::string& node,
                                                             const std::string& label,
                                                             SteadyTime deadline,
                                                             const StopFlag* stop) {
  if (Status s = CheckNode(*this, node); !s.ok()) return s;
  auto c = Connection::Open(session_conninfo(), "racelab:" + label, deadline, stop);
  if (!c.ok()) return c.status();
  c.value()->set_denied_setting_hint(role_ ? kDeniedSettingHint : "");
  return std::unique_ptr<Session>(std::move(c.value()));
}

Result<std::unique_ptr<WaitMonitor>> PostgresEngine::OpenMonitor(std::chrono::microseconds poll,
                                                                 SteadyTime deadline,
                                                                 const StopFlag* stop) {
  auto c = Connection::Open(session_conninfo(), "racelab:monitor", deadline, stop);
  if (!c.ok()) return c.status();
  return std::unique_ptr<WaitMonitor>(std::make_unique<Monitor>(std::move(c.value()), poll));
}

Result<Connection*> PostgresEngine::Admin() {
  if (admin_ && admin_->healthy()) return admin_.get();
  long ms = connect_timeout_ms_;
  if (stop_ != nullptr && stop_->stop_requested()) ms = std::min(ms, kAfterStopDeadlineMs);
  auto c =
      Connection::Open(conninfo_, "racelab:admin",
                       std::chrono::steady_clock::now() + std::chrono::milliseconds(ms), nullptr);
  if (!c.ok()) return c.status();
  admin_ = std::move(c.value());
  return admin_.get();
}

std::string PostgresEngine::WorkspaceName(int n) const {
  return fmt::format("racelab_{}_{}_{}", static_cast<long>(getpid()), RunIdHex(), n);
}

Status PostgresEngine::ResetWorkspace(const std::string& name, SteadyTime deadline,
                                      const StopFlag* stop) {
  auto admin = Admin();
  if (!admin.ok()) return admin.status();
  const std::string q = QuoteIdent(name);
  // Under confinement the schema belongs to the generated role, which can create nothing else.
  const std::string authorization = role_ ? " AUTHORIZATION " + QuoteIdent(role_->name()) : "";
  QueryResult r = (*admin)->Exec(
      fmt::format("DROP SCHEMA IF EXISTS {0} CASCADE; CREATE SCHEMA {0}{1};", q, authorization),
      deadline);
  if (!r.ok())
    return Status::Database(
        fmt::format("cannot create schema {}: {} ({})", q, r.message, r.sqlstate));
  return Status::Ok();
}

Status PostgresEngine::PrepareWorkspaceChecks(Session* checker, const std::string& workspace,
                                              SteadyTime deadline) {
  const auto failed = [&](const QueryResult& r) {
    return Status::Database(fmt::format("cannot prepare the state query of schema {}: {} ({})",
                                        workspace, r.message, r.sqlstate));
  };
  QueryResult r =
      checker->Exec(pg::PrepareWorkspaceStateSql(workspace), deadline, pg::kMaxStateRows);
  if (!r.ok()) return failed(r);
  if (r.rows < 0 || static_cast<size_t>(r.rows) != r.values.size()) {
    return Status::Database(
        fmt::format("cannot prepare the state query of schema {}: more than {} relations",
                    workspace, pg::kMaxStateRows));
  }
  std::vector<pg::WorkspaceRelation> relations;
  for (const auto& row : r.values) {
    if (row.size() != 2 || !row[0] || !row[1] || row[1]->size() != 1) continue;
    relations.push_back(pg::WorkspaceRelation{*row[0], (*row[1])[0]});
  }
  QueryResult v = checker->Exec(pg::PrepareWorkspaceVersionSql(workspace, relations), deadline);
  if (!v.ok()) return failed(v);
  return Status::Ok();
}

Result<QueryResult> PostgresEngine::ReadWorkspaceState(Session* checker, WorkspaceStateKind kind,
                                                       SteadyTime deadline) {
  QueryResult r = checker->Exec(
      kind == WorkspaceStateKind::kFull ? pg::kExecuteStateSql : pg::kExecuteVersionSql, deadline,
      pg::kMaxStateRows);
  if (!r.ok())
    return Status::Database(
        fmt::format("cannot read a workspace's state: {} ({})", r.message, r.sqlstate));
  return r;
}

Status PostgresEngine::EndTrial(SteadyTime deadline) { return RollbackRunPrepared(deadline); }

Status PostgresEngine::RollbackRunPrepared(SteadyTime deadline) {
  if (!prepared_xacts_) return Status::Ok();
  if (!prepared_ || !prepared_->healthy()) {
    prepared_.reset();
    const SteadyTime connect_by =
        std::min(deadline,
                 std::chrono::steady_clock::now() + std::chrono::milliseconds(connect_timeout_ms_));
    auto c = Connection::Open(session_conninfo(), "racelab:prepared", connect_by, nullptr);
    if (!c.ok()) return c.status();
    prepared_ = std::move(c.value());
  }
  const std::string prefix = fmt::format("racelab_{}_{}_", static_cast<long>(getpid()), RunIdHex());
  auto done = RollbackPrepared(*prepared_, RunPreparedSql(role_ != nullptr, prefix), deadline);
  return done.ok() ? Status::Ok() : done.status();
}

Status PostgresEngine::DropWorkspace(const std::string& name, SteadyTime deadline) {
  // A transaction the scenario prepared keeps its locks: DROP SCHEMA would wait on it.
  if (Status rolled_back = RollbackRunPrepared(deadline); !rolled_back.ok()) return rolled_back;
  auto admin = Admin();
  if (!admin.ok()) return admin.status();
  QueryResult r =
      (*admin)->Exec(fmt::format("SET lock_timeout = '{}ms'; DROP SCHEMA IF EXISTS {} CASCADE",
                                 kDropLockTimeoutMs, QuoteIdent(name)),
                     deadline);
  if (!r.ok()) return Status::Database(fmt::format("cannot drop schema {}: {}", name, r.message));
  return Status::Ok();
}

Result<std::string> PostgresEngine::ProgramDsn(
    const std::string& workspace, const std::string& label, IsolationLevel level,
    const std::vector<std::pair<std::string, std::string>>& settings) const {
  return ProgramConninfo(session_conninfo(), workspace, label, level, settings);
}

std::string PostgresEngine::BeginSql(IsolationLevel level) const {
  return fmt::format("BEGIN ISOLATION LEVEL {}", IsolationName(level));
}

// BEGIN's modes are comma-separated (PostgreSQL docs, BEGIN and SET TRANSACTION).
std::string PostgresEngine::BeginSqlWith(IsolationLevel level,
                                         const TransactionModes& modes) const {
  return BeginSql(level) + (modes.read_only ? ", READ ONLY" : "") +
         (modes.deferrable ? ", DEFERRABLE" : "");
}

// PostgreSQL answers COMMIT on a failed transaction with the tag ROLLBACK and no error.
bool PostgresEngine::Committed(const QueryResult& commit) const {
  return commit.command_tag != "ROLLBACK";
}

bool PostgresEngine::IsScenarioError(const QueryResult& r) const {
  return IsScenarioSqlError(r.sqlstate);
}

bool PostgresEngine::IsSessionLost(const QueryResult& r) const {
  return pg::IsSessionLost(r.sqlstate);
}

std::string PostgresEngine::ClientConnectionString(const std::string& workspace) const {
  if (!cluster_) return "";
  return cluster_->conninfo() + " options=-csearch_path=" + workspace;
}

std::string PostgresEngine::ClientCommand(const std::string& workspace) const {
  const std::string dsn = ClientConnectionString(workspace);
  return dsn.empty() ? "" : "psql \"" + dsn + "\"";
}

std::string PostgresEngine::ScenarioErrorHint(const std::set<std::string>& sqlstates) const {
  if (!role_ || sqlstates.count("42501") == 0) return "";
  return "42501 (insufficient privilege): scenario SQL runs as a role racelab creates for the run, "
         "which owns "
         "only the run's schemas (README, \"Scenario files are code\"); --no-confine runs it with "
         "the --dsn "
         "role's own rights";
}

Result<std::unique_ptr<ServerWaitLog>> PostgresEngine::OpenWaitLog() {
  if (server_log_path_.empty()) return std::unique_ptr<ServerWaitLog>();
  auto log = ServerLog::Open(server_log_path_);
  if (!log.ok()) return log.status();
  return std::unique_ptr<ServerWaitLog>(std::move(log.value()));
}

// The run lock is held by the admin role under confinement: it outlives the generated role.
Status PostgresEngine::HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                                   const StopFlag* stop) {
  return run_lock_.Hold(conninfo_, connect_deadline, statement_deadline, stop);
}

bool PostgresEngine::ServerAnswers(SteadyTime deadline) {
  return run_lock_.ServerAnswers(conninfo_, deadline);
}

Status PostgresEngine::RunIsolationSpec(const IsolationSpec& spec,
                                        const std::vector<StepOrder>& orders,
                                        const SpecRunOptions& options, const StopFlag* stop,
                                        FILE* out) {
  // The run lock first: `racelab clean` drops a spec database only once its run is gone
  // (run_lock.h).
  const auto now = std::chrono::steady_clock::now();
  Status locked = HoldRunLock(now + std::chrono::milliseconds(connect_timeout_ms_),
                              now + std::chrono::milliseconds(options.step_timeout_ms), stop);
  if (!locked.ok()) return locked;
  // Under confinement the spec's SQL runs as the generated role, owner of the spec's database.
  SpecServer server{conninfo_, role_ ? role_->conninfo() : "", role_ ? role_->name() : ""};
  return RunSpecTranscript(spec, orders, options, server, stop, out);
}

}  // namespace racelab::pg
