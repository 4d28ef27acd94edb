// `ask:` (docs/scenario-format.md, docs/step.md "Predict, then watch"): a step's question for
// racelab step. It loads on the steps step mode holds, has its ${param}s substituted by the
// planner, and a bad one is an error with file, line, column and field; `racelab run` reads
// nothing of it (the plan's other fields are as without it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "tests/unit/loader_text.h"

namespace racelab {
namespace {

using testing::ErrorOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::vector<std::string> kBase = {
    "name: t",                                          // 1
    "title: T",                                         // 2
    "teaches: L",                                       // 3
    "params: { hold_ms: 200 }",                         // 4
    "sessions:",                                        // 5
    "  - name: a",                                      // 6
    "    steps:",                                       // 7
    "      - begin",                                    // 8
    "      - sql: UPDATE runs SET n = 1 WHERE id = 1",  // 9
    "        name: claim",                              // 10
    "      - barrier: go",                              // 11
    "      - commit",                                   // 12
    "  - name: b",                                      // 13
    "    steps:",                                       // 14
    "      - barrier: go",                              // 15
    "      - sql: UPDATE runs SET n = 2 WHERE id = 1",  // 16
    "        ask: Will b wait ${hold_ms} ms for a?",    // 17
    "expect: { sqlstates: {} }",                        // 18
};

std::string With(const std::vector<std::pair<int, std::string>>& changes) {
  return testing::EditLines(kBase, changes);
}

TEST(ScenarioAskTest, LoadsOnHeldStepsAndThePlannerSubstitutesParams) {
  const std::string text = With({{8, "      - { begin: , ask: \"What does a hold after BEGIN?\" }"},
                                 {12, "      - { commit: , ask: 'Does b go on?' }"}});
  Result<Scenario> r = LoadScenarioText(text, "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->sessions[0].steps[0].ask, "What does a hold after BEGIN?");
  EXPECT_EQ(r->sessions[0].steps[1].ask, "");
  EXPECT_EQ(r->sessions[0].steps[3].ask, "Does b go on?");
  EXPECT_EQ(r->sessions[1].steps[1].ask, "Will b wait ${hold_ms} ms for a?");
  Result<std::vector<PlanItem>> items = ExpandScenario(*r, {});
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_FALSE(items->empty());
  EXPECT_EQ(items->front().sessions[1].steps[1].ask, "Will b wait 200 ms for a?");
  EXPECT_EQ(items->front().sessions[0].steps[1].ask, "");
}

TEST(ScenarioAskTest, NotTextIsAnErrorAtItsField) {
  EXPECT_THAT(ErrorOf(With({{17, "        ask: [Will, b, wait]"}})),
              StartsWith("t.yaml:17:14: sessions[1].steps[1].ask: expected text, found a list"));
  EXPECT_THAT(ErrorOf(With({{17, "        ask: { q: x }"}})),
              StartsWith("t.yaml:17:14: sessions[1].steps[1].ask: expected text, found a mapping"));
  EXPECT_THAT(ErrorOf(With({{17, "        ask: \"\""}})),
              StartsWith("t.yaml:17:14: sessions[1].steps[1].ask: must not be empty"));
  EXPECT_THAT(ErrorOf(With({{17, "        ask: Will ${who} wait?"}})),
              StartsWith("t.yaml:17:14: sessions[1].steps[1].ask: unknown reference ${who}: not a "
                         "declared param (params: hold_ms)"));
  EXPECT_THAT(ErrorOf(With({{17, "        ask: " + std::string(1100, 'x')}})),
              HasSubstr("at most 1024 are allowed here"));
}

TEST(ScenarioAskTest, AStepThatRunsByItselfTakesNoQuestion) {
  // A barrier, sleep or await is never held at step mode's gate: nothing could come before it.
  EXPECT_THAT(ErrorOf(With({{11, "      - { barrier: go, ask: 'Who is first?' }"}})),
              StartsWith("t.yaml:11:24: sessions[0].steps[2].ask: a barrier step runs by itself in "
                         "racelab step, so no question can come before it: put 'ask' on the next "
                         "sql, begin, commit, rollback, probe or terminate step"));
}

}  // namespace
}  // namespace racelab
