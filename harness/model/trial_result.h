// TrialResult: what happened in one trial (stage 3), as plain data.
//
// Filled by: the runner (harness/run) from its workers and the monitor. Read by: the evaluator and
// the reporters. All times are µs since the trial's start on std::chrono::steady_clock
// (docs/report-schema.md "Times"). Labels are session labels and step names, never PIDs or XIDs (so
// reports compare across runs). Thread-safety: plain values; the runner assembles one per trial
// after all workers have joined.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/scenario.h"

namespace racelab {

struct StepEvent {
  std::string session;  // label, e.g. "worker.2"
  std::string step;     // step name
  std::string sql;      // the statement as sent (captures substituted); empty for non-SQL steps
  StepKind kind = StepKind::kSql;
  int attempt = 1;           // transaction attempt (retry), 1-based
  int64_t sent_us = 0;       // when the step started (statement sent)
  int64_t completed_us = 0;  // when its result was complete
  bool skipped = false;      // `when` was false, or the session had already failed
  long rows = -1;            // rows returned (SELECT/RETURNING) or affected; -1 when not applicable
  std::map<std::string, std::string> captured;
  // What it read, when an `expect.reads` names the step (PlannedStep::read_rows): its rows, columns
  // joined by '|', NULL as NULL, at most read_rows + 1 of them (one more shows there were more).
  std::optional<std::vector<std::string>> read;
  std::string sqlstate;  // empty on success; "08006" for a lost connection
  // The engine's own code of the error ("1213": MariaDB ER_LOCK_DEADLOCK; "SQLITE_BUSY"), empty
  // when the SQLSTATE is all there is (PostgreSQL). `expect.sqlstates` and `retry.sqlstates` may
  // name either.
  std::string error_code;
  std::string message;  // server's primary message, unstable parts not removed
  // The server's DETAIL of the error (PostgreSQL's PG_DIAG_MESSAGE_DETAIL, e.g. SSI's "Reason code:
  // Canceled on identification as a pivot, during commit attempt."); empty when it sent none.
  // MariaDB and SQLite have none. Only `expect.errors` reads it; reports do not show it (it may
  // hold row values).
  std::string detail;
  bool cancelled_by_deadline = false;  // racelab sent PQcancel after the statement's deadline
  // Lock waits (docs/lock-waits.md). `lock_wait`: the statement waited on a heavyweight lock, as
  // the source named by `lock_wait_source` saw it:
  //   "server_log" the server's own record (log_lock_waits, embedded cluster): start and duration
  //                are the server's, for every wait longer than the session's deadlock_timeout;
  //   "poll"       racelab's monitor saw it in pg_stat_activity (wait_event_type = 'Lock').
  bool lock_wait = false;
  std::string lock_wait_source;  // "server_log" | "poll"; empty when !lock_wait
  // When the (first) wait began, µs since trial start, within [sent_us, completed_us]. server_log:
  // the server's wait start, mapped from its wall clock (±0.5 ms; the log's timestamps have ms
  // resolution). poll, and a server_log wait without a logged end: sent_us.
  int64_t lock_wait_start_us = 0;
  // Time spent waiting, in µs. server_log: the sum of the server's own durations ("acquired …
  // after X ms", "detected deadlock … after X ms"); a wait the server logged no end for (cut short
  // by statement_timeout, lock_timeout or a cancel) counts as the whole statement, completed_us -
  // sent_us, with lock_wait_start_us = sent_us. poll: completed_us - sent_us (an upper bound).
  int64_t lock_wait_us = 0;
  // Polls that saw the wait (0 when none did), clipped to [sent_us, completed_us].
  int64_t lock_wait_first_seen_us = 0;
  int64_t lock_wait_last_seen_us = 0;
  // server_log: when the first wait the server logged ended (its start + duration; completed_us
  // when no end was logged), µs since trial start; 0 otherwise. Only for placing polls
  // (lock_waits.cc): not in the reports.
  int64_t logged_first_wait_end_us = 0;
  std::string wait_event;  // lock type of the first wait: "transactionid", "tuple", "relation",
                           // "advisory", …
  std::string lock_mode;   // server_log only: the requested mode, e.g. "ShareLock"
  // Who held the lock: session labels, "racelab:control"/"racelab:monitor" for racelab's own
  // connections, "(autovacuum worker)" and the like for other backends, "(other backend)" when
  // unknown; sorted, unique. server_log: the holders the server listed; poll: pg_blocking_pids().
  std::vector<std::string> blocked_by;
  // Scheduling lateness of this step, µs (>= 0; 0 when it cannot be measured): time a busy machine
  // added to it, never time the scenario asked for. Statement: the run-queue delay of its backend
  // during the step (only when the backends are processes of this machine: the embedded cluster)
  // plus its worker thread's on the answer's path (QueryResult::client_late_us). sleep_ms: how much
  // later than asked it ended. Barrier: how long after the release (the last arrival) this session
  // resumed. Other kinds: 0. Run-queue delay comes from Linux /proc/<pid>/schedstat
  // (pg/run_queue_delay.h).
  int64_t late_us = 0;
  // Time the statement spent blocked, in ms: lock_wait_us / 1000 when lock_wait, else 0.
  double blocked_ms() const { return lock_wait ? static_cast<double>(lock_wait_us) / 1000.0 : 0.0; }
};

struct BarrierRelease {
  std::string barrier;
  int occurrence = 1;       // n-th time this barrier name was met in the trial
  int64_t released_us = 0;  // when the last participant arrived
  int64_t skew_us = 0;      // first-to-last send of the participants' next step after release
  // False when the release could not be, or was not, simultaneous; then not_simultaneous says why
  // ("3 participants on 2 online CPUs", "skew 340 µs > 100 µs"). harness/run/release_check.h.
  bool simultaneous = true;
  std::string not_simultaneous;
};

struct SessionResult {
  std::string label;
  std::string role;
  bool committed = false;  // its last transaction committed
  bool won = false;        // OutcomeSpec held (filled by the evaluator)
  std::optional<std::string> claim;
  std::string sqlstate;    // the error that ended it, if any
  std::string error_code;  // that error's engine code ("SQLITE_BUSY", "1205"), empty when none
  std::string message;
  int attempts = 1;  // transaction attempts (retries + 1)
  // An exec session's program (docs/race-your-own-code.md): how it ended and the last of its
  // output. Unset for a session of steps.
  struct Program {
    // "exited 0", "exited 1", "killed by signal 9", "killed: …" (why racelab killed it), "not
    // started: …".
    std::string ended;
    int exit_code = -1;                    // its exit status; -1 when it did not exit by itself
    std::string stdout_tail, stderr_tail;  // the last kOutputTailBytes of each, as bytes
    bool stdout_truncated = false, stderr_truncated = false;  // earlier output was dropped
    int64_t stdout_bytes = 0, stderr_bytes = 0;               // all it wrote
  };
  std::optional<Program> program;
};

struct FinalValue {
  std::string sql;
  std::optional<std::string> value;  // nullopt: SQL NULL or no row
  std::string error;                 // non-empty when the query failed
};

struct TrialResult {
  int index = 0;  // 0-based trial number
  int64_t duration_us = 0;
  std::vector<StepEvent> events;        // ordered by sent_us
  std::vector<SessionResult> sessions;  // plan order
  std::vector<BarrierRelease> barriers;
  std::vector<FinalValue> finals;  // in AllFinalQueries(PlanItem::expect) order (plan.h)
  // A harness-level failure: lost connection, setup failed, deadline passed. Makes the trial
  // `error`.
  std::string error;
  bool deadline_exceeded = false;
  // The scenario itself is broken: its SQL has an error of SQLSTATE class 42 (syntax error or
  // access rule violation: 42601, 42P01, 42703, …), or a final check or teardown failed. Implies
  // `error`; the CLI exits 2 (a scenario-file error), not 1 (a race regressed).
  bool scenario_error = false;
};

}  // namespace racelab
