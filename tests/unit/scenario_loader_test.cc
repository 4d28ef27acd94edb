// Loader: a full scenario reads with every field right. Malformed files: see
// scenario_errors_test.cc.
#include "harness/loader/scenario_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

constexpr char kGuardedCas[] = R"(name: guarded-cas-claim
title: Guarded CAS claim — exactly one worker wins
teaches: |
  The WHERE status='queued' is the expected value of a compare-and-swap;
  RETURNING tells who won.
tags: [claim, locks]
params: { workers: 2, hold_ms: 1200, from: queued }
isolation: [read committed, rr, serializable]
setup: |
  CREATE TABLE runs (id bigint PRIMARY KEY, status text NOT NULL, attempts int NOT NULL DEFAULT 0);
  INSERT INTO runs VALUES (1, '${from}', 0);
teardown: ""
sessions:
  - name: worker
    count: ${workers}
    settings: { lock_timeout: 200ms, statement_timeout: "${hold_ms}" }
    retry: { sqlstates: ["40001", 40P01], attempts: 5, initial_ms: 50, factor: 2, cap_ms: 1000 }
    steps:
      - begin
      - sql: SELECT status FROM runs WHERE id = 1
        name: read
        capture: [status]
      - barrier: go
      - sql: UPDATE runs SET status = 'running' WHERE id = 1 AND status = '${from}' RETURNING id
        name: claim
        capture: id
        when: "status == '${from}'"
        on_error: continue
      - sleep_ms: ${hold_ms}
      - sql: SELECT '${from}' AS seen
      - commit
  - name: b
    steps:
      - barrier: go
      - await_blocked: worker
        timeout_ms: 5000
      - { terminate: worker, name: kill }
      - rollback
outcome:
  win: { step: claim, rows: 1, committed: true }
  claim: { step: claim, column: id }
expect:
  winners: 1
  sqlstates: { 40001: "${workers} - 1" }
  distinct_claims: true
  lock_waits: 0
  step_rows: [ { step: claim, rows: 0, sessions: "${workers} - 1" } ]
  blocked:
    - { session: b, step: kill, min_ms: "${hold_ms} * 0.95", max_ms: "${hold_ms} + 500", by: worker }
  final: [ { sql: "SELECT attempts FROM runs WHERE id = 1", equals: 1 }, { sql: "SELECT NULL", equals: ~ } ]
  at:
    repeatable read: { winners: 1, sqlstates: { "40001": "${workers} - 1" } }
    ser: { lock_waits: 1 }
)";

TEST(ScenarioLoaderTest, GuardedCasLoadsEveryField) {
  Result<Scenario> r = LoadScenarioText(kGuardedCas, "scenarios/guarded.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Scenario& s = *r;
  EXPECT_EQ(s.loc.file, "scenarios/guarded.yaml");
  EXPECT_EQ(s.name, "guarded-cas-claim");
  EXPECT_EQ(s.title, "Guarded CAS claim — exactly one worker wins");
  EXPECT_EQ(s.teaches,
            "The WHERE status='queued' is the expected value of a compare-and-swap;\n"
            "RETURNING tells who won.");
  EXPECT_THAT(s.tags, ElementsAre("claim", "locks"));
  EXPECT_THAT(s.params,
              ElementsAre(Pair("workers", "2"), Pair("hold_ms", "1200"), Pair("from", "queued")));
  EXPECT_THAT(s.isolation,
              ElementsAre(IsolationLevel::kReadCommitted, IsolationLevel::kRepeatableRead,
                          IsolationLevel::kSerializable));
  EXPECT_EQ(s.setup,
            "CREATE TABLE runs (id bigint PRIMARY KEY, status text NOT NULL, attempts int NOT NULL "
            "DEFAULT 0);\nINSERT INTO runs VALUES (1, '${from}', 0);\n");
  EXPECT_EQ(s.teardown, "");
  ASSERT_EQ(s.sessions.size(), 2u);

  const SessionSpec& w = s.sessions[0];
  EXPECT_EQ(w.name, "worker");
  EXPECT_EQ(w.loc.line, 14);
  EXPECT_EQ(w.loc.column, 5);
  EXPECT_EQ(w.count, "${workers}");
  EXPECT_THAT(w.settings,
              ElementsAre(Pair("lock_timeout", "200ms"), Pair("statement_timeout", "${hold_ms}")));
  ASSERT_TRUE(w.retry.has_value());
  EXPECT_THAT(w.retry->on, ElementsAre("40001", "40P01"));
  EXPECT_EQ(w.retry->attempts, "5");
  EXPECT_EQ(w.retry->initial_ms, "50");
  EXPECT_EQ(w.retry->factor, "2");
  EXPECT_EQ(w.retry->cap_ms, "1000");
  ASSERT_EQ(w.steps.size(), 7u);
  EXPECT_EQ(w.steps[0].kind, StepKind::kBegin);
  EXPECT_EQ(w.steps[0].name, "begin1");
  EXPECT_EQ(w.steps[0].loc.line, 19);
  EXPECT_EQ(w.steps[0].loc.column, 9);
  EXPECT_EQ(w.steps[1].kind, StepKind::kSql);
  EXPECT_EQ(w.steps[1].name, "read");
  EXPECT_EQ(w.steps[1].sql, "SELECT status FROM runs WHERE id = 1");
  EXPECT_THAT(w.steps[1].capture, ElementsAre("status"));
  EXPECT_EQ(w.steps[1].on_error, OnError::kAbort);
  EXPECT_EQ(w.steps[2].kind, StepKind::kBarrier);
  EXPECT_EQ(w.steps[2].barrier, "go");
  EXPECT_EQ(w.steps[2].name, "barrier3");
  const Step& claim = w.steps[3];
  EXPECT_EQ(claim.name, "claim");
  EXPECT_EQ(claim.sql,
            "UPDATE runs SET status = 'running' WHERE id = 1 AND status = '${from}' RETURNING id");
  EXPECT_THAT(claim.capture, ElementsAre("id"));
  EXPECT_EQ(claim.when, "status == '${from}'");
  EXPECT_EQ(claim.on_error, OnError::kContinue);
  EXPECT_EQ(w.steps[4].kind, StepKind::kSleep);
  EXPECT_EQ(w.steps[4].sleep_ms, "${hold_ms}");
  EXPECT_EQ(w.steps[4].name, "sleep_ms5");
  EXPECT_EQ(w.steps[5].name, "sql6");
  EXPECT_EQ(w.steps[6].kind, StepKind::kCommit);
  EXPECT_EQ(w.steps[6].name, "commit7");

  const SessionSpec& b = s.sessions[1];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.count, "1");
  EXPECT_FALSE(b.retry.has_value());
  ASSERT_EQ(b.steps.size(), 4u);
  EXPECT_EQ(b.steps[1].kind, StepKind::kAwaitBlocked);
  EXPECT_EQ(b.steps[1].target, "worker");
  EXPECT_EQ(b.steps[1].timeout_ms, "5000");
  EXPECT_EQ(b.steps[1].name, "await_blocked2");
  EXPECT_EQ(b.steps[2].kind, StepKind::kTerminate);
  EXPECT_EQ(b.steps[2].target, "worker");
  EXPECT_EQ(b.steps[2].name, "kill");
  EXPECT_EQ(b.steps[3].kind, StepKind::kRollback);

  EXPECT_EQ(s.outcome.win_step, "claim");
  EXPECT_EQ(s.outcome.win_rows, "1");
  EXPECT_TRUE(s.outcome.win_committed);
  EXPECT_EQ(s.outcome.claim_step, "claim");
  EXPECT_EQ(s.outcome.claim_column, "id");

  const ExpectSpec& e = s.expect;
  EXPECT_EQ(e.winners->at_least, "1");
  ASSERT_TRUE(e.sqlstates.has_value());
  ASSERT_EQ(e.sqlstates->size(), 1u);
  EXPECT_EQ(e.sqlstates->at("40001").at_least, "${workers} - 1");
  EXPECT_EQ(e.distinct_claims, true);
  EXPECT_EQ(e.lock_waits->at_least, "0");
  ASSERT_TRUE(e.step_rows.has_value());
  ASSERT_EQ(e.step_rows->size(), 1u);
  EXPECT_EQ((*e.step_rows)[0].step, "claim");
  EXPECT_EQ((*e.step_rows)[0].rows, "0");
  EXPECT_EQ((*e.step_rows)[0].sessions.at_least, "${workers} - 1");
  EXPECT_TRUE((*e.step_rows)[0].sessions.exact);
  EXPECT_EQ((*e.step_rows)[0].loc.line, 47);
  ASSERT_TRUE(e.blocked.has_value());
  ASSERT_EQ(e.blocked->size(), 1u);
  const BlockedSpec& bl = (*e.blocked)[0];
  EXPECT_EQ(bl.session, "b");
  EXPECT_EQ(bl.step, "kill");
  EXPECT_EQ(bl.min_ms, "${hold_ms} * 0.95");
  EXPECT_EQ(bl.max_ms, "${hold_ms} + 500");
  EXPECT_EQ(bl.by, "worker");
  ASSERT_TRUE(e.final.has_value());
  ASSERT_EQ(e.final->size(), 2u);
  EXPECT_EQ((*e.final)[0].sql, "SELECT attempts FROM runs WHERE id = 1");
  EXPECT_EQ((*e.final)[0].equals, "1");
  EXPECT_EQ((*e.final)[1].equals, "NULL");

  ASSERT_EQ(s.expect_at.size(), 2u);
  const ExpectSpec& rr = s.expect_at.at(IsolationLevel::kRepeatableRead);
  EXPECT_EQ(rr.winners, "1");
  EXPECT_THAT(*rr.sqlstates, ElementsAre(Pair("40001", "${workers} - 1")));
  EXPECT_FALSE(rr.lock_waits.has_value());
  const ExpectSpec& ser = s.expect_at.at(IsolationLevel::kSerializable);
  EXPECT_EQ(ser.lock_waits, "1");
  EXPECT_FALSE(ser.winners.has_value());
}

TEST(ScenarioLoaderTest, DefaultsForOptionalKeys) {
  Result<Scenario> r = LoadScenarioText(R"(name: minimal
title: Minimal
teaches: Nothing much.
sessions:
  - name: solo
    steps: [begin, { sql: SELECT 1 }, commit]
expect: { lock_waits: 0 }
)",
                                        "m.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->isolation, AllIsolationLevels());
  EXPECT_TRUE(r->tags.empty());
  EXPECT_TRUE(r->params.empty());
  EXPECT_EQ(r->setup, "");
  EXPECT_EQ(r->sessions[0].count, "1");
  EXPECT_EQ(r->sessions[0].steps[1].name, "sql2");
  EXPECT_TRUE(r->outcome.win_step.empty());
  EXPECT_FALSE(r->expect.winners.has_value());
  EXPECT_TRUE(r->expect_at.empty());
}

TEST(ScenarioLoaderTest, SingleValuesForLists) {
  Result<Scenario> r = LoadScenarioText(R"(name: single
title: Single
teaches: One value where a list is expected.
tags: claim
isolation: serializable
sessions:
  - name: solo
    retry: { sqlstates: 40001 }
    steps: [begin, { sql: SELECT 1 AS one, capture: one }, commit]
expect: { lock_waits: 0 }
)",
                                        "s.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(r->tags, ElementsAre("claim"));
  EXPECT_THAT(r->isolation, ElementsAre(IsolationLevel::kSerializable));
  EXPECT_THAT(r->sessions[0].retry->on, ElementsAre("40001"));
  EXPECT_EQ(r->sessions[0].retry->attempts, "5");
  EXPECT_THAT(r->sessions[0].steps[1].capture, ElementsAre("one"));
}

TEST(ScenarioLoaderTest, FileNotFound) {
  Result<Scenario> r = LoadScenarioFile("/nonexistent/x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_EQ(r.status().message(),
            "/nonexistent/x.yaml: cannot open scenario file: No such file or directory");
}

}  // namespace
}  // namespace racelab
