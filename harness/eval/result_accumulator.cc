#include "harness/eval/result_accumulator.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/eval/evaluator.h"
#include "harness/eval/outcome_checks.h"
#include "harness/model/error_key.h"

namespace racelab {

std::optional<DetailsPolicy> ParseDetailsPolicy(std::string_view text) {
  if (text == "none") return DetailsPolicy::kNone;
  if (text == "failed") return DetailsPolicy::kFailed;
  if (text == "all") return DetailsPolicy::kAll;
  return std::nullopt;
}

const char* DetailsPolicyName(DetailsPolicy policy) {
  return policy == DetailsPolicy::kNone     ? "none"
         : policy == DetailsPolicy::kFailed ? "failed"
                                            : "all";
}

ResultAccumulator::ResultAccumulator(const PlanItem& item, DetailsPolicy policy)
    : item_(item), policy_(policy) {
  summary_.item = &item;
}

void ResultAccumulator::Add(TrialVerdict t) {
  ResultSummary& s = summary_;
  const int position = s.trials++;
  s.duration_us += t.result.duration_us;
  int winners = static_cast<int>(std::count_if(t.result.sessions.begin(), t.result.sessions.end(),
                                               [](const SessionResult& r) { return r.won; }));
  ++s.winners[winners];
  bool waited = false;
  for (const auto& ev : t.result.events) {
    if (!ev.sqlstate.empty()) {
      ++s.sqlstates[ev.sqlstate];
      ++s.errors[ErrorKey(ev.sqlstate, ev.error_code)];
    }
    if (ev.lock_wait) {
      blocked_ms_.push_back(ev.blocked_ms());
      waited = true;
    }
  }
  for (const auto& sr : t.result.sessions) s.retries += sr.attempts - 1;
  s.alternative_trials.resize(item_.expect.one_of.size());
  for (int held : t.alternatives_held) ++s.alternative_trials.at(static_cast<size_t>(held));
  for (const auto& b : t.result.barriers) {
    skew_us_.push_back(static_cast<double>(b.skew_us));
    if (!b.simultaneous) ++s.releases_not_simultaneous;
  }
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
  const bool failing = t.verdict != Verdict::kPass;
  any_fail_ = any_fail_ || t.verdict == Verdict::kFail;
  any_error_ = any_error_ || t.verdict == Verdict::kError;
  if (t.verdict == Verdict::kError && s.error.empty()) {
    s.error = fmt::format("trial {}: {}", t.result.index + 1, t.result.error);
  }

  // The representative: the first failing trial, else the first with a lock wait, else the first.
  bool is_representative = false;
  if (!have_failure_ && failing) {
    have_failure_ = true;
    is_representative = true;
  } else if (!have_failure_ && !candidate_waited_ && (waited || representative_number_ < 0)) {
    candidate_waited_ = waited;
    is_representative = true;
  }
  if (is_representative) {
    representative_number_ = t.result.index;
    if (policy_ == DetailsPolicy::kAll) s.representative_trial = position;
  }

  switch (policy_) {
    case DetailsPolicy::kAll:
      s.trial_details.push_back(std::move(t));
      break;
    case DetailsPolicy::kFailed:
      if (failing && failing_kept_ < kMaxFailedTrialsKept) {
        ++failing_kept_;
        s.trial_details.push_back(std::move(t));
        candidate_.reset();  // the first failing trial is the representative now
      } else if (is_representative && !failing) {
        candidate_ = std::move(t);
      }
      break;
    case DetailsPolicy::kNone:
      break;
  }
}

ResultSummary ResultAccumulator::Finish(const std::string& item_error) {
  ResultSummary s = std::move(summary_);
  summary_ = ResultSummary{};
  summary_.item = &item_;
  s.blocked_ms = ComputePercentiles(std::move(blocked_ms_));
  s.skew_us = ComputePercentiles(std::move(skew_us_));
  // one_of alternatives with a min_fraction: judged over the result, so they are tallies of their
  // own.
  for (ExpectationTally& tally :
       AlternativeFractionTallies(item_, s.alternative_trials, s.trials)) {
    any_fail_ = any_fail_ || tally.Failing();
    s.expectations.push_back(std::move(tally));
  }
  if (!item_error.empty()) {
    any_error_ = true;
    if (s.error.empty()) s.error = item_error;
  }
  s.verdict = any_error_     ? Verdict::kError
              : any_fail_    ? Verdict::kFail
              : interrupted_ ? Verdict::kInterrupted
                             : Verdict::kPass;
  if (policy_ == DetailsPolicy::kFailed) {
    // Without a failing trial the candidate is the representative; with one, the first kept trial
    // is.
    if (candidate_) s.trial_details.push_back(std::move(*candidate_));
    candidate_.reset();
    s.representative_trial = 0;
  }
  if (policy_ == DetailsPolicy::kNone) s.representative_trial = 0;
  s.trial_details_omitted = s.trials - static_cast<int>(s.trial_details.size());
  return s;
}

ResultSummary ResultAccumulator::FinishInterrupted(const std::string& why) {
  interrupted_ = true;
  ResultSummary s = Finish("");
  s.interrupted = why;
  interrupted_ = false;
  return s;
}

}  // namespace racelab
