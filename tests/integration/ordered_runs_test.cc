// Ordered scenarios on the real server (issue 11 items 5–8): `order:` permutations run through the
// normal runner, each step starting once the one before it ended or its session is seen waiting —
// on a row lock (a blocked UPDATE) or, not a lock, on a safe snapshot (a DEFERRABLE read); `begin`
// with its own level, READ ONLY and DEFERRABLE.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/integration/scenario_runner.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/order/" + name + ".yaml";
}

std::string OrderOf(const ResultSummary& r) {
  for (const auto& [name, value] : r.item->params) {
    if (name == "order") return value;
  }
  return "";
}

// Trials per result: every trial forces its order, so a few show that it holds each time.
constexpr int kOrderTrials = 10;

TEST(Order, EachPermutationRunsInItsOrderAndChecksItsOwnExpectations) {
  ScenarioRun run = RunScenario(Fixture("lost-update-two-orders"), kOrderTrials, {}, {kRc, kRr});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 4u);  // 2 levels x 2 permutations
  for (const ResultSummary& r : run.results) {
    EXPECT_EQ(r.trials, kOrderTrials);
    EXPECT_EQ(r.verdict, Verdict::kPass)
        << IsolationName(r.item->isolation) << " " << OrderOf(r) << ": " << Failures(r);
  }
  EXPECT_EQ(OrderOf(run.results[1]),
            "a.begin b.begin a.read b.read a.write b.write a.commit b.commit");
}

TEST(Order, ADeferrableReadWaitsForASafeSnapshotAndTheOrderSeesIt) {
  ScenarioRun run = RunScenario(Fixture("deferrable-waits"), kOrderTrials, {}, {kRc});
  ExpectAllPass(run, kOrderTrials, 1);
}

// `racelab explain` names each permutation's checks as the reports name its results (order=…).
TEST(Order, ExplainNamesThePermutationOfEachCheckList) {
  ProcessResult r = RunProcess({RACELAB_BINARY, "explain", Fixture("lost-update-two-orders")},
                               std::chrono::seconds(30));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find(
          "  at read committed with order=a.begin a.read a.write a.commit b.begin b.read b.write "
          "b.commit:\n    no other SQLSTATE\n    a read reads [0]\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(
          "  at repeatable read with order=a.begin b.begin a.read b.read a.write b.write a.commit "
          "b.commit:\n    SQLSTATE 40001 count = 1\n"),
      std::string::npos)
      << r.out;
}

// The markers change which step waits for which, so each permutation writes its rows in its own
// order: unmarked the next step waits for b's 0.5 s sleep to end; (*) lets it start at once;
// a.one(b.slow) holds a.two until b.slow ended; a step listed twice runs twice.
TEST(Order, MarkersAndARepeatedStepDecideTheOrderRowsAreWritten) {
  ScenarioRun run = RunScenario(Fixture("markers"), 3, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 4u);
  for (const ResultSummary& r : run.results) {
    EXPECT_EQ(r.trials, 3);
    EXPECT_EQ(r.verdict, Verdict::kPass) << OrderOf(r) << ": " << Failures(r);
  }
  EXPECT_EQ(OrderOf(run.results[2]), "b.slow(*) a.one(b.slow) a.two");
}

// A timeout per step (isolationtester users' ask, issue 11): `timeout_ms` on a statement cancels it
// at that deadline — the trial is an error naming the step, in well under the 30 s run deadline.
TEST(Order, AStepPastItsOwnTimeoutIsCancelledAndTheTrialIsAnError) {
  const auto t0 = std::chrono::steady_clock::now();
  ScenarioRun run = RunScenario(Fixture("step-timeout"), 1, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  EXPECT_EQ(run.results[0].verdict, Verdict::kError);
  EXPECT_NE(
      run.results[0].error.find("b: step 'slow' passed its deadline (300 ms) and was cancelled"),
      std::string::npos)
      << run.results[0].error;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(4));
}

// A hand-over past the waiting step's timeout_ms ends the trial then (docs/scenario-format.md
// "Every wait has a deadline"): the error names both steps and a's hour-long statement is
// cancelled, not left to the run's 30 s statement deadline.
TEST(Order, AHandOverPastTheNextStepsTimeoutEndsTheTrialNamingBothSteps) {
  const auto t0 = std::chrono::steady_clock::now();
  ScenarioRun run = RunScenario(Fixture("order-timeout"), 1, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  EXPECT_EQ(run.results[0].verdict, Verdict::kError);
  EXPECT_NE(run.results[0].error.find(
                "b: step 'next': order: a/slow neither ended nor was seen waiting within 600 ms"),
            std::string::npos)
      << run.results[0].error;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
}

// An order that cannot go on: b.commit is next, but b's session is still in b.write, waiting on the
// row lock a.write holds, which only a.commit — after b.commit in the order — releases. At
// a.commit's deadline the error names the step still waiting, not only b.commit, which never
// started.
TEST(Order, AnOrderThatCannotGoOnNamesTheStepStillWaiting) {
  const auto t0 = std::chrono::steady_clock::now();
  ScenarioRun run = RunScenario(Fixture("infeasible"), 1, {}, {kRc});
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  EXPECT_EQ(run.results[0].verdict, Verdict::kError);
  EXPECT_NE(run.results[0].error.find(
                "a: step 'commit': order: b/commit never started within 800 ms: b/write "
                "before it in session b is still waiting (seen waiting on a lock) — no "
                "step before b/commit in the order ended that wait, so the order could "
                "not go on"),
            std::string::npos)
      << run.results[0].error;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
}

}  // namespace
}  // namespace racelab::testing
