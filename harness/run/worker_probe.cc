// Worker::RunProbe: a `probe` step — a query on racelab's control connection between this session's
// steps, asserting what another transaction can see at that moment (issue 11 item 10a;
// docs/scenario-format.md "`probe`: what another transaction sees, mid-history").
//
// Thread-safety: the control connection belongs to the runner thread, which leaves it alone while
// the workers run (runner.cc starts them, then only joins); probes of different sessions take turns
// on it under TrialContext::control_mutex. Neither the wait for the mutex nor the query can pass
// the probe's deadline (its timeout_ms, else the statement deadline, never past the trial's): the
// query is then cancelled (Session::Exec) and the trial is an error naming the probe.
#include <fmt/format.h>

#include "harness/run/worker.h"

namespace racelab {
namespace {

// Each row's columns joined by '|', SQL NULL as NULL (as StepEvent::read).
std::vector<std::string> JoinedRows(const QueryResult& r) {
  std::vector<std::string> rows;
  for (const auto& row : r.values) {
    std::string line;
    for (size_t k = 0; k < row.size(); ++k) line += (k > 0 ? "|" : "") + row[k].value_or("NULL");
    rows.push_back(std::move(line));
  }
  return rows;
}

}  // namespace

void Worker::RunProbe(const PlannedStep& step, StepEvent* ev) {
  std::string sql, missing;
  if (!Substitute(step.sql, &sql, &missing)) {
    UnsetUsed(step, ev, missing);
    return;
  }
  ev->sql = sql;
  const long ms = step.timeout_ms > 0 ? step.timeout_ms : ctx_->statement_timeout_ms;
  const SteadyTime deadline = ctx_->DeadlineIn(ms);
  const bool trial_deadline = deadline == ctx_->deadline();
  auto fail_at_deadline = [&](const std::string& what) {
    ev->completed_us = ctx_->NowUs();
    ev->message = what;
    out_.deadline_exceeded = true;
    if (out_.error.empty())
      out_.error = fmt::format("{}: probe '{}' {}", session_->label, step.name, what);
    Fail(*ev);
  };
  std::unique_lock<std::timed_mutex> turn(ctx_->control_mutex, std::defer_lock);
  if (ctx_->control == nullptr || !turn.try_lock_until(deadline)) {
    fail_at_deadline(fmt::format(
        "could not start within {}: another session's probe held racelab's control "
        "connection",
        trial_deadline ? fmt::format("the trial deadline ({} ms)", ctx_->trial_timeout_ms)
                       : fmt::format("{} ms", ms)));
    return;
  }
  if (!control_delay_) {
    control_delay_ = std::make_unique<ProcessRunDelay>(
        ctx_->control->local_backend() ? static_cast<int>(ctx_->control->session_id()) : 0);
  }
  // Lateness as ExecSql counts it, with the control connection's backend in place of the session's.
  const int64_t thread_at_send = ThreadRunDelayUs();
  const int64_t backend_before = control_delay_->ReadUs();
  QueryResult r = ctx_->control->Exec(sql, deadline,
                                      static_cast<size_t>(step.read_rows > 0 ? step.read_rows : 1));
  ev->completed_us = ctx_->NowUs();
  const int64_t backend_after = backend_before < 0 ? -1 : control_delay_->ReadUs();
  turn.unlock();
  const int64_t before_send = thread_at_send >= step_thread_delay_ && step_thread_delay_ >= 0
                                  ? thread_at_send - step_thread_delay_
                                  : 0;
  const int64_t backend =
      backend_after >= backend_before && backend_before >= 0 ? backend_after - backend_before : 0;
  ev->late_us = before_send + std::max<int64_t>(0, r.client_late_us) + backend;
  ev->rows = r.rows;
  if (r.ok()) {
    ev->read = JoinedRows(r);
    return;
  }
  // A probe's error is not the race's: it fails the probe's check (ev->message), not
  // expect.sqlstates.
  const std::string code = r.sqlstate.empty() ? r.error_code : r.sqlstate;
  if (r.cancelled_by_deadline) {
    bool stopped = ctx_->stop != nullptr && ctx_->stop->stop_requested();
    fail_at_deadline(
        stopped ? "was cancelled: racelab was interrupted"
        : trial_deadline
            ? fmt::format(
                  "was cancelled at the trial deadline ({} ms) on racelab's control connection",
                  ctx_->trial_timeout_ms)
            : fmt::format("passed its deadline ({} ms) on racelab's control connection and was "
                          "cancelled (did it wait on a lock a session holds?)",
                          ms));
    return;
  }
  ev->message = fmt::format("probe failed: {} {}", code, r.message);
  if (ctx_->engine->IsScenarioError(r) || r.refused) {
    out_.scenario_error = true;
    if (out_.error.empty()) {
      out_.error = fmt::format(
          "{}: probe '{}' cannot run: {} {} (a bug in the scenario's SQL, not a race outcome)",
          session_->label, step.name, code, r.message);
    }
  }
}

}  // namespace racelab
