// Test helper: runs a scenario file through the real pipeline (load → plan → run → evaluate) against
// the test server (pg_test_env.h). No mocks: this is what `racelab run` does, minus the reporters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/model/summary.h"

namespace racelab::testing {

struct ScenarioRun {
  std::vector<PlanItem> items;         // kept alive: summaries point into it
  std::vector<ResultSummary> results;  // one per isolation level
  std::string error;                   // load/plan error, if any
};

// Runs scenarios/<name>.yaml (or a path) at `levels` (empty: all three) with parameter overrides.
ScenarioRun RunScenario(const std::string& name_or_path, int trials,
                        const std::map<std::string, std::string>& set = {},
                        const std::vector<IsolationLevel>& levels = {});

// "trial 3: winners = 2; …" for every failed check of every non-passing trial (for assertion text).
std::string Failures(const ResultSummary& summary);

}  // namespace racelab::testing
