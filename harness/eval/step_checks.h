// Checks on single steps of a trial, as EvaluateTrial (evaluator.h) makes them, in its order:
// `blocked` (lock waits, their length, blocker, k of N instances, wait event), `timing` (a step's
// length, or how soon after another session's step it answered) and `probe` steps (what racelab's
// control connection read between a session's steps). Issue 11 items 9 and 10a;
// docs/scenario-format.md "Expect" and "Timing bounds on a busy machine".
//
// Every check text depends only on the PlanItem, never on the trial (so checks count across
// trials); upper time bounds carry their per-trial widening in Check::widened_by_ms (lateness.h).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/summary.h"
#include "harness/model/trial_result.h"

namespace racelab::internal {

// The last executed (not skipped) event of `step` in session `label`, or nullptr. Only the
// session's last transaction attempt counts: a step that ran in an attempt that was retried
// (`retry`) is void.
const StepEvent* LastRun(const TrialResult& r, const std::string& label, const std::string& step);
// The last event of `step` in session `label`'s last attempt, skipped or not, or nullptr.
const StepEvent* LastEvent(const TrialResult& r, const std::string& label, const std::string& step);

// "12.345" (ms with 3 decimals).
std::string MsText(double ms);

// A `min_ms` on `ev`'s own time (send to answer) as judged in this trial: lowered by the waiter's
// measured late start (LateStartUs, lateness.h), never below what was measured — and not at all in
// an ordered item (`order:`), where the gap before a step is its wait for its turn, the scenario's
// time. LowerBoundText says it: "237.500 ms", or "237.500 ms - 171.000 ms measured late start".
double LowerBoundMs(const PlanItem& item, double min_ms, const TrialResult& r, const StepEvent& ev);
std::string LowerBoundText(const PlanItem& item, double min_ms, const TrialResult& r,
                           const StepEvent& ev);

// Appends a check; `detail` is kept only when it failed.
void AddCheck(std::vector<Check>* checks, std::string text, bool passed, std::string detail);

// True when a recorded wait_event is `want`: equal, or `want` followed by ':' (SQLite's busy
// handler records "busy: 3 retries, acquired", which `wait_event: busy` matches).
bool WaitEventIs(const std::string& recorded, const std::string& want);

// expect.blocked (blocked_checks.cc).
void CheckBlocked(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks);
// expect.timing (timing_checks.cc).
void CheckTiming(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks);
// Every probe step of every role (probe_checks.cc): each instance that ran it read exactly its
// `equals`, and at least one ran it.
void CheckProbes(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks);

}  // namespace racelab::internal
