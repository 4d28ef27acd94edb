// Engine: everything the runner, the evaluator and the CLI need from a database server, so that
// none of them includes a client library or names an engine (docs/architecture.md "The engine
// interface").
//
// An Engine is bound to one server for one racelab run: an embedded throwaway server it started, or
// the server a --dsn names. It opens sessions, owns the per-item workspace (a PostgreSQL schema, a
// MariaDB database, a SQLite database file) where all scenario SQL runs, spells BEGIN at a level,
// classifies errors, watches waits, and lists/drops the leftovers of dead runs. What differs
// between engines and matters to a scenario is a Capabilities flag, never an `if engine == …`.
//
// Implementations: harness/engines/postgresql (libpq), harness/engines/mariadb (Connector/C),
// harness/engines/sqlite (libsqlite3); each describes itself to the registry by an EngineDescriptor
// (engine_descriptor.h). The registry and factory are harness/engine_registry/ (open_engine.h).
// Thread-safety: an Engine is used from the runner's (main) thread, except:
//  - nodes() and the const classification methods (BeginSql, Committed, IsScenarioError,
//    IsSessionLost, IsInfrastructureFault), which
//    are pure and safe from any thread (workers call them);
//  - Session::StartClean (session.h), which may run on several threads at once for different
//    sessions (the runner starts a trial's sessions clean in parallel); every engine's touches only
//    its own session (SQLite's also the engine's workspace bookkeeping, under a mutex);
//  - with Capabilities::workspace_reset_in_background, ResetWorkspace (and the OpenSession and
//    StartClean of the session that runs setup, PrepareWorkspaceChecks and ReadWorkspaceState) may
//    run on one helper thread while the runner's thread uses other sessions, StartClean and
//    OpenSession; never two ResetWorkspace or a DropWorkspace at once.
// The Sessions and WaitMonitor it hands out follow their own rules.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/session.h"
#include "harness/engine/wait_monitor.h"
#include "harness/model/isolation.h"
#include "harness/model/isolation_spec.h"
#include "harness/model/status.h"
#include "harness/model/stop_flag.h"
#include "harness/model/summary.h"

namespace racelab {

// What this engine can do; the planner skips (with a note) what a scenario needs and the engine
// lacks.
struct Capabilities {
  std::vector<IsolationLevel> levels;  // levels it runs, weakest first
  IsolationLevel default_level = IsolationLevel::kReadCommitted;
  bool terminate = true;  // can end another session from the server side (`terminate` steps)
  bool row_locks = true;  // waits are per row (false: SQLite's database-wide lock)
  bool server_lock_log =
      false;                    // waits also come from the server's own record (PostgreSQL jsonlog)
  bool returning = true;        // UPDATE … RETURNING
  bool multi_statement = true;  // one Exec may hold several statements
  // ResetWorkspace is safe on a helper thread (see Thread-safety above): the runner then prepares
  // the next trial's workspace (a second one per item, used in turn) while the current trial's
  // final checks run — never while a trial's sessions race.
  bool workspace_reset_in_background = false;
};

// A transaction's modes besides its level (SQL standard SET TRANSACTION; PostgreSQL docs, BEGIN).
struct TransactionModes {
  bool read_only = false;  // READ ONLY
  bool deferrable =
      false;  // DEFERRABLE (PostgreSQL: with SERIALIZABLE READ ONLY, waits for a safe snapshot)
};

// One leftover racelab found on a server, for `racelab clean`: a workspace or role of a run that is
// gone (its run lock is free), or one that is kept, with the reason.
struct Leftover {
  // "schema", "database", "file", "role", "user", "backend" (a server process of a dead run —
  // e.g. a scenario step still running pg_sleep — that `racelab clean` ends before dropping the
  // rest), "prepared transaction" (PostgreSQL: name its gid), which `racelab clean` rolls back
  // before dropping the workspaces whose locks it holds, or "xa transaction" (MariaDB: listed,
  // always kept).
  std::string kind;
  std::string name;   // a backend's: its pid; a prepared transaction's: its gid
  bool live = false;  // its run still holds its run lock: never dropped (counted as "of live runs")
  // Why it is never dropped when not `live` (e.g. a name that does not say which run made it), or
  // "".
  std::string kept_because;
  // For a backend: what makes it the dead run's, "role <name>" or "database <name>"; for a prepared
  // transaction "role <owner>"; else "".
  std::string of;
};

class Engine {
 public:
  virtual ~Engine() = default;

  // "postgresql" | "mariadb" | "sqlite" — the name reports and --engine use.
  virtual std::string name() const = 0;
  virtual const Capabilities& capabilities() const = 0;
  // Engine, server version, embedded or not, the redacted DSN and the settings that matter.
  virtual const TargetInfo& info() const = 0;
  // Embedded only: ms from the start of the server until it accepted connections; -1 with a DSN.
  virtual double ready_ms() const { return -1; }

  // The nodes of this engine's server(s), the default first: where a role without `node:` runs. A
  // single-server engine has one, kServerNode (docs/scenario-format.md "Nodes").
  virtual std::vector<std::string> nodes() const { return {kServerNode}; }

  // Opens a session on `node` (one of nodes()) where scenario SQL runs (under confinement: as the
  // generated role), waiting at most until `deadline`. `label` is shown by the server where it can
  // (application_name, program_name). Errors: kUsage for a node the engine does not have;
  // kDatabase, never with a password in the message.
  virtual Result<std::unique_ptr<Session>> OpenSession(const std::string& node,
                                                       const std::string& label,
                                                       SteadyTime deadline,
                                                       const StopFlag* stop) = 0;
  // Opens a wait monitor on a session of its own. `poll` is the polling interval where it polls.
  virtual Result<std::unique_ptr<WaitMonitor>> OpenMonitor(std::chrono::microseconds poll,
                                                           SteadyTime deadline,
                                                           const StopFlag* stop) = 0;

  // The workspace of one plan item: created (empty) before its first trial, emptied before every
  // trial (ResetWorkspace: drop and create), dropped after its last. `name` comes from
  // WorkspaceName(). Each waits at most until `deadline`. Errors: kDatabase.
  virtual Status ResetWorkspace(const std::string& name, SteadyTime deadline,
                                const StopFlag* stop) = 0;
  virtual Status DropWorkspace(const std::string& name, SteadyTime deadline) = 0;
  // This process's n-th workspace name (unique on a shared server: it carries the run id).
  virtual std::string WorkspaceName(int n) const = 0;
  // What a scenario's `reset:` is checked against (harness/run/workspace_reset.h). An engine that
  // can read a workspace's logical state says so with CanCheckWorkspace(); otherwise `reset:` is
  // never used and every trial gets a fresh workspace. PrepareWorkspaceChecks readies `checker` — a
  // session of racelab's own that runs nothing else — to read `workspace`; call it again after the
  // workspace was emptied (ResetWorkspace). ReadWorkspaceState returns one row per object, (object,
  // state), ordered by object: kFull the definition and contents of every object; kVersion a
  // cheaper digest that changes whenever kFull may have (equal versions mean equal full states;
  // unequal ones mean nothing). Errors: kDatabase. Thread-safety: like StartClean (one call per
  // session at a time). PostgreSQL: harness/engines/postgresql/workspace_state.h.
  enum class WorkspaceStateKind { kFull, kVersion };
  virtual bool CanCheckWorkspace() const { return false; }
  virtual Status PrepareWorkspaceChecks(Session* checker, const std::string& workspace,
                                        SteadyTime deadline) {
    return Status::Internal(name() + " cannot check a workspace");
  }
  virtual Result<QueryResult> ReadWorkspaceState(Session* checker, WorkspaceStateKind kind,
                                                 SteadyTime deadline) {
    return Status::Internal(name() + " cannot check a workspace");
  }

  // After a trial's final checks and teardown, before the next trial's sessions start: ends what
  // the trial's scenario SQL left on the server outside its sessions, where no clean session start
  // reaches (PostgreSQL: transactions it prepared with PREPARE TRANSACTION, rolled back —
  // harness/engines/postgresql/prepared_xacts.h). Waits at most until `deadline`. Errors:
  // kDatabase. Thread-safety: the runner's thread, possibly while the workspace helper runs
  // ResetWorkspace (an engine uses a connection of its own for it).
  virtual Status EndTrial(SteadyTime deadline) { return Status::Ok(); }

  // What an exec session's program (docs/race-your-own-code.md) connects with, in RACELAB_DSN: the
  // workspace `workspace` as the role scenario SQL runs as (confinement), shown by the server as
  // "racelab:<label>", its transactions at `level` unless it says otherwise, with the session's
  // `settings`. PostgreSQL: libpq key=value (search_path, default_transaction_isolation and the
  // settings in `options`). Contains the role's password: never print it. Errors: kUsage when
  // this engine cannot run programs yet. Pure and safe from any thread.
  virtual Result<std::string> ProgramDsn(
      const std::string& workspace, const std::string& label, IsolationLevel level,
      const std::vector<std::pair<std::string, std::string>>& settings) const {
    return Status::Usage(name() + " cannot run exec sessions yet (PostgreSQL can)");
  }

  // The statement(s) that open a transaction at `level`, e.g. "BEGIN ISOLATION LEVEL READ
  // COMMITTED".
  virtual std::string BeginSql(IsolationLevel level) const = 0;
  // The same with `modes`; "" when the engine cannot begin a transaction so (the worker reports it
  // as a scenario error). The default knows only the plain modes.
  virtual std::string BeginSqlWith(IsolationLevel level, const TransactionModes& modes) const {
    return modes.read_only || modes.deferrable ? "" : BeginSql(level);
  }
  // Whether a COMMIT's result says the transaction committed (PostgreSQL answers COMMIT on a failed
  // transaction with the tag ROLLBACK and no error).
  virtual bool Committed(const QueryResult& commit) const = 0;
  // An error that means the scenario's SQL can never run (PostgreSQL class 42): a bug in the file,
  // not an outcome of the race. Only sqlstate and error_code of `r` are read (the runner also asks
  // about recorded errors, e.g. a StepEvent's, with a QueryResult holding just those).
  virtual bool IsScenarioError(const QueryResult& r) const = 0;
  // An error that means the session is gone (PostgreSQL 57P01–57P04, class 08; MariaDB
  // 1927/2006/2013). Only sqlstate and error_code of `r` are read.
  virtual bool IsSessionLost(const QueryResult& r) const = 0;
  // An error that says the machine under the database failed — disk full, an I/O error, out of
  // memory, a corrupt file (SQLite's SQLITE_FULL, SQLITE_IOERR_*, …) — not an outcome of the race:
  // the trial is an `error` (exit 3), never a `fail`. Only sqlstate and error_code of `r` are read.
  // Pure and safe from any thread, like IsSessionLost.
  virtual bool IsInfrastructureFault(const QueryResult& r) const { return false; }
  // A sentence to print after a run whose scenario SQL failed with these SQLSTATEs (e.g. a
  // privilege error under confinement: what racelab's generated role may do), or "".
  virtual std::string ScenarioErrorHint(const std::set<std::string>& sqlstates) const { return ""; }

  // For a person's own client while the server stays up (racelab step --keep, docs/step.md): a
  // connection string to this server with `workspace` as the place where scenario SQL runs, and the
  // engine's client's command line for it. Never with a password (the embedded server's superuser
  // has none). "" when the engine gives none (a --dsn server: its user has their own).
  virtual std::string ClientConnectionString(const std::string& workspace) const { return ""; }
  virtual std::string ClientCommand(const std::string& workspace) const { return ""; }

  // The server's own record of waits (capabilities().server_lock_log), opened before the first
  // trial; nullptr when the engine has none (then waits come from the WaitMonitor alone).
  virtual Result<std::unique_ptr<ServerWaitLog>> OpenWaitLog() {
    return std::unique_ptr<ServerWaitLog>();
  }

  // The run lock: held while this run may have workspaces on the server, so that `racelab clean` of
  // another process never drops them. Hold() is idempotent.
  virtual Status HoldRunLock(SteadyTime connect_deadline, SteadyTime statement_deadline,
                             const StopFlag* stop) = 0;
  // The server still answers (reconnecting if needed) by `deadline`.
  virtual bool ServerAnswers(SteadyTime deadline) = 0;

  // Leftovers of earlier runs on this server (`racelab clean`), workspaces first, then roles, and
  // dropping those whose run is gone (checking again; one kept_because is never dropped). The CLI
  // drops them one at a time, to report each. Errors: kDatabase, naming what could not be dropped.
  virtual Result<std::vector<Leftover>> ListLeftovers(SteadyTime deadline) = 0;
  virtual Status DropLeftovers(const std::vector<Leftover>& which, SteadyTime deadline) = 0;

  // Runs PostgreSQL isolation spec permutations as PostgreSQL's isolationtester does and writes its
  // transcript to `out` (`racelab run X.spec`, docs/scenario-format.md "PostgreSQL isolation spec
  // files"). Only the PostgreSQL engine can; the others answer kUsage.
  virtual Status RunIsolationSpec(const IsolationSpec& spec, const std::vector<StepOrder>& orders,
                                  const SpecRunOptions& options, const StopFlag* stop, FILE* out) {
    return Status::Usage(name() +
                         " cannot run PostgreSQL isolation spec files (a PostgreSQL test format)");
  }

  // Ends everything this engine started: the generated role, the run lock, the embedded server.
  // Idempotent; called by the destructor too. Call after every Session is closed.
  virtual Status Close() = 0;
};

// OpenSession's check of its `node`: OK when it is one of engine.nodes(), else kUsage naming the
// engine's nodes.
inline Status CheckNode(const Engine& engine, const std::string& node) {
  std::vector<std::string> nodes = engine.nodes();
  std::string list;
  for (const std::string& n : nodes) {
    if (n == node) return Status::Ok();
    list += (list.empty() ? "" : ", ") + n;
  }
  return Status::Usage(engine.name() + " has no node '" + node + "' (its nodes: " + list + ")");
}

}  // namespace racelab
