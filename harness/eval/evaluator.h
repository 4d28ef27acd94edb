// Trial evaluation (EvaluateTrial): a trial's TrialResult + the PlanItem's outcome/expectations ->
// verdicts (stage 4). Aggregation of a PlanItem's trials into a ResultSummary lives in aggregate.h.
//
// Checks come in a fixed order with texts that do not depend on the trial, so they can be counted
// across trials: winners, each listed SQLSTATE, "no other SQLSTATE", distinct claims, lock waits,
// step rows, blocked times, reads, final values, errors, one_of (harness/eval/outcome_checks.h).
// Counts may be bounds (CountRange: "winners >= 1 and <= 2"). A trial with a harness error is
// `error` whatever its checks. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/summary.h"
#include "harness/model/trial_result.h"

namespace racelab {

// Fills SessionResult::won and ::claim from PlanItem::outcome, then checks PlanItem::expect.
TrialVerdict EvaluateTrial(const PlanItem& item, TrialResult result);

// The texts of the checks EvaluateTrial makes for `item`, in its order — they do not depend on the
// trial, so this is exactly what will be checked (`racelab explain` prints it per level).
std::vector<std::string> CheckTexts(const PlanItem& item);

// p50/p95/max by nearest rank (p95 of 20 values is the 19th smallest).
Percentiles ComputePercentiles(std::vector<double> values);

// Aggregates one PlanItem's trials. `item_error` (non-empty when the item stopped early) makes the
// verdict `error`. REQUIRES: `item` outlives the summary.
ResultSummary Summarize(const PlanItem& item, std::vector<TrialVerdict> trials,
                        const std::string& item_error);

}  // namespace racelab
