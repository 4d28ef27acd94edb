// Checks of outcomes that a plain count cannot state (stage 4; called by EvaluateTrial,
// evaluator.h):
//   - `errors` (issue 11 item 3): which sessions' step — or session — failed with a SQLSTATE, a
//   primary
//     message and a DETAIL;
//   - `one_of` (issue 11 item 4b): a trial holds one of several outcomes; which one held is
//   recorded in
//     TrialVerdict::alternatives_held and folded into ResultSummary::alternative_trials;
//   - `min_fraction` of a one_of alternative (item 4c): the least share of trials in which it must
//   hold,
//     judged over the whole result (AlternativeFractionTallies).
// docs/scenario-format.md "Errors of a step or a session" and "Outcomes that vary between trials".
//
// Patterns: `message` and `detail` are ECMAScript regular expressions (std::regex), searched
// anywhere in the first 1024 bytes of the server's text, case-sensitive: `pivot` matches "… as a
// pivot, during commit attempt."; anchor with ^ and $ for the whole text
// (harness/model/error_pattern.h: compiled so that no pattern takes exponential time). A message or
// DETAIL is never copied into a check's text or detail beyond what the reports already show: the
// primary message (events[].message) may appear in a failure's detail, the DETAIL never (it may
// hold row values: "Key (id)=(1) already exists"). Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/summary.h"
#include "harness/model/trial_result.h"

namespace racelab {

// One check per `errors` entry of `expect`, appended to *checks, e.g. text
// "errors: t2/commit failed with 40001, DETAIL matching /pivot/: sessions = 1", detail on failure
// "sessions = 0 [t2: commit failed with 40001 'could not serialize access …', DETAIL not
// matching]".
void CheckErrors(const PlanItem& item, const PlannedExpect& expect, const TrialResult& r,
                 std::vector<Check>* checks);

// The `one_of` check of item.expect (nothing when it has none): one check that holds when any
// alternative's checks all hold. *held gets the 0-based indexes of the alternatives that held, in
// order. Each alternative is judged as EvaluateTrial judges an expect of its own, on the same
// trial; its final values are its own slice of r.finals (AllFinalQueries order).
void CheckOneOf(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks,
                std::vector<int>* held);

// The result-level tallies of the alternatives that ask for a min_fraction: text "one_of 'NAME'
// held in
// >= 90% of trials", passed = trials it held, failed = the others, min_fraction set (so Failing()
// is passed < min_fraction × trials). `alternative_trials[i]` counts the trials alternative i held.
std::vector<ExpectationTally> AlternativeFractionTallies(const PlanItem& item,
                                                         const std::vector<int>& alternative_trials,
                                                         int trials);

}  // namespace racelab
