// The evaluator on hand-built TrialResults (no database: the evaluator has no database semantics).
#include "harness/eval/evaluator.h"

#include <gtest/gtest.h>

namespace racelab {
namespace {

PlanItem TwoWorkerClaim() {
  PlanItem item;
  item.scenario = "claim";
  for (int i = 1; i <= 2; ++i) {
    PlannedSession s;
    s.role = "worker";
    s.index = i;
    s.label = "worker." + std::to_string(i);
    item.sessions.push_back(s);
  }
  item.outcome.win_step = "claim";
  item.outcome.win_rows = 1;
  item.outcome.claim_step = "claim";
  item.outcome.claim_column = "id";
  return item;
}

StepEvent Ev(const std::string& session, const std::string& step, long rows,
             std::string sqlstate = "", int64_t sent = 0, int64_t done = 100) {
  StepEvent e;
  e.session = session;
  e.step = step;
  e.rows = rows;
  e.sqlstate = std::move(sqlstate);
  e.sent_us = sent;
  e.completed_us = done;
  return e;
}

TrialResult Trial(long rows1, long rows2, std::string state2 = "") {
  TrialResult r;
  r.events = {Ev("worker.1", "claim", rows1), Ev("worker.2", "claim", rows2, state2)};
  r.events[0].captured["id"] = "7";
  if (rows2 == 1) r.events[1].captured["id"] = "7";
  for (int i = 1; i <= 2; ++i) {
    SessionResult s;
    s.label = "worker." + std::to_string(i);
    s.role = "worker";
    s.committed = !(i == 2 && !state2.empty());
    r.sessions.push_back(s);
  }
  return r;
}

TEST(Evaluator, OneWinnerPasses) {
  PlanItem item = TwoWorkerClaim();
  item.expect.winners = 1;
  item.expect.sqlstates = std::map<std::string, CountRange>{};
  TrialVerdict v = EvaluateTrial(item, Trial(1, 0));
  EXPECT_EQ(v.verdict, Verdict::kPass);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].text, "winners = 1");
  EXPECT_TRUE(v.result.sessions[0].won);
  EXPECT_FALSE(v.result.sessions[1].won);
  EXPECT_EQ(v.result.sessions[0].claim.value_or(""), "7");
}

TEST(Evaluator, DoubleExecutionFailsWinnersAndDistinctClaims) {
  PlanItem item = TwoWorkerClaim();
  item.expect.winners = 1;
  item.expect.distinct_claims = true;
  TrialVerdict v = EvaluateTrial(item, Trial(1, 1));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_FALSE(v.checks[0].passed);
  EXPECT_EQ(v.checks[0].detail, "winners = 2 [worker.1, worker.2]");
  EXPECT_EQ(v.checks[1].text, "winners' claims are distinct");
  EXPECT_FALSE(v.checks[1].passed);
}

TEST(Evaluator, UnexpectedSqlstateFailsEvenWhenListedOnesMatch) {
  PlanItem item = TwoWorkerClaim();
  item.expect.sqlstates = std::map<std::string, CountRange>{{"40001", 0}};
  TrialVerdict v = EvaluateTrial(item, Trial(1, 0, "40P01"));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_TRUE(v.checks[0].passed);  // 40001 count = 0
  EXPECT_EQ(v.checks[1].text, "no other SQLSTATE");
  EXPECT_EQ(v.checks[1].detail, "saw 40P01×1");
}

TEST(Evaluator, BlockedTimeNeedsAMonitoredLockWait) {
  PlanItem item = TwoWorkerClaim();
  item.expect.blocked.push_back(PlannedBlocked{"worker", "claim", 100.0, 500.0, ""});
  TrialResult r = Trial(1, 0);
  r.events[1].sent_us = 0;
  r.events[1].completed_us = 300000;  // 300 ms elapsed but never seen waiting
  r.events[0].completed_us = 200000;
  r.events[0].lock_wait = true;
  r.events[0].lock_wait_us = 200000;
  TrialVerdict v = EvaluateTrial(item, r);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_EQ(v.checks[0].text,
            "each of the 2 worker/claim was seen in a lock wait and took >= 100.000 ms and <= "
            "500.000 ms + "
            "measured lateness, send to answer");
  EXPECT_FALSE(v.checks[0].passed);
  EXPECT_NE(v.checks[0].detail.find("worker.2/claim was not seen in a lock wait"),
            std::string::npos)
      << v.checks[0].detail;
  r.events[1].lock_wait = true;
  r.events[1].lock_wait_source = "server_log";
  r.events[1].lock_wait_us = 299000;  // the server's figure, not the statement's elapsed time
  EXPECT_TRUE(EvaluateTrial(item, r).checks[0].passed);
}

TEST(Evaluator, FinalValuesAndHarnessErrors) {
  PlanItem item = TwoWorkerClaim();
  item.expect.final.push_back(PlannedFinal{"SELECT attempts FROM runs", "1"});
  TrialResult r = Trial(1, 0);
  r.finals.push_back(FinalValue{"SELECT attempts FROM runs", std::string("2"), ""});
  TrialVerdict v = EvaluateTrial(item, r);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.checks[0].detail, "final: SELECT attempts FROM runs returned '2'");
  r.finals[0].value = "1";
  r.error = "worker.1: step 'claim' passed its deadline";
  EXPECT_EQ(EvaluateTrial(item, r).verdict, Verdict::kError)
      << "a harness error wins over passing checks";
}

TEST(Evaluator, SummaryTalliesAndPercentiles) {
  PlanItem item = TwoWorkerClaim();
  item.expect.winners = 1;
  std::vector<TrialVerdict> trials;
  for (int i = 0; i < 4; ++i) {
    TrialResult r = i == 2 ? Trial(1, 1) : Trial(1, 0);
    r.index = i;
    r.barriers.push_back(BarrierRelease{"go", 1, 0, 100 * (i + 1)});
    trials.push_back(EvaluateTrial(item, r));
  }
  ResultSummary s = Summarize(item, std::move(trials), "");
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_EQ(s.winners.at(1), 3);
  EXPECT_EQ(s.winners.at(2), 1);
  ASSERT_EQ(s.expectations.size(), 1u);
  EXPECT_EQ(s.expectations[0].passed, 3);
  EXPECT_EQ(s.expectations[0].failed, 1);
  EXPECT_EQ(s.expectations[0].first_failure, "trial 3: winners = 2 [worker.1, worker.2]");
  EXPECT_EQ(s.representative_trial, 2);
  EXPECT_EQ(s.skew_us.p50, 200);
  EXPECT_EQ(s.skew_us.max, 400);
  EXPECT_EQ(s.skew_us.count, 4u);
}

TEST(Evaluator, OnlyTheLastAttemptOfARetriedSessionCounts) {
  // worker.2's first attempt claimed (1 row) but its COMMIT failed with 40001; its retry skipped
  // the claim and committed. The claim of the voided attempt must not make it a winner.
  PlanItem item = TwoWorkerClaim();
  item.expect.winners = 1;
  item.expect.distinct_claims = true;
  TrialResult r = Trial(1, 1);
  StepEvent failed_commit = Ev("worker.2", "commit", -1, "40001");
  StepEvent retried_claim = Ev("worker.2", "claim", -1);
  retried_claim.attempt = 2;
  retried_claim.skipped = true;
  r.events.push_back(failed_commit);
  r.events.push_back(retried_claim);
  r.sessions[1].committed = true;
  r.sessions[1].attempts = 2;
  TrialVerdict v = EvaluateTrial(item, r);
  EXPECT_EQ(v.verdict, Verdict::kPass) << v.checks[0].detail;
  EXPECT_TRUE(v.result.sessions[0].won);
  EXPECT_FALSE(v.result.sessions[1].won);
  EXPECT_FALSE(v.result.sessions[1].claim.has_value());

  ResultSummary s = Summarize(item, {v}, "");
  EXPECT_EQ(s.retries, 1) << "attempts - 1 over every session";
  EXPECT_EQ(s.sqlstates.at("40001"), 1) << "the failed attempt's SQLSTATE still counts";
}

TEST(Evaluator, PercentilesByNearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  Percentiles p = ComputePercentiles(v);
  EXPECT_EQ(p.p50, 10);
  EXPECT_EQ(p.p95, 19);
  EXPECT_EQ(p.max, 20);
  EXPECT_EQ(ComputePercentiles({}).count, 0u);
}

}  // namespace
}  // namespace racelab
