// Planner: Scenario x isolation levels x parameters -> PlanItems (stage 2). Never connects.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/model/plan.h"
#include "harness/model/scenario.h"
#include "harness/model/status.h"

namespace racelab {

struct PlanOptions {
  // The engine the plan is for: the scenario as read for it (Scenario::ForEngine). Empty: the
  // scenario's first engine. kUsage when the scenario does not run on it (callers that run a
  // catalogue skip such scenarios with a note first).
  std::string engine;
  std::vector<IsolationLevel> isolation;  // empty: the scenario's own `isolation` list
  int trials = 20;
  std::map<std::string, std::string>
      set;  // --set k=v; keys the scenario does not declare are ignored
  // The run's --trial-timeout-ms: a step that waits longer (sleep_ms, await_blocked timeout_ms, a
  // retry's first backoff) cannot end within a trial, so it is a plan error, not a 2-hour run.
  long trial_timeout_ms = 120000;
};

// One PlanItem per isolation level, in the order given. Errors (kUsage) start with the --set values
// involved, then "FILE:LINE:COL: FIELD: …" (e.g. count evaluates to 0, a non-integer, a negative
// sleep, a sleep longer than the trial deadline, more than limits::kMaxSessionInstances sessions, a
// text longer than limits::kMaxSubstitutedBytes once params are substituted).
Result<std::vector<PlanItem>> ExpandScenario(const Scenario& scenario, const PlanOptions& options);

}  // namespace racelab
