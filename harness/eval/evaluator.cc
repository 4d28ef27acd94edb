#include "harness/eval/evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness/eval/outcome_checks.h"
#include "harness/eval/step_checks.h"
#include "harness/model/error_key.h"

namespace racelab {
namespace {

using internal::LastEvent;
using internal::LastRun;
using internal::MsText;

void Add(std::vector<Check>* checks, std::string text, bool passed, std::string detail) {
  checks->push_back(Check{std::move(text), passed, passed ? "" : std::move(detail)});
}

void CheckSqlstates(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  if (!item.expect.sqlstates) return;
  // A failed statement counts under its engine code ("1213") when the expectation lists that code,
  // else under its SQLSTATE (docs/scenario-format.md "Errors by the engine's own code").
  std::map<std::string, long> seen;
  for (const auto& ev : r.events) {
    if (ev.sqlstate.empty()) continue;
    bool by_code = !ev.error_code.empty() && item.expect.sqlstates->count(ev.error_code) != 0;
    bool by_state = item.expect.sqlstates->count(ev.sqlstate) != 0;
    // An error the expectation names neither way is shown as the reports count it (error_key.h).
    ++seen[by_code ? ev.error_code : by_state ? ev.sqlstate : ErrorKey(ev.sqlstate, ev.error_code)];
  }
  for (const auto& [code, want] : *item.expect.sqlstates) {
    long got = seen.count(code) ? seen[code] : 0;
    Add(checks, fmt::format("SQLSTATE {} count {}", code, want.Text()), want.Holds(got),
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

// A final's any_of values as a check text states them: 'a', 'b', NULL (or no row).
std::string FinalValues(const std::vector<std::string>& values) {
  std::vector<std::string> quoted;
  for (const std::string& v : values)
    quoted.push_back(v == "NULL" ? "NULL (or no row)" : "'" + v + "'");
  return fmt::format("{}", fmt::join(quoted, ", "));
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
      if (ev != nullptr && ev->captured.count(oc.claim_column))
        s.claim = ev->captured.at(oc.claim_column);
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
    Add(&checks, fmt::format("winners {}", ex.winners->Text()), ex.winners->Holds(winners),
        fmt::format("winners = {} [{}]", winners, fmt::join(winner_labels, ", ")));
  }
  CheckSqlstates(item, result, &checks);
  if (ex.distinct_claims.value_or(false)) {
    std::map<std::string, std::string> by_claim;
    std::string dup;
    for (const auto& s : result.sessions) {
      if (!s.claim) continue;
      auto [it, fresh] = by_claim.emplace(*s.claim, s.label);
      if (!fresh && dup.empty())
        dup = fmt::format("{} and {} both claimed {}", it->second, s.label, *s.claim);
    }
    // Only winners' claims count when the outcome names a winning step (see the loop above).
    Add(&checks, oc.win_step.empty() ? "claims are distinct" : "winners' claims are distinct",
        dup.empty(), dup);
  }
  if (ex.lock_waits) {
    std::vector<std::string> waited;  // which statements, so a surprise can be diagnosed
    for (const auto& e : result.events) {
      if (e.lock_wait) waited.push_back(fmt::format("{}/{} ({})", e.session, e.step, e.wait_event));
    }
    long waits = static_cast<long>(waited.size());
    Add(&checks, fmt::format("statements seen in a lock wait {}", ex.lock_waits->Text()),
        ex.lock_waits->Holds(waits),
        fmt::format("statements seen in a lock wait = {} [{}]", waits, fmt::join(waited, ", ")));
  }
  for (const auto& sr : ex.step_rows) {
    if (!sr.sqlstate
             .empty()) {  // the SQLSTATE of that step, not of any statement (issue 11 item 3)
      long failed = 0;
      for (const auto& s : result.sessions) {
        const StepEvent* ev = LastRun(result, s.label, sr.step);
        if (ev != nullptr && (ev->sqlstate == sr.sqlstate || ev->error_code == sr.sqlstate))
          ++failed;
      }
      Add(&checks,
          fmt::format("sessions whose {} failed with {} {}", sr.step, sr.sqlstate,
                      sr.sessions.Text()),
          sr.sessions.Holds(failed),
          fmt::format("sessions whose {} failed with {} = {}", sr.step, sr.sqlstate, failed));
      continue;
    }
    long n = 0;
    for (const auto& s : result.sessions) {
      // A last run skipped by its when returned no rows (rows 0), as rows(STEP) says; one skipped
      // because its session had failed did not run (rows -1) and returned nothing to count.
      const StepEvent* ev = LastEvent(result, s.label, sr.step);
      if (ev != nullptr && ev->skipped && ev->rows < 0) ev = LastRun(result, s.label, sr.step);
      if (ev != nullptr && ev->sqlstate.empty() && ev->rows == sr.rows) ++n;
    }
    Add(&checks,
        fmt::format("sessions whose {} returned {} rows {}", sr.step, sr.rows, sr.sessions.Text()),
        sr.sessions.Holds(n),
        fmt::format("sessions whose {} returned {} rows = {}", sr.step, sr.rows, n));
  }
  internal::CheckBlocked(item, result, &checks);
  internal::CheckTiming(item, result, &checks);
  for (const auto& read : ex.reads) {
    // Every session (of read.session, or any) that ran the step read exactly these rows.
    std::string want = fmt::format("[{}]", fmt::join(read.equals, ", "));
    std::vector<std::string> wrong;
    int ran = 0;
    for (const auto& s : result.sessions) {
      if (!read.session.empty() && s.role != read.session) continue;
      const StepEvent* ev = LastRun(result, s.label, read.step);
      if (ev == nullptr) continue;
      ++ran;
      if (!ev->sqlstate.empty()) {
        wrong.push_back(fmt::format("{} failed with {}", s.label, ev->sqlstate));
      } else if (!ev->read || *ev->read != read.equals) {
        wrong.push_back(fmt::format(
            "{} read [{}]", s.label,
            ev->read ? fmt::format("{}", fmt::join(*ev->read, ", ")) : std::string("nothing")));
      }
    }
    std::string who = read.session.empty() ? "" : read.session + " ";
    Add(&checks, fmt::format("{}{} reads {}", who, read.step, want), ran > 0 && wrong.empty(),
        ran == 0 ? fmt::format("{}{} did not run", who, read.step)
                 : fmt::format("{}", fmt::join(wrong, "; ")));
  }
  internal::CheckProbes(item, result, &checks);
  for (size_t i = 0; i < ex.final.size(); ++i) {
    const auto& f = ex.final[i];
    const FinalValue* got = i < result.finals.size() ? &result.finals[i] : nullptr;
    std::string seen = got == nullptr        ? "not run"
                       : !got->error.empty() ? "error: " + got->error
                       : got->value          ? "'" + *got->value + "'"
                                             : "NULL";
    // equals: NULL matches SQL NULL or no row at all (PlannedFinal), not the text 'NULL'; any_of:
    // any of its values, each as equals.
    auto matches = [&](const std::string& want) {
      return want == "NULL" ? !got->value : got->value && *got->value == want;
    };
    bool ok = got != nullptr && got->error.empty() &&
              (f.any_of.empty() ? matches(f.equals)
                                : std::any_of(f.any_of.begin(), f.any_of.end(), matches));
    std::string text =
        !f.any_of.empty() ? fmt::format("final: {} returns one of {}", f.sql, FinalValues(f.any_of))
        : f.equals == "NULL" ? fmt::format("final: {} returns NULL or no row", f.sql)
                             : fmt::format("final: {} returns '{}'", f.sql, f.equals);
    Add(&checks, std::move(text), ok, fmt::format("final: {} returned {}", f.sql, seen));
  }
  CheckErrors(item, ex, result, &checks);
  CheckOneOf(item, result, &checks, &v.alternatives_held);
  bool all = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed; });
  v.verdict = !result.error.empty() || result.deadline_exceeded ? Verdict::kError
              : all                                             ? Verdict::kPass
                                                                : Verdict::kFail;
  v.result = std::move(result);
  return v;
}

std::vector<std::string> CheckTexts(const PlanItem& item) {
  std::vector<std::string> texts;
  for (const Check& c : EvaluateTrial(item, TrialResult{}).checks) texts.push_back(c.text);
  return texts;
}

}  // namespace racelab
