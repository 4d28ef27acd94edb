// `await_ended: ROLE` (issue 11 item 6): a session waits until the server has ended every instance
// of another role's connection. Loaded and planned with its timeout_ms; refused with file:line:col
// and field for an unknown or its own role, a bad timeout_ms, a modifier it does not take, SQLite
// (no server ends a connection), an ordered scenario and expect.timing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/model/step_kind.h"
#include "tests/unit/loader_text.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::vector<std::string> kBase = {
    "name: ae",                             // 1
    "title: AE",                            // 2
    "teaches: L",                           // 3
    "engines: [postgresql, mariadb]",       // 4
    "params: { idle_ms: 200 }",             // 5
    "sessions:",                            // 6
    "  - name: holder",                     // 7
    "    steps:",                           // 8
    "      - begin",                        // 9
    "      - barrier: go",                  // 10
    "      - sleep_ms: 500",                // 11
    "      - commit",                       // 12
    "  - name: waiter",                     // 13
    "    steps:",                           // 14
    "      - barrier: go",                  // 15
    "      - await_ended: holder",          // 16
    "        timeout_ms: ${idle_ms} * 10",  // 17
    "      - sql: SELECT 1",                // 18
    "expect: { sqlstates: { 25P03: 1 } }",  // 19
};

std::string With(const std::vector<std::pair<int, std::string>>& changes) {
  return testing::EditLines(kBase, changes);
}

using testing::ErrorOf;

TEST(AwaitEndedTest, IsAWaitStepOfTheTable) {
  const StepKindInfo& info = InfoOf(StepKind::kAwaitEnded);
  EXPECT_EQ(info.file_key, "await_ended");
  EXPECT_EQ(info.report_name, "await_ended");
  EXPECT_TRUE(info.takes_value);
  EXPECT_TRUE(info.is_wait);
  EXPECT_FALSE(info.sends_sql);
  EXPECT_FALSE(info.may_wait_on_lock);
  EXPECT_EQ(StepKindFromReportName("await_ended"), StepKind::kAwaitEnded);
}

TEST(AwaitEndedTest, LoadsAndPlansWithItsTimeout) {
  Result<Scenario> s = LoadScenarioText(With({}), "t.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const Step& step = s->sessions[1].steps[1];
  EXPECT_EQ(step.kind, StepKind::kAwaitEnded);
  EXPECT_EQ(step.target, "holder");
  EXPECT_EQ(step.timeout_ms, "${idle_ms} * 10");
  EXPECT_EQ(step.name, "await_ended2");
  EXPECT_EQ(step.loc.line, 16);
  EXPECT_EQ(step.loc.column, 9);
  EXPECT_EQ(s->variants.count("mariadb"), 1u);

  PlanOptions options;
  options.set = {{"idle_ms", "150"}};
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, options);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_FALSE(items->empty());
  const PlannedStep& planned = (*items)[0].sessions[1].steps[1];
  EXPECT_EQ(planned.kind, StepKind::kAwaitEnded);
  EXPECT_EQ(planned.target, "holder");
  EXPECT_EQ(planned.timeout_ms, 1500);
}

TEST(AwaitEndedTest, WithoutTimeoutUsesTheRunsDeadlineAndTakesAName) {
  Result<Scenario> s = LoadScenarioText(
      With({{16, "      - { await_ended: holder, name: gone }"}, {17, ""}}), "t.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->sessions[1].steps[1].name, "gone");
  EXPECT_EQ(s->sessions[1].steps[1].timeout_ms, "");
}

TEST(AwaitEndedTest, UnknownOrOwnRole) {
  EXPECT_THAT(ErrorOf(With({{16, "      - await_ended: holdr"}})),
              StartsWith("t.yaml:16:22: sessions[1].steps[1].await_ended: unknown session 'holdr' "
                         "(sessions: holder, waiter)"));
  EXPECT_THAT(
      ErrorOf(With({{16, "      - await_ended: waiter"}})),
      StartsWith("t.yaml:16:22: sessions[1].steps[1].await_ended: a session cannot target its own "
                 "role 'waiter'"));
  EXPECT_THAT(ErrorOf(With({{16, "      - await_ended: [holder]"}})),
              StartsWith("t.yaml:16:22: sessions[1].steps[1].await_ended: "));
  EXPECT_THAT(ErrorOf(With({{16, "      - await_ended"}, {17, ""}})),
              StartsWith("t.yaml:16:9: sessions[1].steps[1]: step 'await_ended' needs a value"));
}

TEST(AwaitEndedTest, BadTimeout) {
  EXPECT_THAT(
      ErrorOf(With({{17, "        timeout_ms: 0"}})),
      StartsWith("t.yaml:17:21: sessions[1].steps[1].timeout_ms: '0' must be a number of ms from 1 "
                 "to 86400000 (24 h)"));
  EXPECT_THAT(ErrorOf(With({{17, "        timeout_ms: soon"}})),
              StartsWith("t.yaml:17:21: sessions[1].steps[1].timeout_ms: "));
  EXPECT_THAT(ErrorOf(With({{17, "        timeout_ms: ${idle} * 10"}})),
              StartsWith("t.yaml:17:21: sessions[1].steps[1].timeout_ms: "));
  EXPECT_THAT(ErrorOf(With({{17, "        on_error: continue"}})),
              StartsWith("t.yaml:17:9: sessions[1].steps[1].on_error: unknown key 'on_error' for a "
                         "await_ended step (expected one of: await_ended, name, timeout_ms)"));
}

TEST(AwaitEndedTest, RefusedOnSqlite) {
  std::string msg = ErrorOf(With({{4, "engines: [postgresql, sqlite]"}}));
  EXPECT_THAT(
      msg, StartsWith("t.yaml:16:22: sessions[1].steps[1].await_ended: await_ended waits for the "
                      "server to end a session's connection, and SQLite has no server"));
  EXPECT_THAT(msg, HasSubstr("list this step for postgresql and mariadb only"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // once, not once per engine
}

// terminate is refused the same way: SQLite cannot end another connection, so the step could only
// fail when it runs (before, it was a trial error, exit 3, after the file had loaded).
TEST(AwaitEndedTest, TerminateIsRefusedOnSqliteToo) {
  std::string msg = ErrorOf(
      With({{4, "engines: [postgresql, sqlite]"}, {16, "      - terminate: holder"}, {17, ""}}));
  EXPECT_THAT(
      msg,
      StartsWith("t.yaml:16:20: sessions[1].steps[1].terminate: terminate asks the server to end a "
                 "session's connection, and SQLite has no server"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(ErrorOf(With({{16, "      - terminate: holder"}, {17, ""}})), "(loaded without error)");
}

TEST(AwaitEndedTest, RefusedInAnOrderedScenarioAndInTiming) {
  std::string ordered =
      With({{15, "      - { sql: SELECT 1, name: one }"},
            {19,
             "order: [ [waiter.one, holder.begin1, waiter.await_ended2, waiter.sql3, "
             "holder.sleep_ms3, holder.commit4] ]\nexpect: { sqlstates: {} }"},
            {10, "      - { sql: SELECT 2, name: two }"}});
  EXPECT_THAT(ErrorOf(ordered),
              HasSubstr("t.yaml:16:9: sessions[1].steps[1]: session 'waiter' step "
                        "'await_ended2' is an await_ended, which an ordered scenario does "
                        "not run"));
  EXPECT_THAT(
      ErrorOf(With(
          {{19, "expect: { timing: [ { session: waiter, step: await_ended2, max_ms: 5 } ] }"}})),
      HasSubstr(
          "step 'await_ended2' of session 'waiter' is a wait racelab makes, not a statement"));
}

}  // namespace
}  // namespace racelab
