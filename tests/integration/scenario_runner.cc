#include "tests/integration/scenario_runner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "harness/eval/lateness.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/pipeline/pipeline.h"
#include "tests/integration/pg_test_env.h"

namespace racelab::testing {

ScenarioRun RunScenario(const std::string& name_or_path, int trials,
                        const std::map<std::string, std::string>& set,
                        const std::vector<IsolationLevel>& levels) {
  ScenarioRun run;
  std::string path = std::filesystem::exists(name_or_path)
                         ? name_or_path
                         : std::string(RACELAB_SOURCE_DIR) + "/scenarios/" + name_or_path + ".yaml";
  auto scenario = LoadScenarioFile(path);
  if (!scenario.ok()) {
    run.error = scenario.status().message();
    return run;
  }
  PlanOptions po;
  po.trials = trials;
  po.set = set;
  po.isolation = levels.empty() ? AllIsolationLevels() : levels;
  auto items = ExpandScenario(*scenario, po);
  if (!items.ok()) {
    run.error = items.status().message();
    return run;
  }
  run.items = std::move(items.value());
  std::unique_ptr<Engine> engine = TestEngine();
  if (!engine) {
    run.error = "the test engine could not be opened";
    return run;
  }
  RunOptions ro;
  ro.engine = engine.get();
  ro.statement_timeout_ms = 20000;
  ro.trial_timeout_ms = 60000;
  run.results = RunItems(run.items, ro).results;
  return run;
}

double MaxBlockedMsLessLateness(const ResultSummary& summary) {
  double worst = 0;
  for (const auto& t : summary.trial_details) {
    for (const auto& ev : t.result.events) {
      if (!ev.lock_wait) continue;
      worst = std::max(worst, ev.blocked_ms() - MeasuredLateness(t.result, ev).total_us() / 1000.0);
    }
  }
  return worst;
}

const ResultSummary& At(const ScenarioRun& run, IsolationLevel level) {
  for (const auto& r : run.results) {
    if (r.item->isolation == level) return r;
  }
  throw std::runtime_error("level not run: " + std::string(IsolationName(level)));
}

void ExpectAllPass(const ScenarioRun& run, int trials, size_t levels) {
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), levels);
  for (const auto& r : run.results) {
    EXPECT_EQ(r.trials, trials) << r.item->scenario;
    EXPECT_FALSE(r.expectations.empty()) << "a scenario without expectations checks nothing";
    EXPECT_EQ(r.verdict, Verdict::kPass)
        << r.item->scenario << " @ " << IsolationName(r.item->isolation) << ": " << Failures(r);
  }
}

std::string Failures(const ResultSummary& summary) {
  std::string out = summary.error.empty() ? "" : "error: " + summary.error + "; ";
  for (const auto& e : summary.expectations) {
    if (e.Failing())
      out +=
          fmt::format("[{}] failed in {} trial(s), first {}; ", e.text, e.failed, e.first_failure);
  }
  return out;
}

}  // namespace racelab::testing
