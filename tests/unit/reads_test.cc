// `expect.reads` (issue 11 item 1): what a step read, checked on every trial — loaded with its
// errors, planned (params substituted, the step told how many rows to keep), and evaluated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/eval/evaluator.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

constexpr char kScenario[] = R"(name: reads-sample
title: Reads sample
teaches: A step's read value is checked.
params: { fee: 18 }
isolation: [rc, serializable]
setup: CREATE TABLE t (k int, v text)
sessions:
  - name: a
    steps:
      - begin
      - sql: SELECT v FROM t ORDER BY k
        name: read
      - commit
  - name: b
    steps:
      - sql: SELECT k, v FROM t ORDER BY k
        name: read
expect:
  reads:
    - { session: a, step: read, equals: "${fee}" }
    - { step: read, equals: ["1|x", "2|NULL"] }
  at:
    serializable:
      reads: [ { session: b, step: read, equals: [] } ]
)";

Scenario Load(const std::string& text = kScenario) {
  auto s = LoadScenarioText(text, "r.yaml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : Scenario{};
}

std::string ErrorOf(const std::string& reads) {
  std::string text = kScenario;
  text = text.substr(0, text.find("expect:")) + "expect:\n  reads: " + reads + "\n";
  auto s = LoadScenarioText(text, "r.yaml");
  return s.ok() ? "(loaded)" : s.status().message();
}

TEST(ReadsTest, LoadsAndPlansPerLevel) {
  Scenario s = Load();
  ASSERT_TRUE(s.expect.reads.has_value());
  ASSERT_EQ(s.expect.reads->size(), 2u);
  EXPECT_EQ((*s.expect.reads)[0].session, "a");
  EXPECT_THAT((*s.expect.reads)[0].equals, ElementsAre("${fee}"));
  EXPECT_THAT((*s.expect.reads)[1].equals, ElementsAre("1|x", "2|NULL"));
  PlanOptions options;
  options.set = {{"fee", "21"}};
  auto items = ExpandScenario(s, options);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 2u);
  const PlanItem& rc = (*items)[0];
  ASSERT_EQ(rc.expect.reads.size(), 2u);
  EXPECT_THAT(rc.expect.reads[0].equals, ElementsAre("21"));
  // a's read keeps max(1, 2) + 1 rows, b's 2 + 1: one more than expected shows a longer result.
  EXPECT_EQ(rc.sessions[0].steps[1].read_rows, 3);
  EXPECT_EQ(rc.sessions[1].steps[0].read_rows, 3);
  EXPECT_EQ(rc.sessions[0].steps[0].read_rows, 0);
  const PlanItem& ser = (*items)[1];
  ASSERT_EQ(ser.expect.reads.size(), 1u);  // the override replaces the list
  EXPECT_TRUE(ser.expect.reads[0].equals.empty());
  EXPECT_EQ(ser.sessions[0].steps[1].read_rows, 0);
  EXPECT_EQ(ser.sessions[1].steps[0].read_rows, 1);
}

TEST(ReadsTest, BadEntriesNameLineColumnAndField) {
  EXPECT_THAT(
      ErrorOf("[ { step: reed, equals: 1 } ]"),
      StartsWith("r.yaml:19:20: expect.reads[0].step: unknown step 'reed' (did you mean 'read'?"));
  EXPECT_THAT(
      ErrorOf("[ { step: begin1, equals: 1 } ]"),
      StartsWith(
          "r.yaml:19:20: expect.reads[0].step: step 'begin1' of session 'a' is not an sql step"));
  EXPECT_THAT(
      ErrorOf("[ { session: c, step: read, equals: 1 } ]"),
      StartsWith("r.yaml:19:23: expect.reads[0].session: unknown session 'c' (sessions: a, b)"));
  EXPECT_THAT(ErrorOf("[ { step: read } ]"),
              StartsWith("r.yaml:19:12: expect.reads[0].equals: missing required key 'equals'"));
  EXPECT_THAT(ErrorOf("[ { step: read, equals: \"${nope}\" } ]"),
              StartsWith("r.yaml:19:34: expect.reads[0].equals: unknown reference ${nope}"));
}

StepEvent Read(const std::string& session, std::vector<std::string> rows,
               std::string sqlstate = "") {
  StepEvent e;
  e.session = session;
  e.step = "read";
  e.read = std::move(rows);
  e.sqlstate = std::move(sqlstate);
  return e;
}

PlanItem Item(std::string session, std::vector<std::string> equals) {
  PlanItem item;
  for (const char* label : {"a", "b"}) {
    PlannedSession s;
    s.role = s.label = label;
    item.sessions.push_back(s);
  }
  item.expect.reads.push_back({std::move(session), "read", std::move(equals)});
  return item;
}

TrialResult Trial(std::vector<StepEvent> events) {
  TrialResult r;
  r.events = std::move(events);
  for (const char* label : {"a", "b"}) {
    SessionResult s;
    s.label = s.role = label;
    r.sessions.push_back(s);
  }
  return r;
}

TEST(ReadsTest, EvaluatesEverySessionThatRanTheStep) {
  TrialVerdict v = EvaluateTrial(Item("", {"18"}), Trial({Read("a", {"18"}), Read("b", {"18"})}));
  EXPECT_EQ(v.verdict, Verdict::kPass);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_EQ(v.checks[0].text, "read reads [18]");

  v = EvaluateTrial(Item("", {"18"}), Trial({Read("a", {"18"}), Read("b", {"17"})}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.checks[0].detail, "b read [17]");

  v = EvaluateTrial(Item("b", {"18"}), Trial({Read("a", {"17"}), Read("b", {"18"})}));
  EXPECT_EQ(v.verdict, Verdict::kPass) << v.checks[0].detail;
  EXPECT_EQ(v.checks[0].text, "b read reads [18]");

  v = EvaluateTrial(Item("", {}), Trial({Read("a", {}), Read("b", {}, "40001")}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.checks[0].detail, "b failed with 40001");

  v = EvaluateTrial(Item("", {"1", "2"}), Trial({Read("a", {"1", "2", "3"})}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.checks[0].detail, "a read [1, 2, 3]");

  v = EvaluateTrial(Item("", {"1"}), Trial({}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.checks[0].detail, "read did not run");
}

}  // namespace
}  // namespace racelab
