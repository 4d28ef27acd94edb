#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/eval/evaluator.h"

namespace racelab {

Percentiles ComputePercentiles(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, k == 0 ? 0 : k - 1)];
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.max = values.back();
  return p;
}

ResultSummary Summarize(const PlanItem& item, std::vector<TrialVerdict> trials,
                        const std::string& item_error) {
  ResultSummary s;
  s.item = &item;
  s.trials = static_cast<int>(trials.size());
  std::vector<double> blocked, skew;
  bool any_fail = false, any_error = false;
  for (const auto& t : trials) {
    int winners = static_cast<int>(std::count_if(t.result.sessions.begin(), t.result.sessions.end(),
                                                 [](const SessionResult& r) { return r.won; }));
    ++s.winners[winners];
    for (const auto& ev : t.result.events) {
      if (!ev.sqlstate.empty()) ++s.sqlstates[ev.sqlstate];
      if (ev.lock_wait) blocked.push_back(ev.blocked_ms());
    }
    for (const auto& sr : t.result.sessions) s.retries += sr.attempts - 1;
    for (const auto& b : t.result.barriers) skew.push_back(static_cast<double>(b.skew_us));
    for (size_t i = 0; i < t.checks.size(); ++i) {
      if (s.expectations.size() <= i) {
        ExpectationTally fresh;
        fresh.text = t.checks[i].text;
        s.expectations.push_back(std::move(fresh));
      }
      auto& tally = s.expectations[i];
      tally.max_widened_by_ms = std::max(tally.max_widened_by_ms, t.checks[i].widened_by_ms);
      if (t.checks[i].passed) {
        ++tally.passed;
      } else {
        ++tally.failed;
        if (tally.first_failure.empty()) {
          tally.first_failure = fmt::format("trial {}: {}", t.result.index + 1, t.checks[i].detail);
        }
      }
    }
    any_fail = any_fail || t.verdict == Verdict::kFail;
    any_error = any_error || t.verdict == Verdict::kError;
    if (t.verdict == Verdict::kError && s.error.empty()) {
      s.error = fmt::format("trial {}: {}", t.result.index + 1, t.result.error);
    }
  }
  s.blocked_ms = ComputePercentiles(std::move(blocked));
  s.skew_us = ComputePercentiles(std::move(skew));
  if (!item_error.empty()) {
    any_error = true;
    if (s.error.empty()) s.error = item_error;
  }
  s.verdict = any_error ? Verdict::kError : any_fail ? Verdict::kFail : Verdict::kPass;
  auto first_bad = std::find_if(trials.begin(), trials.end(),
                                [](const TrialVerdict& t) { return t.verdict != Verdict::kPass; });
  // When every trial passed, the first that recorded a lock wait: the timeline then shows the wait
  // the lesson is about (in naive-select-then-update the second UPDATE waits in only some trials).
  auto first_wait = std::find_if(trials.begin(), trials.end(), [](const TrialVerdict& t) {
    return std::any_of(t.result.events.begin(), t.result.events.end(),
                       [](const StepEvent& e) { return e.lock_wait; });
  });
  const auto representative = first_bad != trials.end() ? first_bad : first_wait;
  s.representative_trial = representative == trials.end() ? 0 : static_cast<int>(representative - trials.begin());
  s.trial_details = std::move(trials);
  return s;
}

}  // namespace racelab
