// The evaluator's timing, k-of-N blocked, wait-event and probe checks (harness/eval/step_checks.h)
// on hand-built TrialResults: each bound is widened by exactly the lateness measured on its path,
// never otherwise, lower bounds are taken as written, and every text says what is checked.
#include <gtest/gtest.h>

#include "harness/eval/evaluator.h"
#include "harness/eval/step_checks.h"

namespace racelab {
namespace {

StepEvent Ev(const std::string& session, const std::string& step, StepKind kind, double sent_ms,
             double done_ms, double late_ms = 0) {
  StepEvent e;
  e.session = session;
  e.step = step;
  e.kind = kind;
  e.sent_us = static_cast<int64_t>(sent_ms * 1000);
  e.completed_us = static_cast<int64_t>(done_ms * 1000);
  e.late_us = static_cast<int64_t>(late_ms * 1000);
  return e;
}

PlanItem Item(const std::vector<std::pair<std::string, int>>& roles) {
  PlanItem item;
  for (const auto& [role, count] : roles) {
    for (int i = 1; i <= count; ++i) {
      PlannedSession s;
      s.role = role;
      s.index = i;
      s.label = count == 1 ? role : role + "." + std::to_string(i);
      item.sessions.push_back(s);
    }
  }
  return item;
}

Check Only(const TrialVerdict& v) {
  EXPECT_EQ(v.checks.size(), 1u);
  return v.checks.at(0);
}

// b's NOWAIT claim took 3 ms (2 of it measured lateness); the bound is 2 ms.
TEST(TimingChecks, AStepsOwnTimeIsWidenedByItsOwnLatenessOnly) {
  PlanItem item = Item({{"a", 1}, {"b", 1}});
  item.expect.timing.push_back(PlannedTiming{"b", "claim", "", "", std::nullopt, 2.0, false});
  TrialResult r;
  r.events = {Ev("a", "hold", StepKind::kSleep, 0, 50, /*late_ms=*/40),
              Ev("b", "claim", StepKind::kSql, 10, 13, 2)};
  const Check c = Only(EvaluateTrial(item, r));
  EXPECT_EQ(c.text,
            "b/claim took <= 2.000 ms + measured lateness, send to answer, and was not seen in a "
            "lock wait");
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_DOUBLE_EQ(c.widened_by_ms, 2.0);  // a's late sleep is not on b's path: b waited on no one

  r.events[1].late_us = 500;  // 0.5 ms measured: 3 ms > 2.5 ms
  const Check late = Only(EvaluateTrial(item, r));
  EXPECT_FALSE(late.passed);
  EXPECT_EQ(
      late.detail,
      "b/claim took 3.000 ms > 2.000 ms + 0.500 ms measured lateness (own 0.500, blockers' 0.000)");
}

TEST(TimingChecks, NotWaitingFailsWhenTheStepWasSeenWaitingAndMinIsAsWritten) {
  PlanItem item = Item({{"a", 1}, {"b", 1}});
  item.expect.timing.push_back(PlannedTiming{"b", "claim", "", "", 1.0, 100.0, false});
  TrialResult r;
  r.events = {Ev("b", "claim", StepKind::kSql, 10, 13, 50)};
  r.events[0].lock_wait = true;
  r.events[0].wait_event = "transactionid";
  r.events[0].lock_wait_source = "server_log";
  r.events[0].blocked_by = {"a"};
  const Check c = Only(EvaluateTrial(item, r));
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail, "b/claim was seen in a lock wait on transactionid (server_log, held by [a])");
  r.events[0].lock_wait = false;
  r.events[0].completed_us = 10'500;  // 0.5 ms < 1 ms: lateness never lowers a lower bound
  EXPECT_EQ(Only(EvaluateTrial(item, r)).detail, "b/claim took 0.500 ms < 1.000 ms");
}

// a commits at 100 ms (sent); b's claim, blocked by a, answers at 104 ms: 4 ms after a's COMMIT was
// sent.
TrialResult CommitTrial(double b_done_ms, double b_late_ms, double commit_late_ms) {
  TrialResult r;
  r.events = {Ev("b", "claim", StepKind::kSql, 10, b_done_ms, b_late_ms),
              Ev("a", "hold", StepKind::kSleep, 20, 99,
                 /*late_ms=*/30),  // before the interval: not counted
              Ev("a", "commit", StepKind::kCommit, 100, 101, commit_late_ms),
              Ev("a", "after", StepKind::kSql, 101.5, 103, 0.25),  // a's step inside the interval
              Ev("c", "noise", StepKind::kSql, 100, 104, 9)};      // not on the path
  r.events[0].lock_wait = true;
  r.events[0].blocked_by = {"a"};
  return r;
}

TEST(TimingChecks, AfterIsFromTheReferencesSendAndWidenedByBothPaths) {
  PlanItem item = Item({{"a", 1}, {"b", 1}, {"c", 1}});
  item.expect.timing.push_back(
      PlannedTiming{"b", "claim", "a", "commit", std::nullopt, 3.0, std::nullopt});
  TrialVerdict v =
      EvaluateTrial(item, CommitTrial(104, /*b_late_ms=*/0.5, /*commit_late_ms=*/0.25));
  const Check c = Only(v);
  EXPECT_EQ(
      c.text,
      "b/claim answered >= 0.000 ms and <= 3.000 ms + measured lateness after a/commit was sent");
  // 4 ms > 3 ms + (b 0.5 + a's commit 0.25 + a's next step 0.25 + a's 0.5 ms gap) = 4.5 ms: passes.
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_DOUBLE_EQ(c.widened_by_ms, 1.5);
  const Check f = Only(EvaluateTrial(item, CommitTrial(104.6, 0.5, 0.25)));
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(
      f.detail,
      "b/claim answered 4.600 ms after a/commit was sent > 3.000 ms + 1.500 ms measured lateness "
      "(its path 0.500, others' 1.000)");
  // Answered before a's COMMIT was sent: it did not wait for it (min 0 by default).
  const Check early = Only(EvaluateTrial(item, CommitTrial(99.5, 0, 0)));
  EXPECT_FALSE(early.passed);
  EXPECT_EQ(early.detail, "b/claim answered -0.500 ms after a/commit was sent < 0.000 ms");
}

TEST(TimingChecks, AReferenceThatDidNotRunFails) {
  PlanItem item = Item({{"a", 1}, {"b", 1}});
  item.expect.timing.push_back(
      PlannedTiming{"b", "claim", "a", "commit", std::nullopt, 3.0, std::nullopt});
  TrialResult r;
  r.events = {Ev("b", "claim", StepKind::kSql, 10, 12)};
  EXPECT_EQ(Only(EvaluateTrial(item, r)).detail, "a/commit did not run");
}

// worker.1 waited on the transaction, worker.2 on the tuple, worker.3 not at all.
TrialResult ThreeWorkers() {
  TrialResult r;
  r.events = {Ev("worker.1", "claim", StepKind::kSql, 10, 40),
              Ev("worker.2", "claim", StepKind::kSql, 10, 45),
              Ev("worker.3", "claim", StepKind::kSql, 10, 11)};
  for (int i : {0, 1}) {
    r.events[i].lock_wait = true;
    r.events[i].blocked_by = {"holder"};
  }
  r.events[0].wait_event = "transactionid";
  r.events[1].wait_event = "tuple";
  return r;
}

TEST(TimingChecks, BlockedInstancesCountsTheInstancesThatMeetTheEntry) {
  PlanItem item = Item({{"holder", 1}, {"worker", 3}});
  item.expect.blocked.push_back(
      PlannedBlocked{"worker", "claim", std::nullopt, std::nullopt, "holder", 2, ""});
  item.expect.blocked.push_back(
      PlannedBlocked{"worker", "claim", std::nullopt, std::nullopt, "", 1, "tuple"});
  item.expect.blocked.push_back(PlannedBlocked{"worker", "claim", 32.0, std::nullopt, "", 1, ""});
  TrialVerdict v = EvaluateTrial(item, ThreeWorkers());
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_EQ(v.checks[0].text,
            "worker/claim instances seen in a lock wait held by holder = 2 (of 3)");
  EXPECT_EQ(v.checks[1].text, "worker/claim instances seen in a lock wait on tuple = 1 (of 3)");
  EXPECT_EQ(v.checks[2].text,
            "worker/claim instances seen in a lock wait that took >= 32.000 ms, send to answer = 1 "
            "(of 3)");
  for (const Check& c : v.checks) EXPECT_TRUE(c.passed) << c.text << ": " << c.detail;

  item.expect.blocked = {
      PlannedBlocked{"worker", "claim", std::nullopt, std::nullopt, "", 2, "transactionid"}};
  const Check c = Only(EvaluateTrial(item, ThreeWorkers()));
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail,
            "worker/claim instances seen in a lock wait on transactionid = 1: worker.1 waited on "
            "transactionid held by [holder], 30.000 ms; worker.2 waited on tuple held by [holder], "
            "35.000 ms — does not meet it; worker.3 not seen waiting");
}

TEST(TimingChecks, WaitEventOfEveryInstanceAndSqlitesBusyRecord) {
  PlanItem item = Item({{"holder", 1}, {"worker", 3}});
  item.expect.blocked.push_back(
      PlannedBlocked{"worker", "claim", std::nullopt, std::nullopt, "", std::nullopt, "tuple"});
  TrialVerdict v = EvaluateTrial(item, ThreeWorkers());
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[1].text, "each of the 3 worker/claim waited first on tuple");
  EXPECT_FALSE(v.checks[1].passed);
  EXPECT_EQ(v.checks[1].detail, "worker.1/claim waited on transactionid ()");
  EXPECT_TRUE(internal::WaitEventIs("busy: 3 retries, acquired", "busy"));
  EXPECT_TRUE(internal::WaitEventIs("busy", "busy"));
  EXPECT_FALSE(internal::WaitEventIs("busyness", "busy"));
  EXPECT_FALSE(internal::WaitEventIs("transactionid", "tuple"));
}

TEST(TimingChecks, ProbesReadExactlyTheirRows) {
  PlanItem item = Item({{"a", 2}});
  PlannedStep probe;
  probe.kind = StepKind::kProbe;
  probe.name = "peek";
  probe.equals = {"queued"};
  for (auto& s : item.sessions) s.steps = {probe};
  TrialResult r;
  r.events = {Ev("a.1", "peek", StepKind::kProbe, 1, 2), Ev("a.2", "peek", StepKind::kProbe, 1, 2)};
  r.events[0].read = std::vector<std::string>{"queued"};
  r.events[1].read = std::vector<std::string>{"running"};
  const Check c = Only(EvaluateTrial(item, r));
  EXPECT_EQ(c.text, "probe a/peek reads [queued]");
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail, "a.2 read [running]");
  r.events[1].read.reset();
  r.events[1].message = "probe failed: 55P03 could not obtain lock";
  EXPECT_EQ(Only(EvaluateTrial(item, r)).detail,
            "a.2 got no rows: probe failed: 55P03 could not obtain lock");
  EXPECT_EQ(Only(EvaluateTrial(item, TrialResult{})).detail, "probe a/peek did not run");
}

}  // namespace
}  // namespace racelab
