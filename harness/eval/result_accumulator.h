// ResultAccumulator: one PlanItem's trials folded into a ResultSummary one trial at a time (stage
// 4), so a run's memory does not grow with its trials: only the aggregates (histograms, tallies,
// the blocked-time and skew samples) and the trials `--details` keeps are held.
//
// What is kept (DetailsPolicy, `racelab run --details`):
//   kAll    every trial (the reports' trial_details hold all of them; memory grows with trials);
//   kFailed the first kMaxFailedTrialsKept trials that did not pass, plus the representative trial
//           (the first failing trial, else the first that recorded a lock wait, else the first);
//   kNone   no trial: reports carry aggregates only, and no timeline.
// The aggregates are the same whatever the policy; a summary made with kAll equals Summarize().
// Thread-safety: one accumulator is used from one thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/summary.h"

namespace racelab {

enum class DetailsPolicy { kNone, kFailed, kAll };

// At most this many failing trials per result are kept under kFailed (the rest are counted in
// ResultSummary::trial_details_omitted; their failures are in the expectation tallies).
inline constexpr int kMaxFailedTrialsKept = 10;

// "none" | "failed" | "all"; nullopt for anything else.
std::optional<DetailsPolicy> ParseDetailsPolicy(std::string_view text);
const char* DetailsPolicyName(DetailsPolicy policy);

class ResultAccumulator {
 public:
  // REQUIRES: `item` outlives the accumulator and the summary it makes.
  ResultAccumulator(const PlanItem& item, DetailsPolicy policy);

  // Folds in one evaluated trial (trials in run order).
  void Add(TrialVerdict trial);

  // The summary so far. `item_error` (non-empty when the item stopped early) makes the verdict
  // `error`. Leaves the accumulator empty (call once).
  ResultSummary Finish(const std::string& item_error);

  // The summary of an item a stop request (SIGINT/SIGTERM) cut short: `why` goes to
  // ResultSummary::interrupted, and the verdict is the trials' — error or fail when a trial that
  // ran was, else `interrupted` (never pass: not every planned trial ran). Leaves the accumulator
  // empty.
  ResultSummary FinishInterrupted(const std::string& why);

 private:
  const PlanItem& item_;
  DetailsPolicy policy_;
  ResultSummary summary_;
  std::vector<double> blocked_ms_;
  std::vector<double> skew_us_;
  bool any_fail_ = false;
  bool any_error_ = false;
  bool interrupted_ = false;  // FinishInterrupted: a stop request ended the item early
  int failing_kept_ = 0;
  // The representative so far, while it is not one of the kept failing trials: the first trial with
  // a lock wait, else the first trial. It becomes a kept trial at Finish (kFailed) when no trial
  // failed.
  std::optional<TrialVerdict> candidate_;
  bool candidate_waited_ = false;
  bool have_failure_ = false;       // the representative is the first failing trial
  int representative_number_ = -1;  // TrialResult::index of the representative, -1 before any trial
};

}  // namespace racelab
