// Scenario: what a scenario file says, as the loader read it (stage 1: scenario → plan → trial
// results → summary → reports).
//
// Filled by: harness/loader (ScenarioLoader). Read by: the planner (harness/loader/plan.h), `list`
// and `explain`. Nothing here has been substituted yet: fields typed `Expr` hold the text as
// written, which may reference parameters as ${name} and is evaluated by the planner
// (integer/decimal arithmetic with
// + - * / and parentheses, e.g. "${workers} - 1", "${hold_ms} * 0.95").
// The format is documented in docs/scenario-format.md.
// Thread-safety: plain values; immutable once loaded.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/engine_traits.h"
#include "harness/model/isolation.h"

namespace racelab {

// Text as written in the file that evaluates to a number once ${params} are substituted.
using Expr = std::string;

// A count an expectation checks, as written (issue 11 item 4a): one expression — exactly that many
// — or `{at_least: E, at_most: E}` with one or both bounds. The planner makes it a CountRange
// (harness/model/count_range.h).
struct CountExpr {
  Expr at_least;  // exact: the count; else the lower bound ("" = 0)
  Expr at_most;   // exact: same as at_least; else the upper bound ("" = none)
  bool exact = true;
  CountExpr() = default;
  CountExpr(Expr n)
      : at_least(n), at_most(std::move(n)) {}  // NOLINT(google-explicit-constructor): exactly n
  // An exact count written as `text`.
  friend bool operator==(const CountExpr& c, const std::string& text) {
    return c.exact && c.at_least == text;
  }
  friend bool operator==(const CountExpr& c, const char* text) {
    return c.exact && c.at_least == text;
  }
};

// Where something was written: file, 1-based line and column (0 when unknown).
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

enum class StepKind {
  kBegin,         // BEGIN ISOLATION LEVEL <trial level>
  kSql,           // one SQL statement (simple query protocol)
  kBarrier,       // meet every session that lists the same barrier name
  kSleep,         // hold what the session holds: sleep_ms
  kAwaitBlocked,  // wait until the monitor sees every instance of `target` in a lock wait
  kAwaitEnded,  // wait until the server has ended every instance of `target` (its backend is gone)
  kCommit,      // COMMIT
  kRollback,    // ROLLBACK
  kTerminate,   // the monitor calls pg_terminate_backend() on every instance of `target`
  kProbe,       // a query on racelab's control connection, between this session's steps
  // One stretch of an exec session's program (SessionSpec::exec): from its start (the step
  // `start`) or from the release of a pause point (the step named after it) to its next pause
  // point or its exit. Never written in a file: the loader makes one per pause point.
  kProgram,
};

// What a session does when a statement fails (SQLSTATE or lost connection).
enum class OnError {
  kAbort,  // default: ROLLBACK, skip the remaining steps (still meeting barriers), session failed
  kContinue,  // record the error and go on with the next step (the transaction may be aborted)
};

struct Step {
  StepKind kind = StepKind::kSql;
  SourceLoc loc;
  std::string name;  // unique within the session; defaults to "<kind><1-based index>", e.g. "sql3"
  // kSql: the statement. ${param} is substituted at plan time; ${capture} (a value captured by an
  // earlier step of the same session) is substituted as raw text at run time.
  std::string sql;
  std::vector<std::string> capture;  // kSql: columns of the first returned row to capture by name
  std::string when;  // kSql: condition on captures: "status == 'queued'" (empty: always)
  OnError on_error = OnError::kAbort;
  std::string barrier;  // kBarrier: its name
  Expr sleep_ms;        // kSleep: milliseconds
  std::string target;   // kAwaitBlocked, kAwaitEnded, kTerminate: a session role name
  // Deadline in ms: kAwaitBlocked and kAwaitEnded their wait, sql/begin/commit/rollback the
  // statement, kProbe its query (empty: the run's).
  Expr timeout_ms;
  // kProbe (`probe: SQL`, its text in `sql`): the rows it must read, each row's columns joined by
  // '|', SQL NULL as NULL — as expect.reads writes them (issue 11 item 10a).
  std::vector<std::string> equals;
  // kBegin: the session's own level (instead of the trial's) and transaction modes (issue 11 item
  // 5).
  std::optional<IsolationLevel> isolation;
  bool read_only = false;
  bool deferrable = false;
  // `ask:` — a question step mode shows before it runs this step ("Will b block?"), then what
  // happened (docs/step.md "Predict, then watch"); ${param} is substituted at plan time. Steps that
  // step mode holds only (sql, begin, commit, rollback, probe, terminate). `racelab run` ignores
  // it.
  std::string ask;
};

// Retry a whole transaction (from its `begin` step) when it fails with one of `on` (issue 3).
// Barriers are met only on the first attempt. Backoff: initial_ms * factor^(attempt-1), capped.
struct RetrySpec {
  std::vector<std::string>
      on;  // `sqlstates:` (formerly `on:`): SQLSTATEs or engine codes, e.g. {"40001", "40P01"}
  Expr attempts = "5";  // total attempts including the first
  Expr initial_ms = "50";
  Expr factor = "2";
  Expr cap_ms = "1000";
};

struct SessionSpec {
  std::string name;  // role name, e.g. "worker"; instances are labelled "worker.1".."worker.N" when
                     // count > 1
  SourceLoc loc;
  Expr count = "1";
  // `node:` — which of the engine's nodes its connections are on (docs/scenario-format.md "Nodes");
  // "" = the engine's default node. Checked against the engine's nodes when the plan meets the
  // engine (harness/loader/node_check.h); `node_loc` is where it is written.
  std::string node;
  SourceLoc node_loc;
  // Run as `SET name = value` on the session's connection before each trial (e.g. lock_timeout:
  // 200ms).
  std::vector<std::pair<std::string, std::string>> settings;
  std::optional<RetrySpec> retry;
  // Steps as written; for an exec session the loader's kProgram steps: `start`, then one per pause.
  std::vector<Step> steps;
  // `exec: [program, args…]` (docs/race-your-own-code.md): the session runs this program, one
  // process per instance per trial, instead of steps. `program` is exec[0] found: an absolute
  // path (a name without '/' looked up on PATH, a relative path taken from the scenario file's
  // folder); `exec_dir` is that folder, the program's working directory. Empty: a session of steps.
  std::vector<std::string> exec;
  std::string program;
  std::string exec_dir;
  SourceLoc exec_loc;
  // `pauses: [after_read, …]`: the pause points the program reaches, in this order.
  std::vector<std::string> pauses;
};

// What makes a session a winner and what it claimed.
struct OutcomeSpec {
  std::string win_step;       // the step whose result decides; empty: nobody wins
  Expr win_rows = "1";        // the step returned/affected exactly this many rows
  bool win_committed = true;  // and the session's transaction committed
  std::string claim_step;     // optional: step whose captured value is the session's claim
  std::string claim_column;   // the captured column holding the claim
};

struct BlockedSpec {
  std::string session;  // role name
  std::string step;     // step name in that role
  std::optional<Expr>
      min_ms;  // the statement's lock-wait time is >= this (implies it was seen waiting)
  std::optional<Expr> max_ms;  // and <= this
  std::string by;              // optional role that must appear among the blockers the monitor saw
  // Issue 11 item 9. `instances`: how many of the role's instances were seen waiting and meet the
  // entry's other fields (an Expr count); unset: every instance must. `wait_event`: the recorded
  // wait_event of the step's first wait (PostgreSQL "transactionid", "tuple", "advisory",
  // "SafeSnapshot"; MariaDB "RECORD", "User lock"; SQLite "busy"); empty: not checked.
  std::optional<Expr> instances;
  std::string wait_event;
  SourceLoc loc;
};

// expect.timing (issue 11 item 9): how long a step took from send to answer, or — with `after` —
// how long after another session's step was sent it answered (docs/scenario-format.md "Timing of
// steps").
struct TimingSpec {
  std::string session;  // role whose step is timed (each instance is checked)
  std::string step;
  std::string
      after_session;  // `after: ROLE.STEP`: the reference step's role (one instance); empty: none
  std::string after_step;
  std::optional<Expr> min_ms;  // taken as written
  std::optional<Expr> max_ms;  // widened in each trial by the lateness measured on the path
  std::optional<bool> waited;  // the step was (true) or was not (false) seen waiting
  SourceLoc loc;
};

struct StepRowsSpec {
  std::string step;    // step name (any role that has it)
  Expr rows;           // row count
  CountExpr sessions;  // this many sessions got `rows` rows from `step`
  // Instead of rows (issue 11 item 3): exactly `sessions` sessions' last run of `step` failed with
  // this SQLSTATE or engine error code ("40001" at the UPDATE, not at COMMIT).
  std::string sqlstate;
  SourceLoc loc;
};

// What a step read (issue 11 item 1): every row it returned, each row's columns joined by '|' (SQL
// NULL as NULL), in order; a scalar `equals: "18"` is the one-row list ["18"].
struct ReadSpec {
  std::string session;              // role; empty: every session that has the step
  std::string step;                 // step name
  std::vector<std::string> equals;  // the rows; ${param} substituted at plan time
  SourceLoc loc;
};

struct FinalCheck {
  std::string
      sql;  // run on the control connection after every session ended; first column of first row
  std::string equals;  // expected text value (${param} substituted); "NULL" matches SQL NULL
  // Instead of `equals` (issue 11 item 10): any of these values passes (each as `equals` would).
  std::vector<std::string> any_of;
  SourceLoc loc;
};

// A step's or a session's error (issue 11 item 3): its SQLSTATE (or engine code), primary message
// and DETAIL. `message` and `detail` are ECMAScript regular expressions searched in the server's
// text (harness/eval/outcome_checks.h).
struct ErrorSpec {
  std::string session;   // role; empty: every session that has `step`
  std::string step;      // step name; empty: any step of the session's last attempt
  std::string sqlstate;  // empty: any error
  std::string message;   // regex; empty: not checked
  std::string detail;    // regex; empty: not checked
  std::optional<CountExpr>
      sessions;  // how many sessions failed so; default: every instance of `session`
  SourceLoc loc;
};

struct ExpectSpec;
// One outcome of `one_of` (issue 11 item 4b/c): its checks (an ExpectSpec without `at` and
// `one_of`), a name for the reports, and the least fraction of trials in which it must hold (0:
// none asked).
struct ExpectAlternative {
  std::string name;  // default "alternative N" (1-based)
  std::shared_ptr<const ExpectSpec> checks;
  std::optional<Expr> min_fraction;  // 0..1
  SourceLoc loc;
};

// Assertions checked on every trial. Unset optionals are not checked. A per-level override replaces
// the fields it sets (field by field; lists are replaced whole).
struct ExpectSpec {
  std::optional<CountExpr> winners;
  // SQLSTATE -> count over all sessions in a trial. When set, a SQLSTATE that is not listed must
  // not occur (count 0): surprises fail the trial.
  std::optional<std::map<std::string, CountExpr>> sqlstates;
  std::optional<bool> distinct_claims;
  std::optional<CountExpr> lock_waits;  // number of statements the monitor saw in a lock wait
  std::optional<std::vector<StepRowsSpec>> step_rows;
  std::optional<std::vector<BlockedSpec>> blocked;
  std::optional<std::vector<ReadSpec>> reads;
  std::optional<std::vector<FinalCheck>> final;
  std::optional<std::vector<ErrorSpec>> errors;          // issue 11 item 3
  std::optional<std::vector<ExpectAlternative>> one_of;  // issue 11 item 4b
  std::optional<std::vector<TimingSpec>> timing;
};

// One entry of a permutation (`order:`): a session's step, written SESSION.STEP, with
// isolationtester's markers `SESSION.STEP(*)`, `SESSION.STEP(other.step, …)` (PostgreSQL's
// src/test/isolation/README "Dealing with race conditions"; docs/scenario-format.md).
struct OrderEntry {
  std::string session;  // role name (a role with one instance)
  std::string step;     // step name in that role
  SourceLoc loc;
  bool once = false;  // `(*)`: deemed waiting as soon as it started; the next step need not wait
  // `(other.step)`: its session's next step waits until every earlier entry of that step ended.
  std::vector<std::pair<std::string, std::string>> after;  // (session, step)
};

// One permutation of an ordered scenario: a total order of steps across sessions, run as
// isolationtester runs a spec's permutation (docs/scenario-format.md "Ordered steps and
// permutations").
struct Permutation {
  std::vector<OrderEntry> steps;
  std::optional<ExpectSpec> expect;                // overrides `expect` for this permutation
  std::map<IsolationLevel, ExpectSpec> expect_at;  // and its `at:` per level
  SourceLoc loc;
};

// `order:`: the permutations to run; each becomes its own result per level.
struct OrderSpec {
  bool all = false;  // `order: all` (permutations holds every interleaving)
  std::vector<Permutation> permutations;
  SourceLoc loc;
};

struct Scenario {
  SourceLoc loc;  // the file
  // The engines it runs on, in file order (`engines:`; default {kDefaultEngine}), and the one this
  // Scenario's SQL, levels and expectations are for: the file read with its engine maps resolved
  // for `engine` (docs/scenario-format.md "Engines and SQL that differs"). `engine` is engines[0];
  // the file read for each other engine is in `variants`.
  std::vector<std::string> engines = {std::string(kDefaultEngine)};
  std::string engine = std::string(kDefaultEngine);
  std::map<std::string, std::shared_ptr<const Scenario>> variants;
  std::string name;  // kebab-case id, unique in a catalogue
  std::string title;
  std::string teaches;  // the lesson, a paragraph
  std::vector<std::string> tags;
  std::vector<std::pair<std::string, std::string>> params;  // name -> default (text), file order
  std::vector<IsolationLevel> isolation;  // default levels (empty in file: all three)
  std::string setup;     // SQL run per trial on the control connection, in the trial's schema
  std::string teardown;  // SQL run per trial after the final checks (the schema is dropped anyway)
  // SQL that puts the workspace back as `setup` left it, used instead of a fresh workspace where
  // the engine can verify it (docs/scenario-format.md "reset"); "" = a fresh workspace every trial.
  std::string reset;
  std::vector<SessionSpec> sessions;
  OutcomeSpec outcome;
  ExpectSpec expect;
  std::map<IsolationLevel, ExpectSpec> expect_at;  // overrides per isolation level
  std::optional<OrderSpec> order;  // an ordered scenario (no barriers, no await_blocked)
  // Where each expression and each SQL text outside steps was written, by field path
  // ("sessions[0].count", "expect.at.serializable.winners", "setup"), so that the planner's errors
  // (with --set values) point at the file's line too. Steps use Step::loc.
  std::map<std::string, SourceLoc> field_locs;

  // This scenario as read for `engine_name` (this one or a variant), or nullptr when the scenario
  // does not run on that engine.
  const Scenario* ForEngine(const std::string& engine_name) const {
    if (engine_name == engine) return this;
    auto it = variants.find(engine_name);
    return it == variants.end() ? nullptr : it->second.get();
  }
};

}  // namespace racelab
