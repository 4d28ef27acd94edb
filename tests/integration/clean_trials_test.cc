// Issue 6 item 4 on a real PostgreSQL (the embedded cluster): every trial starts with clean sessions
// (nothing of trial N is visible in trial N+1).
// Each leaked-state fixture passes its first trial on any code; the later trials are the test.
#include <gtest/gtest.h>

#include <string>

#include "tests/integration/scenario_runner.h"

namespace racelab::testing {
namespace {

constexpr int kLeakTrials = 5;

std::string Fixture(const std::string& file) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/clean_trials/" + file;
}

// The events of `label`/`step` in every trial, one per trial (fails the test otherwise).
std::vector<const StepEvent*> EveryTrial(const ResultSummary& r, const std::string& label,
                                         const std::string& step) {
  std::vector<const StepEvent*> out;
  for (const auto& t : r.trial_details) {
    const StepEvent* found = nullptr;
    for (const auto& e : t.result.events) {
      if (e.session == label && e.step == step) found = &e;
    }
    EXPECT_NE(found, nullptr) << label << "/" << step << " in trial " << t.result.index + 1;
    if (found != nullptr) out.push_back(found);
  }
  return out;
}

TEST(SessionReset, SessionAdvisoryLockIsReleasedBetweenTrials) {
  ScenarioRun run = RunScenario(Fixture("leak_advisory_lock.yaml"), kLeakTrials, {}, {kRc});
  ExpectAllPass(run, kLeakTrials, 1);
  if (run.results.size() != 1) return;
  // Lock 1 was free at the start of every trial, and b saw it taken only after a took it.
  for (const StepEvent* e : EveryTrial(run.results[0], "b", "before")) EXPECT_EQ(e->rows, 1) << e->sql;
  for (const StepEvent* e : EveryTrial(run.results[0], "b", "try")) {
    EXPECT_EQ(e->rows, 1) << "pg_try_advisory_lock(1) answered t";
    EXPECT_EQ(e->sqlstate, "");
  }
}

TEST(SessionReset, SetInOneTrialDoesNotApplyInTheNextAndSettingsAreReapplied) {
  ScenarioRun run = RunScenario(Fixture("leak_settings.yaml"), kLeakTrials, {}, {kRc});
  ExpectAllPass(run, kLeakTrials, 1);
  if (run.results.size() != 1) return;
  for (const char* label : {"holder", "waiter"}) {
    for (const StepEvent* e : EveryTrial(run.results[0], label, "fresh")) EXPECT_EQ(e->rows, 1) << label;
  }
  // The waiter's UPDATE waited for the holder's commit and succeeded: no 55P03 from a leaked 50 ms.
  for (const StepEvent* e : EveryTrial(run.results[0], "waiter", "touch")) {
    EXPECT_EQ(e->sqlstate, "") << e->message;
    EXPECT_TRUE(e->lock_wait);
  }
}

TEST(SessionReset, TempTablePreparedStatementAndHeldCursorDoNotOutliveTheTrial) {
  ScenarioRun run = RunScenario(Fixture("leak_session_objects.yaml"), kLeakTrials, {}, {kRc});
  ExpectAllPass(run, kLeakTrials, 1);
  if (run.results.size() != 1) return;
  for (const auto& t : run.results[0].trial_details) {
    EXPECT_TRUE(t.result.error.empty()) << "trial " << t.result.index + 1 << ": " << t.result.error;
    EXPECT_FALSE(t.result.scenario_error);
    for (const auto& e : t.result.events) EXPECT_EQ(e.sqlstate, "") << e.step << ": " << e.message;
  }
}

}  // namespace
}  // namespace racelab::testing
