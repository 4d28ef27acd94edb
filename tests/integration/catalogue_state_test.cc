// The state-machine part of the catalogue (issue 3: run-state-machine, versioned-cas,
// execution-token) on a real PostgreSQL (the embedded cluster). Every expectation of every scenario
// holds in every one of 20 trials at each isolation level, and each test also asserts, from the
// trial events and the final values rather than from the YAML's own checks, the outcome the issue
// states — so that a weakened scenario file cannot pass unnoticed.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tests/integration/scenario_runner.h"

namespace racelab::testing {
namespace {

int Count(const std::map<int, int>& m, int key) { return m.count(key) ? m.at(key) : 0; }
int Count(const std::map<std::string, int>& m, const std::string& key) {
  return m.count(key) ? m.at(key) : 0;
}

// Events of one trial that ran (not skipped), succeeded and match `pred`.
int RanOk(const TrialResult& t, const std::function<bool(const StepEvent&)>& pred) {
  int n = 0;
  for (const auto& ev : t.events) {
    if (!ev.skipped && ev.sqlstate.empty() && pred(ev)) ++n;
  }
  return n;
}

// In every trial: exactly one session ran `effect_step` successfully, and it is the trial's winner.
void ExpectOnlyWinnerRan(const ResultSummary& r, const std::string& effect_step) {
  for (const auto& tv : r.trial_details) {
    const auto& t = tv.result;
    std::string winner;
    for (const auto& s : t.sessions) {
      if (s.won) winner = s.label;
    }
    EXPECT_EQ(RanOk(t, [&](const StepEvent& e) { return e.step == effect_step; }), 1)
        << IsolationName(r.item->isolation) << " trial " << t.index << ": " << effect_step;
    EXPECT_EQ(
        RanOk(t, [&](const StepEvent& e) { return e.step == effect_step && e.session == winner; }),
        1)
        << IsolationName(r.item->isolation) << " trial " << t.index << ": " << effect_step << " by "
        << winner;
  }
}

// In every trial, the i-th final query returned `want`.
void ExpectFinal(const ResultSummary& r, size_t i, const std::string& want) {
  for (const auto& tv : r.trial_details) {
    ASSERT_GT(tv.result.finals.size(), i);
    EXPECT_EQ(tv.result.finals[i].value.value_or("NULL"), want)
        << IsolationName(r.item->isolation) << " trial " << tv.result.index << ": "
        << tv.result.finals[i].sql;
  }
}

// Read committed: losers see 0 rows, no error. Repeatable read / serializable: each loser gets
// 40001.
void ExpectLosers(const ScenarioRun& run, const std::string& step, int losers) {
  const auto& rc = At(run, kRc);
  EXPECT_TRUE(rc.sqlstates.empty());
  for (const auto& tv : rc.trial_details) {
    EXPECT_EQ(RanOk(tv.result, [&](const StepEvent& e) { return e.step == step && e.rows == 0; }),
              losers)
        << "read committed trial " << tv.result.index;
  }
  for (auto level : {kRr, kSer}) {
    const auto& r = At(run, level);
    EXPECT_EQ(Count(r.sqlstates, "40001"), losers * kTrials) << IsolationName(level);
    EXPECT_EQ(r.sqlstates.size(), 1u) << IsolationName(level) << ": only 40001";
  }
}

TEST(CatalogueState, RunStateMachineOneTerminalTransitionWins) {
  ScenarioRun run = RunScenario("run-state-machine", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  for (const auto& r : run.results) {
    EXPECT_EQ(Count(r.winners, 1), kTrials) << IsolationName(r.item->isolation);
    ExpectOnlyWinnerRan(r, "record");  // only the winner records its transition
    ExpectFinal(r, 0, "1");            // one run_events row
    ExpectFinal(r, 1, "t");            // and it matches the run's status
  }
  ExpectLosers(run, "transition", 2);
}

TEST(CatalogueState, RunStateTerminalNothingMovesASucceededRun) {
  ScenarioRun run = RunScenario("run-state-terminal", kTrials);
  ExpectAllPass(run, kTrials);
  for (const auto& r : run.results) {
    EXPECT_TRUE(r.sqlstates.empty()) << IsolationName(r.item->isolation);
    EXPECT_EQ(r.blocked_ms.count, 0u);
    for (const auto& tv : r.trial_details) {
      for (const char* step : {"succeed_again", "fail_late", "cancel_late", "claim_late"}) {
        EXPECT_EQ(
            RanOk(tv.result, [&](const StepEvent& e) { return e.step == step && e.rows == 0; }), 1)
            << IsolationName(r.item->isolation) << " trial " << tv.result.index << ": " << step;
      }
    }
    ExpectFinal(r, 0, "succeeded");
    ExpectFinal(r, 1, "1");
  }
}

TEST(CatalogueState, AttemptsReadModifyWriteLosesAnIncrementAtReadCommitted) {
  ScenarioRun run = RunScenario("run-state-attempts-rmw", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  // Read committed: both report 1 row and commit, yet attempts = 1 — the lost update, silently.
  const auto& rc = At(run, kRc);
  EXPECT_EQ(Count(rc.winners, 2), kTrials);
  EXPECT_TRUE(rc.sqlstates.empty());
  ExpectFinal(rc, 0, "1");
  // Above it the second write fails with 40001, is retried, and both attempts count.
  for (auto level : {kRr, kSer}) {
    const auto& r = At(run, level);
    EXPECT_EQ(Count(r.sqlstates, "40001"), kTrials) << IsolationName(level);
    ExpectFinal(r, 0, "2");
    for (const auto& tv : r.trial_details) {
      int retried = 0;
      for (const auto& s : tv.result.sessions) retried += s.attempts == 2 ? 1 : 0;
      EXPECT_EQ(retried, 1) << IsolationName(level) << " trial " << tv.result.index;
    }
  }
}

TEST(CatalogueState, AttemptsReadModifyWriteWithFourWorkersKeepsOne) {
  ScenarioRun run = RunScenario("run-state-attempts-rmw", kTrials, {{"workers", "4"}}, {kRc});
  ExpectAllPass(run, kTrials, 1);
  if (run.results.size() != 1) return;
  EXPECT_EQ(Count(run.results[0].winners, 4), kTrials);
  ExpectFinal(run.results[0], 0, "1");  // three of four increments lost
}

TEST(CatalogueState, AttemptsAtomicIncrementCountsEveryAttempt) {
  ScenarioRun run = RunScenario("run-state-attempts-atomic", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  for (const auto& r : run.results) ExpectFinal(r, 0, "2");
  EXPECT_TRUE(At(run, kRc).sqlstates.empty());
  // Even the in-statement increment gets 40001 above read committed: the retry is what recovers it.
  EXPECT_EQ(Count(At(run, kRr).sqlstates, "40001"), kTrials);
  EXPECT_EQ(Count(At(run, kSer).sqlstates, "40001"), kTrials);
}

TEST(CatalogueState, VersionedCasSameVersionExactlyOneWins) {
  ScenarioRun run = RunScenario("versioned-cas", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  for (const auto& r : run.results) {
    EXPECT_EQ(Count(r.winners, 1), kTrials) << IsolationName(r.item->isolation);
    ExpectOnlyWinnerRan(r, "record");  // 0 rows is never reported as success
    ExpectFinal(r, 0, "2");
    ExpectFinal(r, 1, "1");
  }
  ExpectLosers(run, "write", 1);
}

TEST(CatalogueState, VersionedCasVersionOnlyLetsCreatedToPaidThrough) {
  ScenarioRun run = RunScenario("versioned-cas-version-only", kTrials);
  ExpectAllPass(run, kTrials);
  for (const auto& r : run.results) {
    EXPECT_EQ(Count(r.winners, 1), kTrials);
    EXPECT_TRUE(r.sqlstates.empty());
    ExpectFinal(r, 0, "paid");  // the illegal jump happened
  }
}

TEST(CatalogueState, VersionedCasEdgeGuardRejectsIllegalAndStaleWrites) {
  ScenarioRun run = RunScenario("versioned-cas-edge-guard", kTrials);
  ExpectAllPass(run, kTrials);
  for (const auto& r : run.results) {
    EXPECT_TRUE(r.sqlstates.empty()) << IsolationName(r.item->isolation);
    for (const auto& tv : r.trial_details) {
      const auto& t = tv.result;
      EXPECT_EQ(RanOk(t, [](const StepEvent& e) { return e.step == "jump" && e.rows == 0; }), 1);
      EXPECT_EQ(RanOk(t, [](const StepEvent& e) { return e.step == "stale" && e.rows == 0; }), 1);
      EXPECT_EQ(RanOk(t, [](const StepEvent& e) { return e.step == "pay" && e.rows == 1; }), 1);
    }
    ExpectFinal(r, 0, "paid v3");
  }
}

TEST(CatalogueState, ExecutionTokenApproveOneWinnerIssuesTheToken) {
  ScenarioRun run = RunScenario("execution-token-approve", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  for (const auto& r : run.results) {
    EXPECT_EQ(Count(r.winners, 1), kTrials) << IsolationName(r.item->isolation);
    ExpectOnlyWinnerRan(r, "issue");
    ExpectFinal(r, 0, "approved issued");
    ExpectFinal(r, 1, "t");  // issued by the backend that approved
  }
  ExpectLosers(run, "approve", 1);
}

TEST(CatalogueState, ExecutionTokenConsumeOneExecutionAndReplayDoesNothing) {
  ScenarioRun run = RunScenario("execution-token-consume", kTrials);
  ExpectAllPass(run, kTrials);
  if (run.results.size() != 3) return;
  for (const auto& r : run.results) {
    EXPECT_EQ(Count(r.winners, 1), kTrials) << IsolationName(r.item->isolation);
    ExpectOnlyWinnerRan(r, "settle");  // the loser never settles
    for (const auto& tv : r.trial_details) {
      EXPECT_EQ(
          RanOk(tv.result, [](const StepEvent& e) { return e.step == "replay" && e.rows == 0; }),
          1);
      EXPECT_EQ(RanOk(tv.result, [](const StepEvent& e) { return e.step == "replay_settle"; }), 0);
    }
    ExpectFinal(r, 1, "1");  // one token_usage row
  }
  ExpectLosers(run, "consume", 1);
}

TEST(CatalogueState, ExecutionTokenApproveWithThreeApprovers) {
  ScenarioRun run =
      RunScenario("execution-token-approve", kTrials, {{"approvers", "3"}}, {kRc, kSer});
  ExpectAllPass(run, kTrials, 2);
  if (run.results.size() != 2) return;
  for (const auto& r : run.results) ExpectOnlyWinnerRan(r, "issue");
  EXPECT_EQ(Count(At(run, kSer).sqlstates, "40001"), 2 * kTrials);
}

}  // namespace
}  // namespace racelab::testing
