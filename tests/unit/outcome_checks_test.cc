// The checks of issue 11 items 3, 4 and 10 on hand-built TrialResults
// (harness/eval/outcome_checks.h): `errors` with message/DETAIL patterns, counts with bounds,
// `one_of` (which alternative held, its own finals), `min_fraction` over a result, and `final` with
// `any_of`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/eval/evaluator.h"
#include "harness/eval/result_accumulator.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPivotDetail[] =
    "Reason code: Canceled on identification as a pivot, during commit attempt.";

PlanItem TwoSessions() {
  PlanItem item;
  for (const char* role : {"t1", "t2"}) {
    PlannedSession s;
    s.role = role;
    s.label = role;
    item.sessions.push_back(s);
  }
  return item;
}

// t1 commits; t2's COMMIT fails with SSI's pivot error (as PostgreSQL 15 sends it: checked with
// psql).
TrialResult PivotAtT2Commit() {
  TrialResult r;
  for (const char* role : {"t1", "t2"}) {
    StepEvent e;
    e.session = role;
    e.step = "commit";
    e.kind = StepKind::kCommit;
    r.events.push_back(e);
    SessionResult s;
    s.label = s.role = role;
    r.sessions.push_back(s);
  }
  r.events[1].sqlstate = "40001";
  r.events[1].message =
      "could not serialize access due to read/write dependencies among transactions";
  r.events[1].detail = kPivotDetail;
  return r;
}

PlannedError Error(std::string session, std::string step, std::string sqlstate,
                   std::string message = "", std::string detail = "", CountRange sessions = 1) {
  return {std::move(session), std::move(step),   std::move(sqlstate),
          std::move(message), std::move(detail), sessions};
}

TEST(OutcomeChecksTest, ErrorsMatchSqlstateMessageAndDetailOfTheNamedStep) {
  PlanItem item = TwoSessions();
  item.expect.errors = {
      Error("t2", "commit", "40001", "read/write dependencies", "pivot, during commit"),
      Error("", "commit", "40001", "^could not serialize", "", 1),
      Error("t1", "", "40001", "", "", 0)};
  TrialVerdict v = EvaluateTrial(item, PivotAtT2Commit());
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_EQ(v.checks[0].text,
            "errors: t2/commit failed with 40001, message matching /read/write dependencies/, "
            "DETAIL matching "
            "/pivot, during commit/: sessions = 1");
  EXPECT_EQ(v.verdict, Verdict::kPass)
      << v.checks[0].detail << v.checks[1].detail << v.checks[2].detail;
}

TEST(OutcomeChecksTest, AnErrorThatDoesNotMatchFailsWithoutShowingTheDetail) {
  PlanItem item = TwoSessions();
  item.expect.errors = {
      Error("t2", "commit", "40001", "", "during write"),  // the DETAIL says commit
      Error("t1", "commit", "40001"), Error("t2", "commit", "40P01")};
  TrialVerdict v = EvaluateTrial(item, PivotAtT2Commit());
  EXPECT_EQ(v.verdict, Verdict::kFail);
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_FALSE(v.checks[0].passed);
  EXPECT_THAT(v.checks[0].detail,
              HasSubstr("t2: commit failed with 40001 'could not serialize access"));
  EXPECT_THAT(v.checks[0].detail, HasSubstr("DETAIL not matching"));
  EXPECT_THAT(v.checks[0].detail, Not(HasSubstr("Reason code")));  // reports never show the DETAIL
  EXPECT_EQ(v.checks[1].detail, "sessions = 0 [t1: commit did not fail]");
  EXPECT_FALSE(v.checks[2].passed);
}

TEST(OutcomeChecksTest, APatternSearchesTheFirst1024BytesAndCannotBacktrackForever) {
  PlanItem item = TwoSessions();
  TrialResult r = PivotAtT2Commit();
  r.events[1].message = std::string(1100, 'a') + " pivot";  // the word past the searched part
  item.expect.errors = {Error("t2", "commit", "40001", "pivot"),
                        Error("t2", "commit", "40001", "(a|aa)*c", "", 0),
                        Error("t2", "commit", "40001", "^a{1000}", "", 1)};
  TrialVerdict v =
      EvaluateTrial(item, r);  // a backtracking matcher would take ~2^1000 steps on (a|aa)*c
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_FALSE(v.checks[0].passed);
  EXPECT_TRUE(v.checks[1].passed);
  EXPECT_TRUE(v.checks[2].passed);
}

TEST(OutcomeChecksTest, CountsWithBoundsHoldInsideThemOnly) {
  PlanItem item = TwoSessions();
  item.outcome.win_step = "commit";
  item.outcome.win_rows = -1;
  item.outcome.win_committed = false;
  item.expect.winners = CountRange::Between(1, 2);
  item.expect.sqlstates =
      std::map<std::string, CountRange>{{"40001", CountRange::Between(0, std::nullopt)}};
  TrialVerdict v = EvaluateTrial(item, PivotAtT2Commit());  // t1 wins (no error, rows -1)
  ASSERT_GE(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].text, "winners >= 1 and <= 2");
  EXPECT_EQ(v.checks[1].text, "SQLSTATE 40001 count >= 0");
  EXPECT_EQ(v.verdict, Verdict::kPass);
  item.expect.winners = CountRange::Between(0, 0);
  EXPECT_EQ(EvaluateTrial(item, PivotAtT2Commit()).checks[0].detail, "winners = 1 [t1]");
}

PlanItem VictimOneOf() {
  PlanItem item = TwoSessions();
  item.expect.sqlstates = std::map<std::string, CountRange>{{"40001", 1}};
  PlannedAlternative t1{"t1-fails", {}, std::nullopt};
  t1.checks.errors = {Error("t1", "commit", "40001")};
  PlannedAlternative t2{"t2-fails", {}, 0.5};
  t2.checks.errors = {Error("t2", "commit", "40001")};
  t2.checks.final = {PlannedFinal{"SELECT who FROM survivors", "t1", {}}};
  item.expect.final = {PlannedFinal{"SELECT count(*) FROM survivors", "1", {}}};
  item.expect.one_of = {t1, t2};
  return item;
}

TEST(OutcomeChecksTest, OneOfHoldsWhenAnAlternativeHoldsAndSaysWhich) {
  PlanItem item = VictimOneOf();
  TrialResult r = PivotAtT2Commit();
  r.finals = {FinalValue{"SELECT count(*) FROM survivors", "1", ""},
              FinalValue{"SELECT who FROM survivors", "t1", ""}};
  TrialVerdict v = EvaluateTrial(item, r);
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_THAT(v.alternatives_held, ElementsAre(1));
  EXPECT_EQ(v.checks.back().text,
            "one of: (t1-fails: errors: t1/commit failed with 40001: sessions = 1) or (t2-fails: "
            "final: SELECT who FROM "
            "survivors returns 't1', errors: t2/commit failed with 40001: sessions = 1)");
  // The alternative's own final value decides too: the wrong survivor, and no alternative holds.
  r.finals[1].value = "t2";
  v = EvaluateTrial(item, r);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_TRUE(v.alternatives_held.empty());
  EXPECT_EQ(v.checks.back().detail,
            "none held: t1-fails: sessions = 0 [t1: commit did not fail]; t2-fails: final: SELECT "
            "who FROM "
            "survivors returned 't2'");
}

TEST(OutcomeChecksTest, MinFractionIsJudgedOverTheResult) {
  PlanItem item = VictimOneOf();
  auto run = [&](int t2_trials, int trials) {
    ResultAccumulator acc(item, DetailsPolicy::kNone);
    for (int i = 0; i < trials; ++i) {
      TrialVerdict t;
      t.result.index = i;
      t.checks = {Check{"one of: …", true, ""}};
      t.alternatives_held = {i < t2_trials ? 1 : 0};
      acc.Add(std::move(t));
    }
    return acc.Finish("");
  };
  ResultSummary half = run(10, 20);  // t2-fails asks for at least 50 %
  EXPECT_EQ(half.verdict, Verdict::kPass);
  EXPECT_THAT(half.alternative_trials, ElementsAre(10, 10));
  ASSERT_EQ(half.expectations.size(), 2u);
  EXPECT_EQ(half.expectations[1].text, "one_of 't2-fails' held in >= 50% of trials");
  EXPECT_FALSE(half.expectations[1].Failing());
  ResultSummary few = run(9, 20);
  EXPECT_EQ(few.verdict, Verdict::kFail);
  EXPECT_TRUE(few.expectations[1].Failing());
  EXPECT_EQ(few.expectations[1].first_failure, "held in 9 of 20 trials (45.0%), fewer than 50%");
}

TEST(OutcomeChecksTest, FinalAnyOfAcceptsEachListedValueAndNull) {
  PlanItem item = TwoSessions();
  item.expect.final = {PlannedFinal{"SELECT who FROM survivors", "", {"t1", "t2", "NULL"}}};
  TrialResult r;
  r.finals = {FinalValue{"SELECT who FROM survivors", "t2", ""}};
  TrialVerdict v = EvaluateTrial(item, r);
  EXPECT_EQ(v.checks[0].text,
            "final: SELECT who FROM survivors returns one of 't1', 't2', NULL (or no row)");
  EXPECT_TRUE(v.checks[0].passed);
  r.finals[0].value.reset();
  EXPECT_TRUE(EvaluateTrial(item, r).checks[0].passed);
  r.finals[0].value = "t3";
  v = EvaluateTrial(item, r);
  EXPECT_FALSE(v.checks[0].passed);
  EXPECT_EQ(v.checks[0].detail, "final: SELECT who FROM survivors returned 't3'");
}

}  // namespace
}  // namespace racelab
