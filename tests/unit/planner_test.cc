#include "harness/loader/planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr char kScenario[] = R"(name: planner-sample
title: Planner sample
teaches: Expansion of counts, params and per-level expectations.
tags: [claim]
params: { workers: 2, hold_ms: 1000, from: queued }
isolation: [rc, serializable]
setup: INSERT INTO runs VALUES (1, '${from}')
teardown: DELETE FROM runs WHERE status = '${from}'
sessions:
  - name: worker
    count: ${workers}
    settings: { lock_timeout: "${hold_ms}ms" }
    retry: { sqlstates: ["40001"], attempts: "${workers} + 1", initial_ms: 25, factor: 1.5 }
    steps:
      - begin
      - sql: SELECT status, id FROM runs WHERE id = 1
        name: read
        capture: [status, id]
      - barrier: go
      - sql: UPDATE runs SET status = 'running' WHERE status = '${from}' AND id = ${id}
        name: claim
        when: "status == '${from}'"
      - sleep_ms: ${hold_ms} / 4
      - commit
  - name: watcher
    steps:
      - barrier: go
      - await_blocked: worker
        timeout_ms: ${hold_ms} * 5
outcome: { win: { step: claim }, claim: { step: read, column: status } }
expect:
  winners: 1
  lock_waits: 0
  step_rows: [ { step: claim, rows: 0, sessions: "${workers} - 1" } ]
  blocked: [ { session: worker, step: claim, min_ms: "${hold_ms} * 0.95", max_ms: "${hold_ms} + 500" } ]
  final: [ { sql: "SELECT count(*) FROM runs WHERE status = '${from}'", equals: "${workers}" } ]
  at:
    repeatable read: { sqlstates: { 40001: "${workers} - 1" } }
    serializable: { winners: 1, lock_waits: 1, sqlstates: { 40001: "${workers} - 1", 40P01: 0 } }
)";

Scenario Load() {
  Result<Scenario> r = LoadScenarioText(kScenario, "scenarios/x.yaml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Scenario{};
}

std::vector<PlanItem> Expand(const PlanOptions& options) {
  Result<std::vector<PlanItem>> items = ExpandScenario(Load(), options);
  EXPECT_TRUE(items.ok()) << items.status().message();
  return items.ok() ? *items : std::vector<PlanItem>{};
}

std::string ErrorOf(const PlanOptions& options) {
  Result<std::vector<PlanItem>> items = ExpandScenario(Load(), options);
  if (items.ok()) return "(expanded without error)";
  EXPECT_EQ(items.status().code(), StatusCode::kUsage);
  return items.status().message();
}

std::vector<std::string> Labels(const PlanItem& item) {
  std::vector<std::string> labels;
  for (const PlannedSession& s : item.sessions) labels.push_back(s.label);
  return labels;
}

TEST(PlannerTest, DefaultsUseTheScenarioLevelsAndParams) {
  std::vector<PlanItem> items = Expand({});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].isolation, IsolationLevel::kReadCommitted);
  EXPECT_EQ(items[1].isolation, IsolationLevel::kSerializable);
  const PlanItem& item = items[0];
  EXPECT_EQ(item.scenario, "planner-sample");
  EXPECT_EQ(item.title, "Planner sample");
  EXPECT_EQ(item.file, "scenarios/x.yaml");
  EXPECT_THAT(item.tags, ElementsAre("claim"));
  EXPECT_EQ(item.trials, 20);
  EXPECT_THAT(item.params,
              ElementsAre(Pair("workers", "2"), Pair("hold_ms", "1000"), Pair("from", "queued")));
  EXPECT_EQ(item.setup, "INSERT INTO runs VALUES (1, 'queued')");
  EXPECT_EQ(item.teardown, "DELETE FROM runs WHERE status = 'queued'");
  EXPECT_THAT(Labels(item), ElementsAre("worker.1", "worker.2", "watcher"));
}

TEST(PlannerTest, CountExpansionLabelsAndSteps) {
  PlanOptions options;
  options.set = {{"workers", "3"}};
  std::vector<PlanItem> items = Expand(options);
  ASSERT_FALSE(items.empty());
  const PlanItem& item = items[0];
  EXPECT_THAT(Labels(item), ElementsAre("worker.1", "worker.2", "worker.3", "watcher"));
  EXPECT_EQ(item.sessions[2].role, "worker");
  EXPECT_EQ(item.sessions[2].index, 3);
  EXPECT_EQ(item.sessions[3].role, "watcher");
  EXPECT_EQ(item.sessions[3].index, 1);

  const PlannedSession& w = item.sessions[0];
  EXPECT_THAT(w.settings, ElementsAre(Pair("lock_timeout", "1000ms")));
  ASSERT_TRUE(w.retry.has_value());
  EXPECT_THAT(w.retry->on, ElementsAre("40001"));
  EXPECT_EQ(w.retry->attempts, 4);
  EXPECT_EQ(w.retry->initial_ms, 25);
  EXPECT_DOUBLE_EQ(w.retry->factor, 1.5);
  EXPECT_EQ(w.retry->cap_ms, 1000);
  ASSERT_EQ(w.steps.size(), 6u);
  EXPECT_EQ(w.steps[1].name, "read");
  EXPECT_THAT(w.steps[1].capture, ElementsAre("status", "id"));
  EXPECT_EQ(w.steps[2].kind, StepKind::kBarrier);
  EXPECT_EQ(w.steps[2].barrier, "go");
  // Params are substituted; ${id} is a capture, left for the runner.
  EXPECT_EQ(w.steps[3].sql,
            "UPDATE runs SET status = 'running' WHERE status = 'queued' AND id = ${id}");
  EXPECT_EQ(w.steps[3].when, "status == 'queued'");
  EXPECT_EQ(w.steps[4].sleep_ms, 250);
  EXPECT_EQ(item.sessions[3].steps[1].target, "worker");
  EXPECT_EQ(item.sessions[3].steps[1].timeout_ms, 5000);
  EXPECT_FALSE(item.sessions[3].retry.has_value());

  EXPECT_EQ(item.outcome.win_step, "claim");
  EXPECT_EQ(item.outcome.win_rows, 1);
  EXPECT_TRUE(item.outcome.win_committed);
  EXPECT_EQ(item.outcome.claim_step, "read");
  EXPECT_EQ(item.outcome.claim_column, "status");
}

TEST(PlannerTest, SetOverridesDefaultsAndEvaluatesExprs) {
  PlanOptions options;
  options.set = {{"workers", "3"}, {"hold_ms", "2000"}};
  options.trials = 5;
  options.isolation = {IsolationLevel::kRepeatableRead};
  std::vector<PlanItem> items = Expand(options);
  ASSERT_EQ(items.size(), 1u);
  const PlanItem& item = items[0];
  EXPECT_EQ(item.isolation, IsolationLevel::kRepeatableRead);
  EXPECT_EQ(item.trials, 5);
  EXPECT_THAT(item.params,
              ElementsAre(Pair("workers", "3"), Pair("hold_ms", "2000"), Pair("from", "queued")));
  ASSERT_TRUE(item.expect.sqlstates.has_value());
  EXPECT_THAT(*item.expect.sqlstates, ElementsAre(Pair("40001", 2)));  // "${workers} - 1"
  ASSERT_EQ(item.expect.step_rows.size(), 1u);
  EXPECT_EQ(item.expect.step_rows[0].step, "claim");
  EXPECT_EQ(item.expect.step_rows[0].rows, 0);
  EXPECT_EQ(item.expect.step_rows[0].sessions, 2);
  ASSERT_EQ(item.expect.blocked.size(), 1u);
  EXPECT_DOUBLE_EQ(*item.expect.blocked[0].min_ms, 1900.0);
  EXPECT_DOUBLE_EQ(*item.expect.blocked[0].max_ms, 2500.0);
  ASSERT_EQ(item.expect.final.size(), 1u);
  EXPECT_EQ(item.expect.final[0].sql, "SELECT count(*) FROM runs WHERE status = 'queued'");
  EXPECT_EQ(item.expect.final[0].equals, "3");
}

TEST(PlannerTest, UndeclaredSetKeyIsIgnored) {
  PlanOptions options;
  options.set = {{"not_a_param", "abc"}};
  std::vector<PlanItem> items = Expand(options);
  ASSERT_FALSE(items.empty());
  EXPECT_THAT(items[0].params,
              ElementsAre(Pair("workers", "2"), Pair("hold_ms", "1000"), Pair("from", "queued")));
}

TEST(PlannerTest, SetWithNonNumberIsAnError) {
  PlanOptions options;
  options.set = {{"workers", "abc"}};
  EXPECT_THAT(ErrorOf(options),
              StartsWith("--set workers=abc: scenarios/x.yaml:11:12: sessions[0].count: "
                         "'${workers}' is not a number"));
  options.set = {{"workers", "0"}};
  EXPECT_THAT(ErrorOf(options),
              StartsWith("--set workers=0: scenarios/x.yaml:11:12: sessions[0].count: "
                         "'${workers}' must be an integer from 1 to 1000"));
  options.set = {{"hold_ms", "x"}};
  EXPECT_THAT(
      ErrorOf(options),
      StartsWith("--set hold_ms=x: scenarios/x.yaml:23:19: sessions[0].steps[4].sleep_ms: "));
  options.set = {{"hold_ms", "-1000"}};
  EXPECT_THAT(
      ErrorOf(options),
      StartsWith("--set hold_ms=-1000: scenarios/x.yaml:23:19: sessions[0].steps[4].sleep_ms: "
                 "'${hold_ms} / 4' must be a number of ms from 0 to 86400000 (24 h) "
                 "(evaluates to -250)"));
  options.set = {{"workers", "${hold_ms}"}};
  EXPECT_THAT(ErrorOf(options), StartsWith("--set workers=${hold_ms}: scenarios/x.yaml:"));
  options.set = {};
  options.trials = 0;
  EXPECT_THAT(ErrorOf(options), StartsWith("--trials 0: must be >= 1"));
}

TEST(PlannerTest, ErrorInAnOverrideNamesItsPath) {
  Scenario s = Load();
  s.expect_at[IsolationLevel::kSerializable].winners = CountExpr("${workers} - 3");
  Result<std::vector<PlanItem>> items = ExpandScenario(s, {});
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().message(),
            "scenarios/x.yaml:39:30: expect.at.serializable.winners: '${workers} - 3' must be an "
            "integer >= 0 (evaluates to -1)");
}

TEST(PlannerTest, PerLevelExpectMerge) {
  PlanOptions options;
  options.isolation = AllIsolationLevels();
  std::vector<PlanItem> items = Expand(options);
  ASSERT_EQ(items.size(), 3u);
  const PlannedExpect& rc = items[0].expect;
  EXPECT_EQ(rc.winners, 1);
  EXPECT_EQ(rc.lock_waits, 0);
  EXPECT_FALSE(rc.sqlstates.has_value());
  EXPECT_EQ(rc.blocked.size(), 1u);
  const PlannedExpect& rr = items[1].expect;  // sets sqlstates only
  EXPECT_EQ(rr.winners, 1);
  EXPECT_EQ(rr.lock_waits, 0);
  EXPECT_THAT(*rr.sqlstates, ElementsAre(Pair("40001", 1)));
  EXPECT_EQ(rr.step_rows.size(), 1u);
  const PlannedExpect& ser = items[2].expect;  // replaces winners, lock_waits and sqlstates
  EXPECT_EQ(ser.winners, 1);
  EXPECT_EQ(ser.lock_waits, 1);
  EXPECT_THAT(*ser.sqlstates, ElementsAre(Pair("40001", 1), Pair("40P01", 0)));
  EXPECT_EQ(ser.final.size(), 1u);
}

TEST(PlannerTest, MinAboveMaxIsAnError) {
  Scenario s = Load();
  (*s.expect.blocked)[0].min_ms = "10";
  (*s.expect.blocked)[0].max_ms = "5";
  Result<std::vector<PlanItem>> items = ExpandScenario(s, {});
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().message(),
            "scenarios/x.yaml:35:14: expect.blocked[0]: min_ms '10' = 10 is greater than max_ms "
            "'5' = 5");
}

}  // namespace
}  // namespace racelab
