// racelab bench's workload model, arrival schedule, accounting and driver (harness/workload/) on
// the scripted FakeEngine (tests/unit/fake/): scheduling and counting only, no database semantics —
// what a real server does under the workload is tests/integration/bench_test.cc.
#include <gtest/gtest.h>

#include <thread>

#include "harness/eval/evaluator.h"
#include "harness/workload/arrival.h"
#include "harness/workload/driver.h"
#include "harness/workload/repeats.h"
#include "harness/workload/tally.h"
#include "harness/workload/workload_item.h"
#include "tests/unit/fake/fake_run.h"

namespace racelab::workload {
namespace {

using std::chrono::milliseconds;

// Two workers claim with a forced interleaving (a barrier) and retry 40001 twice.
constexpr char kClaim[] = R"(name: fake-claim
title: Two workers claim
teaches: Counting only.
setup: CREATE TABLE t (k int)
params: { workers: 2 }
outcome:
  win: { step: claim, rows: 1, committed: true }
  claim: { step: claim, column: id }
expect: { winners: 1 }
sessions:
  - name: worker
    count: ${workers}
    retry: { sqlstates: ["40001"], attempts: 3, initial_ms: 1, factor: 1, cap_ms: 1 }
    steps:
      - begin
      - { sql: "SELECT 1", name: snapshot }
      - barrier: go
      - { sql: "UPDATE t SET k = 1 RETURNING id", name: claim, capture: [id] }
      - commit
)";

PlanItem ClaimItem() {
  auto items = fake::PlanText(kClaim);
  EXPECT_EQ(items.size(), 1u);
  return items.empty() ? PlanItem{} : items.front();
}

TEST(WorkloadItemTest, DropsBarriersAndAwaitBlockedAndSaysSo) {
  PlanItem item = ClaimItem();
  EXPECT_EQ(DroppedSteps(item), "barrier go");
  PlannedStep await;
  await.kind = StepKind::kAwaitBlocked;
  await.name = "wait";
  await.target = "worker";
  ASSERT_FALSE(item.sessions.empty());
  item.sessions[0].steps.insert(item.sessions[0].steps.end() - 1, await);
  EXPECT_EQ(DroppedSteps(item), "barrier go; await_blocked");
  auto w = WorkloadItem(item);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w.value().sessions.size(), 2u);
  std::vector<std::string> kinds;
  for (const PlannedStep& s : w.value().sessions[0].steps) kinds.push_back(s.name);
  EXPECT_EQ(kinds, (std::vector<std::string>{"begin1", "snapshot", "claim", "commit5"}));
}

TEST(WorkloadItemTest, TwoWinnersOfOneClaimValueAreADoubleClaimDistinctOnesAreNot) {
  const PlanItem item = ClaimItem();
  std::vector<SessionResult> s(3);
  for (auto& r : s) r.won = true;
  s[0].claim = "1";
  s[1].claim = "1";
  s[2].claim = "2";
  ClaimCheck c = CheckClaims(item, s);
  EXPECT_TRUE(c.applies);
  EXPECT_EQ(c.winners, 3);
  EXPECT_EQ(c.double_claims, 1);
  s[1].claim = "3";
  EXPECT_EQ(CheckClaims(item, s).double_claims, 0);
  // Without a claim column the round has one unit of work: every winner past the first doubles it.
  PlanItem no_column = item;
  no_column.outcome.claim_step.clear();
  EXPECT_EQ(CheckClaims(no_column, s).double_claims, 2);
  PlanItem no_outcome = item;
  no_outcome.outcome.win_step.clear();
  EXPECT_FALSE(CheckClaims(no_outcome, s).applies);
}

StepEvent Ev(const std::string& session, const std::string& step, int attempt, int64_t sent,
             int64_t done, const std::string& sqlstate = "") {
  StepEvent e;
  e.session = session;
  e.step = step;
  e.attempt = attempt;
  e.sent_us = sent;
  e.completed_us = done;
  e.sqlstate = sqlstate;
  return e;
}

// worker.1 commits and wins at its first attempt; worker.2 fails 40001 twice, then commits.
TrialVerdict Round() {
  TrialVerdict v;
  v.result.events = {
      Ev("worker.1", "begin", 1, 100, 110),          Ev("worker.1", "claim", 1, 110, 400),
      Ev("worker.1", "commit", 1, 400, 500),         Ev("worker.2", "begin", 1, 120, 130),
      Ev("worker.2", "claim", 1, 130, 600, "40001"), Ev("worker.2", "claim", 2, 700, 900, "40001"),
      Ev("worker.2", "claim", 3, 1000, 1100),        Ev("worker.2", "commit", 3, 1100, 1200)};
  v.result.events[4].lock_wait = true;
  v.result.events[4].lock_wait_us = 2000;
  v.result.sessions.resize(2);
  v.result.sessions[0] = {"worker.1", "worker", true, true, "1", "", "", "", 1};
  v.result.sessions[1] = {"worker.2", "worker", true, false, std::nullopt, "", "", "", 3};
  v.result.finals = {{"SELECT k FROM t", "1", ""}, {"SELECT j FROM t", std::nullopt, ""}};
  return v;
}

TEST(TallyTest, CountsTransactionsAttemptsRetriesByCodeAndAttemptAndLockWaits) {
  const PlanItem item = ClaimItem();
  Tally t(&item);
  t.AddRound(Round(), /*measured=*/false, 0, 0.001, {});  // warmup: nothing counted
  t.AddRound(Round(), true, 1.0, 1.5, {});
  t.AddRound(Round(), true, 1.5, 3.0, {});
  const RunFigures& f = t.figures();
  EXPECT_EQ(f.warmup_rounds, 1);
  EXPECT_EQ(f.rounds, 2);
  EXPECT_DOUBLE_EQ(f.window_s, 2.0);
  EXPECT_EQ(f.transactions, 4);
  EXPECT_EQ(f.attempts, 8);
  EXPECT_EQ(f.committed, 4);
  EXPECT_EQ(f.won, 2);
  EXPECT_DOUBLE_EQ(f.committed_per_s(), 2.0);
  EXPECT_DOUBLE_EQ(f.attempted_per_s(), 4.0);
  EXPECT_EQ(f.errors.at("40001"), 4);
  EXPECT_EQ(f.retries.at("40001"), 4);
  EXPECT_EQ(f.retried_at_attempt.at(1), 2);
  EXPECT_EQ(f.retried_at_attempt.at(2), 2);
  EXPECT_EQ(f.transactions_by_attempts.at(1), 2);
  EXPECT_EQ(f.transactions_by_attempts.at(3), 2);
  EXPECT_EQ(f.lock_waits, 2);
  EXPECT_DOUBLE_EQ(f.lock_wait_ms, 4.0);
  // Closed loop: from the first statement to the last step's end, retries included.
  EXPECT_EQ(f.transaction_us.count(), 4u);
  EXPECT_DOUBLE_EQ(f.transaction_us.min_us(), 400);
  EXPECT_DOUBLE_EQ(f.transaction_us.max_us(), 1080);
  EXPECT_EQ(f.step_us.at("worker/claim").count(), 8u);
  EXPECT_FALSE(f.rounds_double_claimed);
  // The final queries' answers, counted per value over the measured rounds.
  EXPECT_EQ(f.final_values.at("SELECT k FROM t").at("1"), 2);
  EXPECT_EQ(f.final_values.at("SELECT j FROM t").at("NULL"), 2);
}

TEST(TallyTest, OpenLoopLatencyRunsFromTheIntendedStartEvenBeforeTheRound) {
  const PlanItem item = ClaimItem();
  Tally t(&item);
  // worker.1 was due 5 ms before the round began (a backlog), worker.2 at 50 µs.
  t.AddRound(Round(), true, 0, 0.01, {-5000, 50});
  EXPECT_DOUBLE_EQ(t.figures().transaction_us.max_us(), 5500);
  EXPECT_DOUBLE_EQ(t.figures().transaction_us.min_us(), 1150);
}

TEST(TallyTest, ARoundWithAnErrorCountsOnlyAsAnError) {
  const PlanItem item = ClaimItem();
  Tally t(&item);
  TrialVerdict v = Round();
  v.result.error = "trial passed its deadline";
  t.AddRound(v, true, 0, 1, {});
  EXPECT_EQ(t.figures().rounds, 1);
  EXPECT_EQ(t.figures().rounds_error, 1);
  EXPECT_EQ(t.figures().transactions, 0);
  EXPECT_EQ(t.figures().first_error, "trial passed its deadline");
}

TEST(ArrivalTest, TheKthTransactionIsDueAtKOverTheRate) {
  ArrivalSchedule s(4, 100);
  const SteadyTime origin = std::chrono::steady_clock::now();
  s.Start(origin);
  EXPECT_EQ(s.Intended(0, 0), origin);
  EXPECT_EQ(s.Intended(0, 3), origin + milliseconds(30));
  EXPECT_EQ(s.Intended(2, 1), origin + milliseconds(90));
  ArrivalSchedule closed(4, 0);
  closed.Start(origin);
  EXPECT_FALSE(closed.open());
  EXPECT_EQ(closed.Intended(7, 3), origin);
}

TEST(ArrivalTest, TheGateHoldsTheFirstStepUntilItIsDueAndLetsTheRestGo) {
  ArrivalSchedule s(1, 20);  // round 1 is due 50 ms after the origin
  s.Start(std::chrono::steady_clock::now());
  ArrivalGate gate(&s, 1);
  GateLimits limits;
  limits.race_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  GateTurn later;
  later.step_index = 1;
  EXPECT_EQ(gate.AwaitTurn(later, limits).result, GateAnswer::Result::kGo);
  GateTurn first;
  EXPECT_EQ(gate.AwaitTurn(first, limits).result, GateAnswer::Result::kGo);
  EXPECT_GE(std::chrono::steady_clock::now(), s.Intended(1, 0));
  // Due after the deadline: refused at the deadline.
  ArrivalGate far(&s, 1000);
  limits.race_deadline = std::chrono::steady_clock::now() + milliseconds(20);
  GateAnswer late = far.AwaitTurn(first, limits);
  EXPECT_EQ(late.result, GateAnswer::Result::kTimedOut);
  EXPECT_TRUE(late.deadline_exceeded);
}

TEST(ArrivalTest, AbandonWakesAHeldStep) {
  ArrivalSchedule s(1, 0.5);  // round 1 due in 2 s
  s.Start(std::chrono::steady_clock::now());
  ArrivalGate gate(&s, 1);
  GateLimits limits;
  limits.race_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::thread abandon([&gate] {
    std::this_thread::sleep_for(milliseconds(20));  // the gate is waiting by then, or will see it
    gate.Abandon();
  });
  const SteadyTime before = std::chrono::steady_clock::now();
  EXPECT_EQ(gate.AwaitTurn(GateTurn{}, limits).result, GateAnswer::Result::kStopped);
  abandon.join();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(1));
}

TEST(DriverTest, OpenLoopRunsTheRoundsTheScheduleHoldsAndExcludesTheWarmup) {
  auto w = WorkloadItem(ClaimItem());
  ASSERT_TRUE(w.ok());
  fake::FakeScript script;
  script.On("", "UPDATE").Returns({"id"}, {{"1"}});  // every client "wins" id 1: double claims
  fake::FakeEngine engine(std::move(script));
  WorkloadOptions o;
  o.run.engine = &engine;
  o.rate_per_s = 200;  // 2 clients: a round every 10 ms
  o.warmup_s = 0.05;
  o.duration_s = 0.1;
  int calls = 0;
  o.on_round = [&calls](const RunFigures&) { ++calls; };
  WorkloadRun run = RunWorkload(w.value(), o);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  const RunFigures& f = run.figures;
  // Rounds due before 0.15 s: 0, 10, …, 140 ms; those due before 50 ms are the warmup.
  EXPECT_EQ(calls, 15);
  EXPECT_EQ(f.warmup_rounds, 5);
  EXPECT_EQ(f.rounds, 10);
  EXPECT_EQ(f.rounds_error, 0) << f.first_error;
  EXPECT_EQ(f.transactions, 20);
  EXPECT_EQ(f.committed, 20);
  EXPECT_EQ(f.won, 20);
  EXPECT_TRUE(f.claims_checked);
  EXPECT_EQ(f.rounds_double_claimed, 10);
  EXPECT_EQ(f.double_claims, 10);
  EXPECT_EQ(f.transaction_us.count(), 20u);
}

TEST(DriverTest, ClosedLoopEndsAtTheDurationAndAStopEndsItEarly) {
  auto w = WorkloadItem(ClaimItem());
  ASSERT_TRUE(w.ok());
  fake::FakeEngine engine(fake::FakeScript{});
  WorkloadOptions o;
  o.run.engine = &engine;
  o.warmup_s = 0;
  o.duration_s = 0.1;
  const SteadyTime before = std::chrono::steady_clock::now();
  WorkloadRun run = RunWorkload(w.value(), o);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_GT(run.figures.rounds, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  EXPECT_EQ(run.figures.won, 0);  // no rule: the claim returns no row

  StopFlag stop;
  o.run.stop = &stop;
  o.duration_s = 3600;
  o.on_round = [&stop](const RunFigures& f) {
    if (f.rounds >= 3) stop.RequestStop(2);
  };
  WorkloadRun stopped = RunWorkload(w.value(), o);
  EXPECT_FALSE(stopped.status.ok());
  EXPECT_EQ(stopped.figures.rounds, 3);
}

TEST(RepeatsTest, FiguresHaveAnIntervalFromTwoRepeatsAndSumTheirCounts) {
  const PlanItem item = ClaimItem();
  std::vector<RunFigures> runs;
  for (double window : {1.0, 2.0}) {
    Tally t(&item);
    t.AddRound(Round(), true, 0, window, {});
    runs.push_back(t.figures());
  }
  CellFigures c = SummarizeRepeats(runs);
  EXPECT_EQ(c.repeats, 2u);
  EXPECT_DOUBLE_EQ(c.committed_per_s.mean, 1.5);  // 2/1 and 2/2
  EXPECT_GT(c.committed_per_s.half_width, 0);
  EXPECT_EQ(c.transactions, 4);
  EXPECT_EQ(c.retries.at("40001"), 4);
  EXPECT_EQ(InvariantVerdict(c), "held");
  EXPECT_EQ(SummarizeRepeats({runs[0]}).committed_per_s.half_width, 0);
}

}  // namespace
}  // namespace racelab::workload
