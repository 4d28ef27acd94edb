#include "harness/eval/evaluator.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace racelab {
namespace {

// The last executed (not skipped) event of `step` in session `label`, or nullptr. Only the session's
// last transaction attempt counts: a step that ran in an attempt that was retried (`retry`) is void.
const StepEvent* LastRun(const TrialResult& r, const std::string& label, const std::string& step) {
  int last_attempt = 1;
  for (const auto& ev : r.events) {
    if (ev.session == label) last_attempt = std::max(last_attempt, ev.attempt);
  }
  const StepEvent* found = nullptr;
  for (const auto& ev : r.events) {
    if (ev.session == label && ev.attempt == last_attempt && ev.step == step && !ev.skipped) found = &ev;
  }
  return found;
}

std::string FormatMs(double ms) { return fmt::format("{:.3f}", ms); }

void Add(std::vector<Check>* checks, std::string text, bool passed, std::string detail) {
  checks->push_back(Check{std::move(text), passed, passed ? "" : std::move(detail)});
}

void CheckSqlstates(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  if (!item.expect.sqlstates) return;
  std::map<std::string, long> seen;
  for (const auto& ev : r.events) {
    if (!ev.sqlstate.empty()) ++seen[ev.sqlstate];
  }
  for (const auto& [code, want] : *item.expect.sqlstates) {
    long got = seen.count(code) ? seen[code] : 0;
    Add(checks, fmt::format("SQLSTATE {} count = {}", code, want), got == want,
        fmt::format("SQLSTATE {} count = {}", code, got));
  }
  std::string others;
  for (const auto& [code, n] : seen) {
    if (item.expect.sqlstates->count(code) == 0) {
      others += fmt::format("{}{}×{}", others.empty() ? "" : ", ", code, n);
    }
  }
  Add(checks, "no other SQLSTATE", others.empty(), "saw " + others);
}

void CheckBlocked(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  for (const auto& b : item.expect.blocked) {
    std::string where = b.session + "/" + b.step;
    std::string range = b.min_ms && b.max_ms ? fmt::format("in [{}, {}] ms", FormatMs(*b.min_ms), FormatMs(*b.max_ms))
                        : b.min_ms ? fmt::format(">= {} ms", FormatMs(*b.min_ms))
                                   : fmt::format("<= {} ms", FormatMs(b.max_ms.value_or(0)));
    bool ok = true, by_ok = true;
    std::string detail, by_detail;
    for (const auto& s : item.sessions) {
      if (s.role != b.session) continue;
      const StepEvent* ev = LastRun(r, s.label, b.step);
      double ms = ev != nullptr ? ev->blocked_ms() : 0.0;
      bool this_ok = ev != nullptr && (!b.min_ms || (ev->lock_wait && ms >= *b.min_ms)) &&
                     (!b.max_ms || ms <= *b.max_ms);
      if (!this_ok) {
        ok = false;
        if (detail.empty()) {
          detail = ev == nullptr ? fmt::format("{}/{} did not run", s.label, b.step)
                   : !ev->lock_wait ? fmt::format("{}/{} was not seen in a lock wait ({} ms elapsed)",
                                                  s.label, b.step, FormatMs((ev->completed_us - ev->sent_us) / 1000.0))
                                    : fmt::format("{}/{} blocked {} ms", s.label, b.step, FormatMs(ms));
        }
      }
      if (!b.by.empty()) {
        bool by_seen = ev != nullptr && std::any_of(ev->blocked_by.begin(), ev->blocked_by.end(),
                                                    [&](const std::string& l) {
                                                      return l == b.by || l.rfind(b.by + ".", 0) == 0;
                                                    });
        if (!by_seen && by_ok) {
          by_ok = false;
          by_detail = fmt::format("{}/{} blockers seen: [{}]", s.label, b.step,
                                  ev ? fmt::format("{}", fmt::join(ev->blocked_by, ", ")) : "");
        }
      }
    }
    Add(checks, fmt::format("blocked time of {} {}", where, range), ok, detail);
    if (!b.by.empty()) Add(checks, fmt::format("{} waited on a lock held by {}", where, b.by), by_ok, by_detail);
  }
}

}  // namespace

TrialVerdict EvaluateTrial(const PlanItem& item, TrialResult result) {
  TrialVerdict v;
  const auto& oc = item.outcome;
  int winners = 0;
  std::vector<std::string> winner_labels;
  for (auto& s : result.sessions) {
    if (!oc.win_step.empty()) {
      const StepEvent* ev = LastRun(result, s.label, oc.win_step);
      s.won = ev != nullptr && ev->sqlstate.empty() && ev->rows == oc.win_rows &&
              (!oc.win_committed || s.committed);
    }
    if (!oc.claim_step.empty()) {
      const StepEvent* ev = LastRun(result, s.label, oc.claim_step);
      if (ev != nullptr && ev->captured.count(oc.claim_column)) s.claim = ev->captured.at(oc.claim_column);
      if (!s.won && !oc.win_step.empty()) s.claim.reset();  // only a winner's claim counts
    }
    if (s.won) {
      ++winners;
      winner_labels.push_back(s.label);
    }
  }
  const auto& ex = item.expect;
  auto& checks = v.checks;
  if (ex.winners) {
    Add(&checks, fmt::format("winners = {}", *ex.winners), winners == *ex.winners,
        fmt::format("winners = {} [{}]", winners, fmt::join(winner_labels, ", ")));
  }
  CheckSqlstates(item, result, &checks);
  if (ex.distinct_claims.value_or(false)) {
    std::map<std::string, std::string> by_claim;
    std::string dup;
    for (const auto& s : result.sessions) {
      if (!s.claim) continue;
      auto [it, fresh] = by_claim.emplace(*s.claim, s.label);
      if (!fresh && dup.empty()) dup = fmt::format("{} and {} both claimed {}", it->second, s.label, *s.claim);
    }
    Add(&checks, "claims are distinct", dup.empty(), dup);
  }
  if (ex.lock_waits) {
    std::vector<std::string> waited;  // which statements, so a surprise can be diagnosed
    for (const auto& e : result.events) {
      if (e.lock_wait) waited.push_back(fmt::format("{}/{} ({})", e.session, e.step, e.wait_event));
    }
    long waits = static_cast<long>(waited.size());
    Add(&checks, fmt::format("statements seen in a lock wait = {}", *ex.lock_waits), waits == *ex.lock_waits,
        fmt::format("statements seen in a lock wait = {} [{}]", waits, fmt::join(waited, ", ")));
  }
  for (const auto& sr : ex.step_rows) {
    long n = 0;
    for (const auto& s : result.sessions) {
      const StepEvent* ev = LastRun(result, s.label, sr.step);
      if (ev != nullptr && ev->sqlstate.empty() && ev->rows == sr.rows) ++n;
    }
    Add(&checks, fmt::format("sessions whose {} returned {} rows = {}", sr.step, sr.rows, sr.sessions),
        n == sr.sessions, fmt::format("sessions whose {} returned {} rows = {}", sr.step, sr.rows, n));
  }
  CheckBlocked(item, result, &checks);
  for (size_t i = 0; i < ex.final.size(); ++i) {
    const auto& f = ex.final[i];
    const FinalValue* got = i < result.finals.size() ? &result.finals[i] : nullptr;
    std::string seen = got == nullptr ? "not run" : !got->error.empty() ? "error: " + got->error
                                                  : got->value ? "'" + *got->value + "'" : "NULL";
    bool ok = got != nullptr && got->error.empty() &&
              (f.equals == "NULL" ? !got->value : got->value && *got->value == f.equals);
    Add(&checks, fmt::format("final: {} returns '{}'", f.sql, f.equals), ok,
        fmt::format("final: {} returned {}", f.sql, seen));
  }
  bool all = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed; });
  v.verdict = !result.error.empty() || result.deadline_exceeded ? Verdict::kError
              : all                                              ? Verdict::kPass
                                                                 : Verdict::kFail;
  v.result = std::move(result);
  return v;
}

}  // namespace racelab
