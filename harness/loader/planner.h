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
  std::vector<IsolationLevel> isolation;      // empty: the scenario's own `isolation` list
  int trials = 20;
  std::map<std::string, std::string> set;     // --set k=v; keys the scenario does not declare are ignored
};

// One PlanItem per isolation level, in the order given. Errors (kUsage) name the scenario file and the
// expression that failed (e.g. count evaluates to 0, a non-integer, or a negative sleep).
Result<std::vector<PlanItem>> ExpandScenario(const Scenario& scenario, const PlanOptions& options);

}  // namespace racelab
