#include "harness/run/worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "harness/model/condition.h"

namespace racelab {

Worker::Worker(TrialContext* ctx, int session_index, const PlannedSession* session, Session* conn)
    : ctx_(ctx),
      session_index_(session_index),
      session_(session),
      conn_(conn),
      backend_delay_(conn->local_backend() ? static_cast<int>(conn->session_id()) : 0) {
  out_.session.label = session->label;
  out_.session.role = session->role;
  bool has_begin = std::any_of(session->steps.begin(), session->steps.end(),
                               [](const PlannedStep& s) { return s.kind == StepKind::kBegin; });
  out_.session.committed = !has_begin;  // autocommit statements commit one by one
}

WorkerOutput Worker::Run() {
  if (!session_->exec.empty()) return RunProgram();
  const auto& steps = session_->steps;
  while (next_index_ < steps.size()) {
    size_t i = next_index_++;
    const GateTurn turn{session_index_, session_, i, &steps[i], attempt_, failed_, conn_};
    AwaitGate(turn);
    ctx_->gate->Started(turn);
    RunStep(i, steps[i]);
    ctx_->gate->Ended(turn);
    if (ctx_->lock_snapshots) PublishLocks(steps[i]);
  }
  if (in_txn_ && conn_->in_transaction()) {
    // A session that ends inside a transaction is rolled back (not recorded as a step).
    conn_->Exec("ROLLBACK", ctx_->DeadlineIn(ctx_->statement_timeout_ms));
    in_txn_ = false;
    out_.session.committed = false;
  }
  out_.session.attempts = attempt_;
  return std::move(out_);
}

long Worker::StepMs(const PlannedStep& step) const {
  return step.timeout_ms > 0 ? step.timeout_ms : ctx_->statement_timeout_ms;
}

void Worker::AwaitGate(const GateTurn& turn) {
  const PlannedStep& step = *turn.step;
  GateLimits limits;
  limits.race_ms = StepMs(step);
  limits.race_deadline = ctx_->DeadlineIn(limits.race_ms);
  limits.hold_deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(ctx_->gate_hold_timeout_ms);
  limits.trial_timeout_ms = ctx_->trial_timeout_ms;
  limits.clock = &ctx_->clock;
  limits.stop = ctx_->stop;
  const GateAnswer a = ctx_->gate->AwaitTurn(turn, limits);
  if (a.result == GateAnswer::Result::kGo) return;
  if (failed_ || a.result == GateAnswer::Result::kStopped) return;  // its steps are skipped anyway
  StepEvent ev = NewEvent(step);
  ev.completed_us = ev.sent_us;
  ev.message = a.message;
  out_.deadline_exceeded = a.deadline_exceeded;
  if (out_.error.empty())
    out_.error = fmt::format("{}: step '{}': {}", session_->label, step.name, ev.message);
  Fail(ev);
  if (!a.ends_trial) return;
  // The trial cannot go on (an order that cannot): end it now, not at the late step's own deadline
  // (the statement it waits for may run for as long as the run's --statement-timeout-ms): every
  // other session's statement is cancelled and their remaining steps are skipped.
  out_.ended_trial = true;
  ctx_->Abandon();
  for (Session* s : ctx_->sessions) {
    if (s != conn_) s->Cancel();
  }
  if (ctx_->control != nullptr) ctx_->control->Cancel();  // a probe that waits
}

StepEvent Worker::StartEvent(const PlannedStep& step) {
  StepEvent ev = NewEvent(step);
  TrialEvent e;
  e.kind = TrialEvent::Kind::kStepStarted;
  e.at_us = ev.sent_us;
  e.trial = ctx_->trial;
  e.session_index = session_index_;
  e.session = session_->label;
  e.step = step.name;
  e.attempt = attempt_;
  ctx_->events->Publish(std::move(e));
  return ev;
}

void Worker::Record(StepEvent ev) {
  TrialEvent e;
  e.kind = TrialEvent::Kind::kStepEnded;
  e.at_us = ctx_->NowUs();
  e.trial = ctx_->trial;
  e.session_index = session_index_;
  e.session = session_->label;
  e.step = ev.step;
  e.attempt = ev.attempt;
  e.ended = std::move(ev);
  ctx_->events->Publish(std::move(e));
}

void Worker::PublishLocks(const PlannedStep& step) {
  if (ctx_->monitor == nullptr || !ctx_->monitor->CanSnapshotLocks()) return;
  TrialEvent e;
  e.kind = TrialEvent::Kind::kLockSnapshot;
  e.trial = ctx_->trial;
  e.session_index = session_index_;
  e.session = session_->label;
  e.step = step.name;
  e.attempt = attempt_;
  Result<LockSnapshot> locks =
      ctx_->monitor->SnapshotLocks(ctx_->DeadlineIn(ctx_->statement_timeout_ms));
  e.at_us = ctx_->NowUs();
  if (locks.ok()) {
    e.locks = std::move(locks.value());
  } else {
    e.message = locks.status().message();
  }
  ctx_->events->Publish(std::move(e));
}

StepEvent Worker::NewEvent(const PlannedStep& step) const {
  StepEvent ev;
  ev.session = session_->label;
  ev.step = step.name;
  ev.kind = step.kind;
  ev.attempt = attempt_;
  ev.sent_us = ctx_->NowUs();
  return ev;
}

void Worker::NoteNextSend(int64_t sent_us) {
  for (auto& m : out_.meetings) {
    if (m.next_sent_us < 0) m.next_sent_us = sent_us;
  }
}

void Worker::RunStep(size_t index, const PlannedStep& step) {
  const bool stopping =
      ctx_->abort.load() || (ctx_->stop != nullptr && ctx_->stop->stop_requested());
  if (step.kind == StepKind::kBarrier) {
    if (barrier_met_[index]) return;  // met on an earlier attempt
    barrier_met_[index] = true;
    StepEvent ev = StartEvent(step);
    if (!failed_) NoteNextSend(ev.sent_us);
    BarrierMeeting meeting{step.barrier, ++barrier_counts_[step.barrier], 0, -1};
    SteadyTime released;
    auto r = ctx_->barriers.at(step.barrier)->ArriveAndWait(ctx_->deadline(), &released);
    ev.completed_us = ctx_->NowUs();
    if (r == Barrier::WaitResult::kReleased) {
      meeting.released_us = ctx_->ToUs(released);
      ev.late_us =
          std::max<int64_t>(0, ev.completed_us - meeting.released_us);  // woke after the release
      out_.meetings.push_back(meeting);  // a failed session never sends again: it adds no skew
    } else if (!failed_) {
      ev.message =
          r == Barrier::WaitResult::kTimedOut ? "barrier deadline passed" : "trial aborted";
      if (r == Barrier::WaitResult::kTimedOut) out_.deadline_exceeded = true;
      if (out_.error.empty())
        out_.error = fmt::format("{}: barrier '{}': {}", session_->label, step.barrier, ev.message);
      Fail(ev);
    }
    Record(std::move(ev));
    return;
  }
  StepEvent ev = StartEvent(step);
  step_thread_delay_ = ThreadRunDelayUs();
  if (failed_ || stopping) {
    ev.skipped = true;
    ev.completed_us = ev.sent_us;
    Unset(step, "was skipped (the session had failed)");
    Record(std::move(ev));
    return;
  }
  NoteNextSend(ev.sent_us);
  if (std::chrono::steady_clock::now() >= ctx_->deadline()) {
    ev.completed_us = ev.sent_us;
    ev.message = "not started: the trial deadline had passed";
    out_.deadline_exceeded = true;
    if (out_.error.empty()) {
      out_.error = fmt::format("{}: the trial passed its deadline ({} ms) before step '{}'",
                               session_->label, ctx_->trial_timeout_ms, step.name);
    }
    Fail(ev);
    Record(std::move(ev));
    return;
  }
  switch (step.kind) {
    case StepKind::kBegin: {
      begin_index_ = index;
      // Its own level and modes (a `begin` with isolation/read_only/deferrable), else the trial's
      // level.
      std::string begin =
          ctx_->engine->BeginSqlWith(step.isolation.value_or(ctx_->item->isolation),
                                     TransactionModes{step.read_only, step.deferrable});
      if (begin.empty()) {
        ev.completed_us = ev.sent_us;
        ev.message =
            fmt::format("{} cannot begin a transaction{}{}{}: it has no such transaction mode",
                        ctx_->engine->name(),
                        step.isolation ? " at " + std::string(IsolationName(*step.isolation)) : "",
                        step.read_only ? " READ ONLY" : "", step.deferrable ? " DEFERRABLE" : "");
        out_.scenario_error = true;
        if (out_.error.empty())
          out_.error = fmt::format("{}: step '{}': {}", session_->label, step.name, ev.message);
        Fail(ev);
        break;
      }
      ExecSql(step, &ev, begin);
      if (ev.sqlstate.empty()) in_txn_ = true;
      break;
    }
    case StepKind::kCommit: {
      QueryResult r = ExecSql(step, &ev, "COMMIT");
      // A COMMIT that fails may leave the transaction open (SQLite: SQLITE_BUSY,
      // lang_transaction.html): then the session still rolls it back.
      in_txn_ = !r.ok() && conn_->in_transaction();
      const bool committed = r.ok() && ctx_->engine->Committed(r);
      out_.session.committed = committed;
      if (r.ok() && !committed) ev.message = "COMMIT answered ROLLBACK: the transaction had failed";
      break;
    }
    case StepKind::kRollback:
      ExecSql(step, &ev, "ROLLBACK");
      in_txn_ = false;
      out_.session.committed = false;
      break;
    case StepKind::kSql: {
      std::optional<bool> run = step.when.empty() ? true : EvalWhen(step, &ev);
      if (!run) break;  // an unset ${capture}: a scenario error, already recorded
      if (!*run) {
        ev.skipped = true;
        ev.rows = 0;  // a step skipped by its when returns no rows (docs/scenario-format.md "when")
        ev.completed_us = ctx_->NowUs();
        errors_[step.name] = "";
        Unset(step, "was skipped (its when was false)");
        break;
      }
      std::string sql, missing;
      if (!Substitute(step.sql, &sql, &missing)) {
        UnsetUsed(step, &ev, missing);
        break;
      }
      ExecSql(step, &ev, sql);
      break;
    }
    case StepKind::kSleep: {
      SteadyTime until =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(step.sleep_ms);
      if (!SleepUntil(std::min(until, ctx_->deadline()), ctx_->stop)) ev.message = "interrupted";
      ev.completed_us = ctx_->NowUs();
      ev.late_us =
          std::max<int64_t>(0, ev.completed_us - ev.sent_us - step.sleep_ms * 1000);  // woke late
      if (until > ctx_->deadline() && ev.message.empty()) {
        ev.message = "cut short by the trial deadline";
        out_.deadline_exceeded = true;
        if (out_.error.empty()) {
          out_.error =
              fmt::format("{}: sleep '{}' ({} ms) reached the trial deadline ({} ms)",
                          session_->label, step.name, step.sleep_ms, ctx_->trial_timeout_ms);
        }
        Fail(ev);
      }
      break;
    }
    case StepKind::kAwaitBlocked: {
      long ms = step.timeout_ms > 0 ? step.timeout_ms : ctx_->statement_timeout_ms;
      const auto& pids = ctx_->role_pids.at(step.target);
      bool seen = ctx_->monitor->AwaitBlocked(pids, ctx_->DeadlineIn(ms), ctx_->stop);
      ev.completed_us = ctx_->NowUs();
      if (!seen) {
        std::string why = ctx_->monitor->error();
        bool trial = std::chrono::steady_clock::now() >= ctx_->deadline();
        ev.message = fmt::format(
            "'{}' was not seen in a lock wait {}{}", step.target,
            trial ? fmt::format("before the trial deadline ({} ms)", ctx_->trial_timeout_ms)
                  : fmt::format("within {} ms", ms),
            why.empty() ? "" : " (" + why + ")");
        out_.deadline_exceeded = why.empty();
        if (out_.error.empty())
          out_.error = fmt::format("{}: await_blocked: {}", session_->label, ev.message);
        Fail(ev);
      }
      break;
    }
    case StepKind::kAwaitEnded:
      AwaitEnded(step, &ev);
      break;
    case StepKind::kTerminate: {
      const std::vector<ConnectionId>& pids = ctx_->role_pids.at(step.target);
      // Recorded before the call: the target's next statement may fail before the call returns.
      for (const ConnectionId& pid : pids) out_.terminated.push_back({pid, ev.sent_us});
      std::string err =
          ctx_->monitor->Terminate(pids, ctx_->DeadlineIn(ctx_->statement_timeout_ms));
      ev.completed_us = ctx_->NowUs();
      if (!err.empty()) {
        ev.message = err;
        if (out_.error.empty())
          out_.error = fmt::format("{}: terminate '{}': {}", session_->label, step.target, err);
      }
      break;
    }
    case StepKind::kProbe:
      RunProbe(step, &ev);
      break;
    case StepKind::kBarrier:
    case StepKind::kProgram:  // an exec session runs RunProgram() instead (worker_program.cc)
      break;
  }
  if (!ev.sqlstate.empty()) HandleError(step, ev);
  Record(std::move(ev));
}

void Worker::AwaitEnded(const PlannedStep& step, StepEvent* ev) {
  const long ms = step.timeout_ms > 0 ? step.timeout_ms : ctx_->statement_timeout_ms;
  const std::vector<ConnectionId>& pids = ctx_->role_pids.at(step.target);
  const EndWait r = ctx_->monitor->AwaitEnded(pids, ctx_->DeadlineIn(ms), ctx_->stop);
  ev->completed_us = ctx_->NowUs();
  if (r.result == EndWait::Result::kEnded) {
    // Woke late by at most the time since the last look that still saw the target: the end itself
    // came when the server chose (the scenario's timeout setting), not racelab.
    ev->late_us = r.last_seen_connected
                      ? std::max<int64_t>(0, ev->completed_us - ctx_->ToUs(*r.last_seen_connected))
                      : 0;
    // The target's lost connection is the behaviour this step awaited, not a fault (faults.h), from
    // the moment the step started waiting for it.
    for (const ConnectionId& pid : pids) out_.terminated.push_back({pid, ev->sent_us});
    return;
  }
  const bool trial = std::chrono::steady_clock::now() >= ctx_->deadline();
  const std::string within =
      trial ? fmt::format("before the trial deadline ({} ms)", ctx_->trial_timeout_ms)
            : fmt::format("within {} ms", ms);
  switch (r.result) {
    case EndWait::Result::kTimedOut:
      ev->message = fmt::format("the server did not end '{}' {} ({} of {} still connected)",
                                step.target, within, r.still_connected, pids.size());
      out_.deadline_exceeded = true;
      break;
    case EndWait::Result::kStopped:
      ev->message = "interrupted";
      break;
    case EndWait::Result::kFailed:
      ev->message =
          fmt::format("cannot see whether the server ended '{}': {}", step.target, r.error);
      break;
    case EndWait::Result::kEnded:
      break;
  }
  if (out_.error.empty())
    out_.error = fmt::format("{}: await_ended: {}", session_->label, ev->message);
  Fail(*ev);
}

QueryResult Worker::ExecSql(const PlannedStep& step, StepEvent* ev, const std::string& sql) {
  long ms = step.timeout_ms > 0 ? step.timeout_ms : ctx_->statement_timeout_ms;
  ev->sql = sql;
  // Lateness (StepEvent::late_us): this thread's run-queue delay from the step's start to the send,
  // then Exec's own on the answer's path, plus the backend's over the whole statement.
  const int64_t thread_at_send = ThreadRunDelayUs();
  const int64_t backend_before = backend_delay_.ReadUs();
  // A step an expect.reads names keeps that many rows (PlannedStep::read_rows), others the first.
  QueryResult r = conn_->Exec(sql, ctx_->DeadlineIn(ms),
                              step.read_rows > 0 ? static_cast<size_t>(step.read_rows) : 1);
  ev->completed_us = ctx_->NowUs();
  const int64_t backend_after = backend_before < 0 ? -1 : backend_delay_.ReadUs();
  const int64_t before_send = thread_at_send >= step_thread_delay_ && step_thread_delay_ >= 0
                                  ? thread_at_send - step_thread_delay_
                                  : 0;
  const int64_t backend =
      backend_after >= backend_before && backend_before >= 0 ? backend_after - backend_before : 0;
  ev->late_us = before_send + std::max<int64_t>(0, r.client_late_us) + backend;
  ev->rows = r.rows;
  ev->sqlstate = r.sqlstate;
  ev->error_code = r.error_code;
  errors_[step.name] = r.ok() ? "" : r.sqlstate.empty() ? "?" : r.sqlstate;
  if (step.read_rows > 0 && r.ok()) {
    std::vector<std::string> rows;  // each row's columns joined by '|', SQL NULL as NULL
    for (const auto& row : r.values) {
      std::string line;
      for (size_t k = 0; k < row.size(); ++k) line += (k > 0 ? "|" : "") + row[k].value_or("NULL");
      rows.push_back(std::move(line));
    }
    ev->read = std::move(rows);
  }
  ev->message = r.ok() ? r.command_tag : r.message;
  ev->detail = r.detail;
  if (step.kind != StepKind::kCommit && r.ok()) ev->message.clear();
  ev->cancelled_by_deadline = r.cancelled_by_deadline;
  // A class 25 error (invalid transaction state) of a step that says `on_error: continue` is what
  // the scenario asked to see, as isolationtester prints it for a spec step (LOCK TABLE outside a
  // transaction block: 25P01): an outcome. Class 42 never is.
  const bool expected_state_error =
      step.on_error == OnError::kContinue && r.sqlstate.rfind("25", 0) == 0;
  if ((ctx_->engine->IsScenarioError(r) && !expected_state_error) || r.refused) {
    out_.scenario_error = true;
    if (out_.error.empty()) {
      out_.error = fmt::format(
          "{}: step '{}' cannot run: {} {} (a bug in the scenario's SQL, not a race outcome)",
          session_->label, step.name, r.sqlstate, r.message);
    }
  }
  if (r.cancelled_by_deadline) {
    out_.deadline_exceeded = true;
    bool stopped = ctx_->stop != nullptr && ctx_->stop->stop_requested();
    bool trial = std::chrono::steady_clock::now() >= ctx_->deadline();
    if (out_.error.empty()) {
      out_.error = stopped ? fmt::format("{}: step '{}' was cancelled: racelab was interrupted",
                                         session_->label, step.name)
                   : trial
                       ? fmt::format("{}: step '{}' was cancelled at the trial deadline ({} ms)",
                                     session_->label, step.name, ctx_->trial_timeout_ms)
                       : fmt::format("{}: step '{}' passed its deadline ({} ms) and was cancelled",
                                     session_->label, step.name, ms);
    }
  }
  rows_[step.name] = r.ok() ? std::max(0L, r.rows) : 0;
  if (step.capture.empty()) return r;
  if (!r.ok()) {
    Unset(step, fmt::format("failed with SQLSTATE {}", r.sqlstate));
    return r;
  }
  for (const auto& col : step.capture) {
    if (std::find(r.columns.begin(), r.columns.end(), col) != r.columns.end()) continue;
    out_.scenario_error = true;  // the step can never capture it: the scenario's fault
    if (out_.error.empty()) {
      out_.error = fmt::format(
          "{}: step '{}' captures '{}' but its result has no such column (columns: {}); "
          "alias one with AS",
          session_->label, step.name, col,
          r.columns.empty() ? "none" : fmt::format("{}", fmt::join(r.columns, ", ")));
    }
    Unset(step, fmt::format("returned no column '{}'", col));
    return r;
  }
  if (r.values.empty()) {
    Unset(step, "returned 0 rows");
    return r;
  }
  for (const auto& col : step.capture) {
    const auto& v =
        r.values[0][std::find(r.columns.begin(), r.columns.end(), col) - r.columns.begin()];
    vars_[col] = v.value_or("NULL");
    unset_.erase(col);
    ev->captured[col] = v.value_or("NULL");
  }
  return r;
}

void Worker::Unset(const PlannedStep& step, const std::string& why) {
  if (step.kind == StepKind::kSql) rows_[step.name] = 0;
  for (const auto& col : step.capture) {
    vars_.erase(col);  // a value from an earlier attempt (retry) must not survive an empty read
    unset_[col] = UnsetCapture{step.name, why};
  }
}

void Worker::UnsetUsed(const PlannedStep& step, StepEvent* ev, const std::string& name) {
  auto it = unset_.find(name);
  std::string why = it == unset_.end()
                        ? "no earlier step captured it"
                        : fmt::format("step '{}' {}", it->second.step, it->second.why);
  std::string guard =
      it == unset_.end()
          ? fmt::format("when: \"defined({})\"", name)
          : fmt::format("when: \"defined({})\" or when: \"rows({}) > 0\"", name, it->second.step);
  ev->completed_us = ctx_->NowUs();
  ev->message = fmt::format("${{{}}} is unset: {}", name, why);
  out_.scenario_error = true;
  if (out_.error.empty()) {
    out_.error = fmt::format(
        "{}: step '{}' in trial {} uses ${{{}}}, which is unset: {} (a scenario error: "
        "guard the step with {})",
        session_->label, step.name, ctx_->trial + 1, name, why, guard);
  }
  Fail(*ev);
}

// Decides what a failed step does next: retry the transaction, go on, or fail the session.
void Worker::HandleError(const PlannedStep& step, const StepEvent& ev) {
  const auto& retry = session_->retry;
  auto listed = [&](const std::string& code) {  // by SQLSTATE or by the engine's own code ("1213")
    return !code.empty() && std::find(retry->on.begin(), retry->on.end(), code) != retry->on.end();
  };
  if (retry && attempt_ < retry->attempts && !ev.cancelled_by_deadline && !ev.sqlstate.empty() &&
      (listed(ev.sqlstate) || listed(ev.error_code))) {
    if (conn_->in_transaction())
      conn_->Exec("ROLLBACK", ctx_->DeadlineIn(ctx_->statement_timeout_ms));
    in_txn_ = false;
    double backoff = retry->initial_ms * std::pow(retry->factor, attempt_ - 1);
    long ms = static_cast<long>(std::min<double>(backoff, static_cast<double>(retry->cap_ms)));
    SleepUntil(ctx_->DeadlineIn(ms), ctx_->stop);
    ++attempt_;
    next_index_ = begin_index_;
    return;
  }
  if (step.on_error == OnError::kContinue && !ev.cancelled_by_deadline) return;
  Fail(ev);
}

void Worker::Fail(const StepEvent& ev) {
  if (!failed_) {
    out_.session.sqlstate = ev.sqlstate;
    out_.session.error_code = ev.error_code;
    out_.session.message = ev.message;
  }
  failed_ = true;
  out_.session.committed = false;
  if (in_txn_ && conn_->in_transaction()) {
    conn_->Exec("ROLLBACK", ctx_->DeadlineIn(ctx_->statement_timeout_ms));
  }
  in_txn_ = false;
}

std::optional<bool> Worker::EvalWhen(const PlannedStep& step, StepEvent* ev) {
  std::string problem;
  std::optional<WhenCondition> c = ParseWhen(step.when, &problem);
  if (!c) {  // the loader checked the syntax: a broken invariant
    throw std::logic_error(
        fmt::format("step '{}': bad condition '{}': {}", step.name, step.when, problem));
  }
  switch (c->kind) {
    case WhenCondition::Kind::kDefined:
      return (vars_.count(c->name) > 0) != c->negated;
    case WhenCondition::Kind::kRows: {
      auto it = rows_.find(c->name);
      return CompareNumbers(it == rows_.end() ? 0.0 : static_cast<double>(it->second), c->op,
                            c->number);
    }
    case WhenCondition::Kind::kSqlstate: {
      auto it = errors_.find(c->name);
      bool equal = it != errors_.end() && it->second == c->literal;
      return c->op == "==" ? equal : !equal;
    }
    case WhenCondition::Kind::kFailed: {
      auto it = errors_.find(c->name);
      return (it != errors_.end() && !it->second.empty()) != c->negated;
    }
    case WhenCondition::Kind::kCompare:
      break;
  }
  auto it = vars_.find(c->name);
  if (it == vars_.end()) return false;  // unset: no comparison holds (like SQL's NULL)
  bool equal = false;
  if (c->is_text) {
    std::string literal, missing;
    if (!Substitute(c->literal, &literal, &missing)) {
      UnsetUsed(step, ev, missing);
      return std::nullopt;
    }
    equal = it->second == literal;
  } else {
    double value = 0;
    const std::string& v = it->second;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    const bool number = ec == std::errc() && ptr == v.data() + v.size();
    // < <= > >= hold only for a capture that is a number; == and != as before.
    if (c->op != "==" && c->op != "!=") return number && CompareNumbers(value, c->op, c->number);
    equal = number && CompareNumbers(value, "==", c->number);
  }
  return c->op == "==" ? equal : !equal;
}

bool Worker::Substitute(const std::string& sql, std::string* out, std::string* missing) const {
  return SubstituteRefs(
      sql,
      [this](const std::string& name) -> std::optional<std::string> {
        auto it = vars_.find(name);
        if (it == vars_.end()) return std::nullopt;
        return it->second;
      },
      out, missing);
}

}  // namespace racelab
