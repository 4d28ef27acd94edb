// Ordered scenarios on the real server (issue 11 items 5–8): `order:` permutations run through the
// normal runner, each step starting once the one before it ended or its session is seen waiting — on a
// row lock (a blocked UPDATE) or, not a lock, on a safe snapshot (a DEFERRABLE read); `begin` with its
// own level, READ ONLY and DEFERRABLE.
#include <gtest/gtest.h>

#include <string>

#include "tests/integration/scenario_runner.h"

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
    EXPECT_EQ(r.verdict, Verdict::kPass) << IsolationName(r.item->isolation) << " " << OrderOf(r) << ": "
                                         << Failures(r);
  }
  EXPECT_EQ(OrderOf(run.results[1]), "a.begin b.begin a.read b.read a.write b.write a.commit b.commit");
}

TEST(Order, ADeferrableReadWaitsForASafeSnapshotAndTheOrderSeesIt) {
  ScenarioRun run = RunScenario(Fixture("deferrable-waits"), kOrderTrials, {}, {kRc});
  ExpectAllPass(run, kOrderTrials, 1);
}

}  // namespace
}  // namespace racelab::testing
