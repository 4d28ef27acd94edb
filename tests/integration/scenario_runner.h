// Test helper: runs a scenario file through the real pipeline (load → plan → run → evaluate)
// against the test server (pg_test_env.h). No mocks: this is what `racelab run` does, minus the
// reporters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/model/summary.h"

namespace racelab::testing {

// Trials per scenario and level in the integration tests (the issues ask for at least 20).
inline constexpr int kTrials = 20;
inline constexpr IsolationLevel kRc = IsolationLevel::kReadCommitted;
inline constexpr IsolationLevel kRr = IsolationLevel::kRepeatableRead;
inline constexpr IsolationLevel kSer = IsolationLevel::kSerializable;

struct ScenarioRun {
  std::vector<PlanItem> items;         // kept alive: summaries point into it
  std::vector<ResultSummary> results;  // one per isolation level
  std::string error;                   // load/plan error, if any
};

// Runs scenarios/<name>.yaml (or a path) at `levels` (empty: all three) with parameter overrides.
ScenarioRun RunScenario(const std::string& name_or_path, int trials,
                        const std::map<std::string, std::string>& set = {},
                        const std::vector<IsolationLevel>& levels = {});

// The result at `level`; throws std::runtime_error (failing the test) when that level did not run.
const ResultSummary& At(const ScenarioRun& run, IsolationLevel level);

// Asserts that the run loaded, ran exactly `levels` isolation levels, and that every result passed
// every expectation in all `trials` trials — and has expectations at all.
void ExpectAllPass(const ScenarioRun& run, int trials, size_t levels = 3);

// The longest blocked time of any statement seen in a lock wait, less the lateness the machine
// added to that wait (harness/eval/lateness.h), in ms: what an upper time bound is judged on, so
// that the tests' own bounds, like the scenarios', cannot be broken by load.
double MaxBlockedMsLessLateness(const ResultSummary& summary);

// "trial 3: winners = 2; …" for every failed check of every non-passing trial (for assertion text).
std::string Failures(const ResultSummary& summary);

}  // namespace racelab::testing
