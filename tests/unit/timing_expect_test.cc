// expect.timing, blocked's instances/wait_event and the probe step (issue 11 items 9, 10a): loaded
// with their errors (file:line:col and field path) and planned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kHead[] = R"(name: timing-sample
title: Timing sample
teaches: Timing, k of N and probes.
params: { workers: 3, limit: 5 }
isolation: [rc]
setup: CREATE TABLE runs (id int PRIMARY KEY, status text)
sessions:
  - name: a
    steps:
      - begin
      - sql: UPDATE runs SET status = 'running' WHERE id = 1
        name: claim
      - probe: SELECT status FROM runs WHERE id = 1
        name: peek
        equals: "queued"
        timeout_ms: 500
      - barrier: held
      - { commit: , name: commit }
  - name: w
    count: ${workers}
    steps:
      - barrier: held
      - begin
      - sql: UPDATE runs SET status = 'done' WHERE id = 1
        name: claim
      - commit
)";

constexpr char kExpect[] = R"(expect:
  blocked:
    - { session: w, step: claim, instances: "${workers} - 2", wait_event: tuple }
    - { session: w, step: claim, wait_event: transactionid, by: a, instances: 1 }
  timing:
    - { session: w, step: claim, after: a.commit, max_ms: "${limit}" }
    - { session: a, step: claim, max_ms: 10, waited: false }
)";

Result<Scenario> Load(const std::string& expect) {
  return LoadScenarioText(std::string(kHead) + expect, "t.yaml");
}

std::string ErrorOf(const std::string& expect) {
  Result<Scenario> s = Load(expect);
  return s.ok() ? "(loaded)" : s.status().message();
}

TEST(TimingExpectTest, LoadsAndPlans) {
  Result<Scenario> s = Load(kExpect);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->expect.timing.has_value());
  const TimingSpec& t = (*s->expect.timing)[0];
  EXPECT_EQ(t.session, "w");
  EXPECT_EQ(t.after_session, "a");
  EXPECT_EQ(t.after_step, "commit");
  EXPECT_EQ(t.max_ms, "${limit}");
  EXPECT_EQ((*s->expect.timing)[1].waited, false);
  EXPECT_EQ((*s->expect.blocked)[0].instances, "${workers} - 2");
  EXPECT_EQ((*s->expect.blocked)[0].wait_event, "tuple");
  const Step& probe = s->sessions[0].steps[2];
  EXPECT_EQ(probe.kind, StepKind::kProbe);
  EXPECT_EQ(probe.sql, "SELECT status FROM runs WHERE id = 1");
  EXPECT_THAT(probe.equals, ElementsAre("queued"));

  PlanOptions options;
  options.set = {{"workers", "4"}};
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, options);
  ASSERT_TRUE(items.ok()) << items.status().message();
  const PlanItem& item = (*items)[0];
  ASSERT_EQ(item.expect.blocked.size(), 2u);
  EXPECT_EQ(item.expect.blocked[0].instances, 2);
  EXPECT_EQ(item.expect.blocked[1].instances, 1);
  ASSERT_EQ(item.expect.timing.size(), 2u);
  EXPECT_EQ(item.expect.timing[0].max_ms, 5.0);
  EXPECT_EQ(item.expect.timing[0].min_ms,
            std::nullopt);  // the evaluator's default with `after` is 0
  const PlannedStep& planned_probe = item.sessions[0].steps[2];
  EXPECT_EQ(planned_probe.kind, StepKind::kProbe);
  EXPECT_EQ(planned_probe.timeout_ms, 500);
  EXPECT_EQ(planned_probe.read_rows, 2);  // one more than expected: a longer result shows
}

TEST(TimingExpectTest, AProbeIsACheckAtEveryLevel) {
  Result<Scenario> s = Load("expect: {}\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, PlanOptions{});
  EXPECT_TRUE(items.ok()) << items.status().message();
}

TEST(TimingExpectTest, BadTimingEntries) {
  EXPECT_THAT(
      ErrorOf("expect:\n  timing: [ { session: w, step: claim, after: a.comit, max_ms: 5 } ]\n"),
      StartsWith(
          "t.yaml:28:47: expect.timing[0].after: unknown step 'comit' in session 'a' (did you mean "
          "'commit'?"));
  EXPECT_THAT(ErrorOf("expect:\n  timing: [ { session: w, step: claim, after: a, max_ms: 5 } ]\n"),
              StartsWith("t.yaml:28:47: expect.timing[0].after: 'a' is not SESSION.STEP"));
  EXPECT_THAT(ErrorOf("expect:\n  timing: [ { session: w, step: claim, after: w.claim } ]\n"),
              HasSubstr("expect.timing[0].after: after names session 'w' itself"));
  EXPECT_THAT(
      ErrorOf("expect:\n  timing: [ { session: a, step: barrier4, max_ms: 5 } ]\n"),
      StartsWith(
          "t.yaml:28:33: expect.timing[0].step: step 'barrier4' of session 'a' is a wait racelab "
          "makes"));
  EXPECT_THAT(ErrorOf("expect:\n  timing: [ { session: a, step: claim } ]\n"),
              StartsWith("t.yaml:28:13: expect.timing[0]: a timing entry checks nothing"));
  EXPECT_THAT(ErrorOf("expect:\n  timing: [ { session: x, step: claim, max_ms: 5 } ]\n"),
              StartsWith("t.yaml:28:24: expect.timing[0].session: unknown session 'x' (did you "
                         "mean 'a'? sessions: a, w)"));
  EXPECT_THAT(
      ErrorOf("expect:\n  timing: [ { session: a, step: claim, max_ms: 5, waited: maybe } ]\n"),
      StartsWith("t.yaml:28:59: expect.timing[0].waited: expected true or false"));
  EXPECT_THAT(ErrorOf("expect:\n  timing: [ { session: a, step: claim, max_ms: 5, within: 3 } ]\n"),
              StartsWith("t.yaml:28:51: expect.timing[0].within: unknown key 'within'"));
}

TEST(TimingExpectTest, BadBlockedCountsAndEvents) {
  EXPECT_THAT(
      ErrorOf("expect:\n  blocked: [ { session: w, step: claim, instances: -1 } ]\n"),
      StartsWith("t.yaml:28:52: expect.blocked[0].instances: '-1' must be an integer >= 0"));
  EXPECT_THAT(
      ErrorOf("expect:\n  blocked: [ { session: w, step: claim, instances: \"${worker}\" } ]\n"),
      HasSubstr("unknown reference ${worker}"));
  EXPECT_THAT(ErrorOf("expect:\n  blocked: [ { session: w, step: claim, wait_event: \"\" } ]\n"),
              StartsWith("t.yaml:28:53: expect.blocked[0].wait_event: must not be empty"));
}

TEST(TimingExpectTest, MoreInstancesThanTheRoleHasAreRefusedWhenPlanned) {
  Result<Scenario> s =
      Load("expect:\n  blocked: [ { session: w, step: claim, instances: \"${workers} + 1\" } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, PlanOptions{});
  ASSERT_FALSE(items.ok());
  EXPECT_THAT(
      items.status().message(),
      StartsWith(
          "t.yaml:28:14: expect.blocked[0].instances: instances '${workers} + 1' = 4 is more than "
          "session 'w' has (3)"));
}

// All problems of a file are reported (docs/scenario-format.md), the planner's cross-checks too:
// two blocked entries and a timing entry with min_ms > max_ms are three lines, not one per fix.
TEST(TimingExpectTest, EveryMinAboveItsMaxIsReportedAtOnce) {
  Result<Scenario> s = Load(
      "expect:\n"
      "  blocked:\n"
      "    - { session: w, step: claim, min_ms: 20, max_ms: 10 }\n"
      "    - { session: w, step: claim, min_ms: 30, max_ms: \"${limit}\" }\n"
      "  timing:\n"
      "    - { session: a, step: claim, min_ms: 9, max_ms: 8 }\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, PlanOptions{});
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().code(), StatusCode::kUsage);
  EXPECT_EQ(
      items.status().message(),
      "t.yaml:29:7: expect.blocked[0]: min_ms '20' = 20 is greater than max_ms '10' = 10\n"
      "t.yaml:30:7: expect.blocked[1]: min_ms '30' = 30 is greater than max_ms '${limit}' = 5\n"
      "t.yaml:32:7: expect.timing[0]: min_ms '9' = 9 is greater than max_ms '8' = 8");
}

TEST(TimingExpectTest, AfterARoleWithSeveralInstancesIsRefusedWhenPlanned) {
  Result<Scenario> s =
      Load("expect:\n  timing: [ { session: a, step: claim, after: w.claim, max_ms: 5 } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, PlanOptions{});
  ASSERT_FALSE(items.ok());
  EXPECT_THAT(
      items.status().message(),
      StartsWith("t.yaml:28:13: expect.timing[0].after: after names w.claim, but session 'w' has 3 "
                 "instances"));
}

TEST(TimingExpectTest, BadProbes) {
  std::string head = kHead;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = head;
    text.replace(text.find(from), from.size(), to);
    Result<Scenario> s = LoadScenarioText(text + "expect: { sqlstates: {} }\n", "p.yaml");
    return s.ok() ? std::string("(loaded)") : s.status().message();
  };
  EXPECT_THAT(with("        equals: \"queued\"\n", ""),
              StartsWith("p.yaml:13:9: sessions[0].steps[2]: a probe needs equals:"));
  EXPECT_THAT(
      with("        timeout_ms: 500", "        capture: status"),
      StartsWith(
          "p.yaml:16:9: sessions[0].steps[2].capture: unknown key 'capture' for a probe step "
          "(expected one of: probe, name, equals, timeout_ms, ask)"));
  EXPECT_THAT(with("        timeout_ms: 500", "        timeout_ms: 0"),
              StartsWith("p.yaml:16:21: sessions[0].steps[2].timeout_ms:"));
  EXPECT_THAT(with("WHERE id = 1\n        name: peek", "WHERE id = ${nope}\n        name: peek"),
              HasSubstr("unknown reference ${nope}"));
  EXPECT_EQ(with("        equals: \"queued\"", "        equals: []"), "(loaded)");
}

}  // namespace
}  // namespace racelab
