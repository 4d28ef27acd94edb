// Loader: each malformed scenario is a kUsage error "FILE:LINE:COL: FIELD_PATH: what is wrong".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/loader/scenario_loader.h"
#include "tests/unit/loader_text.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A valid scenario; each test replaces one line (1-based) to make one defect.
const std::vector<std::string> kBase = {
    "name: t",                                                                    // 1
    "title: T",                                                                   // 2
    "teaches: L",                                                                 // 3
    "params: { workers: 2 }",                                                     // 4
    "sessions:",                                                                  // 5
    "  - name: worker",                                                           // 6
    "    count: ${workers}",                                                      // 7
    "    steps:",                                                                 // 8
    "      - begin",                                                              // 9
    "      - barrier: go",                                                        // 10
    "      - sql: UPDATE runs SET status = 'running' WHERE id = 1 RETURNING id",  // 11
    "        name: claim",                                                        // 12
    "      - commit",                                                             // 13
    "outcome: { win: { step: claim } }",                                          // 14
    "expect: { winners: 1 }",                                                     // 15
};

std::string With(const std::vector<std::pair<int, std::string>>& changes) {
  return testing::EditLines(kBase, changes);
}

using testing::ErrorOf;

TEST(ScenarioErrorsTest, BaseIsValid) { EXPECT_EQ(ErrorOf(With({})), "(loaded without error)"); }

// SQLite has one isolation level and no READ ONLY or DEFERRABLE transaction (docs/sqlite.md): a
// `begin` asking for one is refused when the file loads, each with its line, column and field — not
// at run time after setup with only the first of them.
TEST(ScenarioErrorsTest, BeginModesSqliteLacksAreRefusedWhenLoaded) {
  const std::string sqlite =
      "teaches: L\nengines: [postgresql, sqlite]";  // lines after 3 move down by one
  std::string msg =
      ErrorOf(With({{3, sqlite}, {9, "      - { begin: , isolation: rc, read_only: true }"}}));
  EXPECT_THAT(
      msg,
      StartsWith("t.yaml:10:31: sessions[0].steps[0].isolation: SQLite has one isolation level, "
                 "serializable: a begin cannot run at read committed"));
  EXPECT_THAT(msg,
              HasSubstr("\nt.yaml:10:46: sessions[0].steps[0].read_only: SQLite has no READ ONLY "
                        "transaction mode"));
  EXPECT_THAT(ErrorOf(With({{3, sqlite}, {9, "      - { begin: , deferrable: true }"}})),
              StartsWith("t.yaml:10:32: sessions[0].steps[0].deferrable: SQLite has no DEFERRABLE "
                         "transaction mode"));
  // What SQLite has is accepted, and the modes load for the other engines.
  EXPECT_EQ(ErrorOf(With({{3, sqlite},
                          {9, "      - { begin: , isolation: serializable, read_only: false }"}})),
            "(loaded without error)");
  EXPECT_EQ(ErrorOf(With({{9, "      - { begin: , isolation: rc, read_only: true }"}})),
            "(loaded without error)");
}

// Levels come from the engine's traits (issue 20 item 12): a scenario without `isolation:` runs on
// SQLite once, at serializable, and on the others at the three default levels; a level an engine
// does cannot begin is refused at its line.
TEST(ScenarioErrorsTest, LevelsAreTheEnginesOwn) {
  const std::string engines = "teaches: L\nengines: [postgresql, mariadb, sqlite]";
  Result<Scenario> r = LoadScenarioText(testing::EditLines(kBase, {{3, engines}}), "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->isolation, AllIsolationLevels());
  EXPECT_EQ(r->ForEngine("mariadb")->isolation, AllIsolationLevels());
  EXPECT_EQ(r->ForEngine("sqlite")->isolation,
            std::vector<IsolationLevel>{IsolationLevel::kSerializable});
  const std::string sqlite =
      "teaches: L\nengines: [sqlite]\nisolation: [serializable, read committed]";
  EXPECT_THAT(
      ErrorOf(With({{3, sqlite}})),
      StartsWith(
          "t.yaml:5:27: isolation[1]: SQLite has one isolation level, serializable: it cannot run "
          "at read committed"));
  // PostgreSQL runs read uncommitted as read committed: asked for, it runs.
  EXPECT_EQ(ErrorOf(With({{3, "teaches: L\nisolation: [read uncommitted]"}})),
            "(loaded without error)");
}

TEST(ScenarioErrorsTest, BadYaml) {
  EXPECT_THAT(ErrorOf(With({{10, "      - barrier: [go"}})), StartsWith("t.yaml:11:"));
  EXPECT_THAT(ErrorOf(With({{10, "      - barrier: [go"}})), HasSubstr("invalid YAML"));
  EXPECT_THAT(ErrorOf(With({{4, "params: { workers: 2"}})), StartsWith("t.yaml:5:9: invalid YAML"));
  EXPECT_THAT(ErrorOf(With({{14, "outcome: { win: { step: claim, rows: ${workers} } }"}})),
              HasSubstr("quote a value that uses ${...}"));
  EXPECT_THAT(ErrorOf(""), StartsWith("t.yaml:1:1: the file is empty"));
  EXPECT_THAT(ErrorOf("name: t\n---\nname: u\n"), StartsWith("t.yaml:3:1: one scenario per file"));
}

TEST(ScenarioErrorsTest, UnknownKey) {
  std::string msg = ErrorOf(With({{7, "    cont: ${workers}"}}));
  EXPECT_THAT(msg,
              StartsWith("t.yaml:7:5: sessions[0].cont: unknown key 'cont' (did you mean "
                         "'count'? expected one of: name, count, node, settings, retry, steps, "
                         "exec, pauses, timeout_ms)"));
  EXPECT_THAT(msg, Not(HasSubstr("barrier")));  // no cascade from the unknown count
  EXPECT_THAT(ErrorOf(With({{15, "expectt: { winners: 1 }"}})),
              StartsWith("t.yaml:15:1: expectt: unknown key 'expectt' (did you mean 'expect'?"));
  EXPECT_THAT(ErrorOf(With({{14, "outcome: { win: { step: claim, row: 1 } }"}})),
              StartsWith("t.yaml:14:32: outcome.win.row: unknown key 'row'"));
  EXPECT_THAT(
      ErrorOf(With({{12, "        name: claim\n        captures: [id]"}})),
      StartsWith(
          "t.yaml:13:9: sessions[0].steps[2].captures: unknown key 'captures' for "
          "a sql step (expected one of: sql, name, capture, when, on_error, timeout_ms, ask)"));
  EXPECT_THAT(ErrorOf(With({{10, "      - { barrier: go, on_error: continue }"}})),
              StartsWith("t.yaml:10:24: sessions[0].steps[1].on_error: unknown key 'on_error' for "
                         "a barrier step"));
}

TEST(ScenarioErrorsTest, MissingKeyAndWrongType) {
  EXPECT_THAT(ErrorOf(With({{2, "# no title"}})),
              StartsWith("t.yaml:1:1: title: missing required key 'title'"));
  EXPECT_THAT(ErrorOf(With({{7, "    count: [2]"}})),
              StartsWith("t.yaml:7:12: sessions[0].count: expected a number or an expression"));
  EXPECT_THAT(ErrorOf(With({{8, "    steps: { begin: 1 }"},
                            {9, ""},
                            {10, ""},
                            {11, ""},
                            {12, ""},
                            {13, ""},
                            {14, ""},
                            {15, ""}})),
              StartsWith("t.yaml:8:12: sessions[0].steps: expected a list, found a mapping"));
  EXPECT_THAT(ErrorOf(With({{4, "params: { workers: [1, 2] }"}})),
              StartsWith("t.yaml:4:20: params.workers: a param default must be a number or text, "
                         "found a list"));
  EXPECT_THAT(ErrorOf(With({{14, "outcome: { win: { step: claim, committed: maybe } }"}})),
              StartsWith("t.yaml:14:43: outcome.win.committed: expected true or false"));
  EXPECT_THAT(ErrorOf(With({{9, "      - begin: now"}})),
              StartsWith("t.yaml:9:16: sessions[0].steps[0].begin: 'begin' takes no value"));
}

TEST(ScenarioErrorsTest, UnknownStep) {
  EXPECT_THAT(ErrorOf(With({{10, "      - barier: go"}})),
              StartsWith("t.yaml:10:9: sessions[0].steps[1]: unknown step 'barier' (did you mean "
                         "'barrier'? expected one of: begin, sql, barrier, sleep_ms, "
                         "await_blocked, await_ended, terminate, commit, rollback, probe)"));
  // Its name is still known: no second error from the outcome that names it.
  std::string msg = ErrorOf(With({{11, "      - sqll: UPDATE runs SET status = 'running'"}}));
  EXPECT_THAT(msg, StartsWith("t.yaml:11:9: sessions[0].steps[2]: unknown step 'sqll'"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_THAT(ErrorOf(With({{9, "      - bgin"}})),
              StartsWith("t.yaml:9:9: sessions[0].steps[0]: unknown step 'bgin'"));
  EXPECT_THAT(ErrorOf(With({{9, "      - barrier"}})),
              StartsWith("t.yaml:9:9: sessions[0].steps[0]: step 'barrier' needs a value"));
  EXPECT_THAT(ErrorOf(With({{10, "      - { barrier: go, sql: SELECT 1 }"}})),
              StartsWith("t.yaml:10:24: sessions[0].steps[1]: a step does one thing"));
}

TEST(ScenarioErrorsTest, MissingBarrierPartner) {
  EXPECT_THAT(ErrorOf(With({{7, "    count: 1"}})),
              StartsWith("t.yaml:10:18: sessions[0].steps[1].barrier: missing barrier partner: "
                         "barrier 'go' is met by only 1 session instance (worker x 1)"));
  // The count is evaluated with the param defaults.
  EXPECT_THAT(ErrorOf(With({{4, "params: { workers: 1 }"}})),
              StartsWith("t.yaml:10:18: sessions[0].steps[1].barrier: missing barrier partner"));
  // Two roles of one instance each meet.
  EXPECT_EQ(ErrorOf(With({{7, "    count: 1"},
                          {13,
                           "      - commit\n  - name: other\n    steps: "
                           "[{ barrier: go }]"}})),
            "(loaded without error)");
}

TEST(ScenarioErrorsTest, BarriersThatWouldWaitForever) {
  // Listed twice by worker, once by other: the second meeting would strand worker.
  EXPECT_THAT(ErrorOf(With({{7, "    count: 1"},
                            {13,
                             "      - barrier: go\n      - commit\n  - name: other\n"
                             "    steps: [{ barrier: go }]"}})),
              StartsWith("t.yaml:10:18: sessions[0].steps[1].barrier: barrier 'go' is listed 2 "
                         "time(s) by session 'worker' but 1 time(s) by session 'other'"));
  // Met in opposite orders.
  EXPECT_THAT(ErrorOf(With({{13,
                             "      - barrier: done\n      - commit\n  - name: other\n"
                             "    steps: [{ barrier: done }, { barrier: go }]"}})),
              StartsWith("t.yaml:16:13: sessions[1].steps[0].barrier: barrier 'done' comes where "
                         "session 'worker' meets 'go'"));
}

TEST(ScenarioErrorsTest, BadParamReference) {
  EXPECT_THAT(ErrorOf(With({{11, "      - sql: UPDATE runs SET x = 1 WHERE id = ${run_id}"}})),
              StartsWith("t.yaml:11:14: sessions[0].steps[2].sql: unknown reference ${run_id}: not "
                         "a declared param (params: workers)"));
  EXPECT_THAT(ErrorOf(With({{3, "teaches: L\nsetup: INSERT INTO t VALUES (${n})"}})),
              StartsWith("t.yaml:4:8: setup: unknown reference ${n}"));
  EXPECT_THAT(ErrorOf(With({{15, "expect: { final: [ { sql: \"SELECT ${x}\", equals: 1 } ] }"}})),
              StartsWith("t.yaml:15:27: expect.final[0].sql: unknown reference ${x}"));
  // A capture of a later step is not available yet.
  EXPECT_THAT(ErrorOf(With({{9, "      - sql: SELECT ${id}"}})),
              StartsWith("t.yaml:9:14: sessions[0].steps[0].sql: unknown reference ${id}"));
  // A name that is both a param and an earlier capture is ambiguous.
  EXPECT_THAT(ErrorOf(With({{9, "      - { sql: SELECT 7 AS workers, capture: workers }"},
                            {13, "      - sql: SELECT ${workers}"}})),
              StartsWith("t.yaml:13:14: sessions[0].steps[3].sql: ${workers} is ambiguous"));
  // A capture of an earlier step is.
  EXPECT_EQ(ErrorOf(With({{9, "      - { sql: SELECT 7 AS id, capture: id }"},
                          {13, "      - sql: SELECT ${id}"}})),
            "(loaded without error)");
}

TEST(ScenarioErrorsTest, BadExpr) {
  EXPECT_THAT(ErrorOf(With({{15, "expect: { winners: \"${workers} -\" }"}})),
              StartsWith("t.yaml:15:20: expect.winners: '${workers} -' is not a number"));
  EXPECT_THAT(ErrorOf(With({{7, "    count: 0"}})),
              StartsWith("t.yaml:7:12: sessions[0].count: '0' must be an integer from 1 to 1000"));
  EXPECT_THAT(ErrorOf(With({{7, "    count: ${workers} / 4"}})),
              StartsWith("t.yaml:7:12: sessions[0].count: '${workers} / 4' is not an integer"));
  EXPECT_THAT(ErrorOf(With({{15, "expect: { at: { serializable: { winners: 1 / 0 } } }"}})),
              StartsWith("t.yaml:15:42: expect.at.serializable.winners: '1 / 0': division by "
                         "zero"));
  EXPECT_THAT(ErrorOf(With({{10, "      - sleep_ms: -5"}})),
              StartsWith("t.yaml:10:19: sessions[0].steps[1].sleep_ms: '-5' must be a number of "
                         "ms from 0 to 86400000 (24 h)"));
}

TEST(ScenarioErrorsTest, DuplicateNames) {
  EXPECT_THAT(ErrorOf(With({{13, "      - { commit: null, name: claim }"}})),
              StartsWith("t.yaml:13:31: sessions[0].steps[3].name: duplicate step name 'claim' in "
                         "session 'worker' (also steps[2])"));
  // A default name counts too.
  EXPECT_THAT(ErrorOf(With({{12, "        name: commit4"}})),
              StartsWith("t.yaml:13:9: sessions[0].steps[3]: duplicate step name 'commit4'"));
  EXPECT_THAT(
      ErrorOf(With({{13, "      - commit\n  - name: worker\n    steps: [{ barrier: go }]"}})),
      StartsWith("t.yaml:14:11: sessions[1].name: duplicate session name 'worker'"));
}

TEST(ScenarioErrorsTest, UnknownReferencedNames) {
  EXPECT_THAT(ErrorOf(With({{14, "outcome: { win: { step: clam } }"}})),
              StartsWith("t.yaml:14:25: outcome.win.step: unknown step 'clam' (did you mean "
                         "'claim'? steps: begin1, barrier2, claim, commit4)"));
  EXPECT_THAT(
      ErrorOf(With({{14, "outcome: { claim: { step: claim, column: id } }"}, {15, "expect: {}"}})),
      StartsWith("t.yaml:14:42: outcome.claim.column: step 'claim' does not capture 'id'"));
  EXPECT_THAT(
      ErrorOf(With({{15, "expect: { blocked: [ { session: w, step: claim, min_ms: 1 } ] }"}})),
      StartsWith("t.yaml:15:33: expect.blocked[0].session: unknown session 'w' (sessions: "
                 "worker)"));
  EXPECT_THAT(ErrorOf(With({{15, "expect: { step_rows: [ { step: x, rows: 1, sessions: 1 } ] }"}})),
              StartsWith("t.yaml:15:32: expect.step_rows[0].step: unknown step 'x'"));
  EXPECT_THAT(ErrorOf(With({{9, "      - await_blocked: other"}})),
              StartsWith("t.yaml:9:24: sessions[0].steps[0].await_blocked: unknown session "
                         "'other' (sessions: worker)"));
  EXPECT_THAT(ErrorOf(With({{9, "      - terminate: worker"}})),
              StartsWith("t.yaml:9:20: sessions[0].steps[0].terminate: a session cannot target "
                         "its own role 'worker'"));
  EXPECT_THAT(ErrorOf(With({{14, "# no outcome"}})),
              StartsWith("t.yaml:15:20: expect.winners: counting winners needs outcome.win"));
}

TEST(ScenarioErrorsTest, ConditionsAndCodes) {
  EXPECT_THAT(ErrorOf(With({{12, "        name: claim\n        when: \"status == 'queued'\""}})),
              StartsWith("t.yaml:13:15: sessions[0].steps[2].when: 'status' is not captured by an "
                         "earlier step of this session"));
  EXPECT_THAT(ErrorOf(With({{12, "        name: claim\n        when: status = 1"}})),
              StartsWith("t.yaml:13:15: sessions[0].steps[2].when: bad condition 'status = 1': "
                         "expected == != < <= > or >="));
  EXPECT_THAT(ErrorOf(With({{9, "      - { sql: SELECT 1 AS s, capture: s }"},
                            {12, "        name: claim\n        when: \"s == 'it''s'\""}})),
              StartsWith("t.yaml:13:15: sessions[0].steps[2].when: bad condition 's == 'it''s'': "
                         "unexpected ''s'' at the end"));
  EXPECT_THAT(ErrorOf(With({{15, "expect: { sqlstates: { 4001: 1 } }"}})),
              StartsWith("t.yaml:15:24: expect.sqlstates.4001: '4001' is not a SQLSTATE"));
  EXPECT_THAT(ErrorOf(With({{3, "teaches: L\nisolation: [rc, snapshot]"}})),
              StartsWith("t.yaml:4:17: isolation[1]: unknown isolation level 'snapshot'"));
  EXPECT_THAT(ErrorOf(With({{15, "expect: { at: { snapshot: { winners: 1 } } }"}})),
              StartsWith("t.yaml:15:17: expect.at.snapshot: unknown isolation level 'snapshot'"));
  EXPECT_THAT(ErrorOf(With({{9, "      - sql: SELECT 1\n        on_error: ignore"}})),
              StartsWith("t.yaml:10:19: sessions[0].steps[0].on_error: unknown on_error 'ignore' "
                         "(expected abort or continue)"));
  EXPECT_THAT(ErrorOf(With({{7, "    count: 2\n    retry: { sqlstates: [\"40001\"] }"},
                            {9,
                             "      - sql: "
                             "SELECT 1"}})),
              StartsWith("t.yaml:8:12: sessions[0].retry: retry restarts the transaction from its "
                         "'begin' step"));
}

// `retry.sqlstates` was `on`, a key YAML 1.1 tools read as the boolean true: the old name is taken
// only quoted; plain, it is an error that names both ways out; both names at once is an error.
TEST(ScenarioErrorsTest, RetryOldKeyOnOnlyQuoted) {
  EXPECT_EQ(ErrorOf(With({{7, "    count: ${workers}\n    retry: { sqlstates: [\"40001\"] }"}})),
            "(loaded without error)");
  EXPECT_EQ(ErrorOf(With({{7, "    count: ${workers}\n    retry: { \"on\": [\"40001\"] }"}})),
            "(loaded without error)");
  EXPECT_EQ(ErrorOf(With({{7, "    count: ${workers}\n    retry: { 'on': [\"40001\"] }"}})),
            "(loaded without error)");
  EXPECT_EQ(
      ErrorOf(With({{7, "    count: ${workers}\n    retry: { on: [\"40001\"] }"}})),
      "t.yaml:8:14: sessions[0].retry.on: YAML 1.1 tools (PyYAML, a JSON Schema check from Python) "
      "read the key 'on' as the boolean true: write sqlstates: (its name now), or quote the old "
      "name: \"on\":");
  EXPECT_THAT(
      ErrorOf(With(
          {{7,
            "    count: ${workers}\n    retry: { sqlstates: [\"40001\"], \"on\": [\"40P01\"] }"}})),
      StartsWith(
          "t.yaml:8:42: sessions[0].retry.on: give sqlstates only (\"on\" is its old name)"));
  EXPECT_THAT(
      ErrorOf(With({{7, "    count: ${workers}\n    retry: { attempts: 3 }"}})),
      StartsWith("t.yaml:8:12: sessions[0].retry.sqlstates: missing required key 'sqlstates'"));
}

TEST(ScenarioErrorsTest, DefinedAndRowsConditions) {
  const std::pair<int, std::string> read = {
      9, "      - { sql: SELECT 1 AS s, capture: s, name: read }"};
  for (const char* when : {"defined(s)", "!defined(s)", "rows(read) == 0", "rows(read) >= 1"}) {
    EXPECT_EQ(
        ErrorOf(
            With({read, {12, std::string("        name: claim\n        when: \"") + when + "\""}})),
        "(loaded without error)")
        << when;
  }
  EXPECT_THAT(
      ErrorOf(With({read, {12, "        name: claim\n        when: \"defined(id)\""}})),
      StartsWith("t.yaml:13:15: sessions[0].steps[2].when: 'id' is not captured by an earlier step "
                 "of this session (captured so far: s)"));
  EXPECT_THAT(
      ErrorOf(With({read, {12, "        name: claim\n        when: \"rows(claim) > 0\""}})),
      StartsWith("t.yaml:13:15: sessions[0].steps[2].when: rows(claim): not an earlier sql step of "
                 "this session (earlier sql steps: read)"));
  EXPECT_THAT(
      ErrorOf(With({{12, "        name: claim\n        when: \"rows(begin1) > 0\""}})),
      StartsWith("t.yaml:13:15: sessions[0].steps[2].when: rows(begin1): not an earlier sql step"));
  // sqlstate() and failed() name any earlier statement step, begin/commit/rollback included.
  EXPECT_EQ(
      ErrorOf(With({{12, "        name: claim\n        when: \"sqlstate(begin1) == '25P02'\""}})),
      "(loaded without error)");
  EXPECT_EQ(ErrorOf(With({{12, "        name: claim\n        when: \"!failed(begin1)\""}})),
            "(loaded without error)");
  EXPECT_THAT(
      ErrorOf(With({{12, "        name: claim\n        when: \"failed(claim)\""}})),
      StartsWith(
          "t.yaml:13:15: sessions[0].steps[2].when: failed(claim): not an earlier statement step "
          "of this session (earlier statement steps: begin1)"));
  EXPECT_THAT(
      ErrorOf(With({read, {12, "        name: claim\n        when: \"!s == 1\""}})),
      StartsWith("t.yaml:13:15: sessions[0].steps[2].when: bad condition '!s == 1': '!' goes only "
                 "before defined(NAME)"));
}

TEST(ScenarioErrorsTest, EveryLevelMustCheckSomething) {
  // An override that empties the only list at one level.
  EXPECT_THAT(
      ErrorOf(With({{15,
                     "expect: { step_rows: [ { step: claim, rows: 1, sessions: 1 } ],\n"
                     "          at: { serializable: { step_rows: [] } } }"}})),
      StartsWith("t.yaml:16:17: expect.at.serializable: leaves nothing to check at serializable: a "
                 "trial there would pass whatever happened"));
  // ...is fine when the scenario does not run that level, or the base keeps another check.
  EXPECT_EQ(ErrorOf(With({{3, "teaches: L\nisolation: [rc, rr]"},
                          {15,
                           "expect: { step_rows: [ { step: claim, rows: 1, sessions: 1 } ],\n"
                           "          at: { serializable: { step_rows: [] } } }"}})),
            "(loaded without error)");
  EXPECT_EQ(
      ErrorOf(
          With({{15, "expect: { winners: 1, at: { serializable: { final: [], blocked: [] } } }"}})),
      "(loaded without error)");
  EXPECT_EQ(ErrorOf(With({{15, "expect: { sqlstates: {} }"}})), "(loaded without error)");
  // Nothing at all, at every level.
  std::string msg = ErrorOf(With({{15, "expect: { step_rows: [], distinct_claims: false }"}}));
  EXPECT_THAT(msg, StartsWith("t.yaml:15:9: expect: nothing to check at read committed"));
  EXPECT_THAT(msg, HasSubstr("\nt.yaml:15:9: expect: nothing to check at serializable"));
  EXPECT_THAT(ErrorOf(With({{15, ""}})),
              StartsWith("t.yaml:1:1: expect: no expect: a trial would pass "
                         "whatever happened"));
}

TEST(ScenarioErrorsTest, ReportsEveryErrorInFileOrder) {
  std::string msg = ErrorOf(With({{7, "    cont: 2"}, {14, "outcome: { win: { step: clam } }"}}));
  EXPECT_THAT(msg, StartsWith("t.yaml:7:5: sessions[0].cont: unknown key"));
  EXPECT_THAT(msg, HasSubstr("\nt.yaml:14:25: outcome.win.step: unknown step 'clam'"));
}

// The fixtures a CLI test also uses: each has one defect, named in its first line.
struct Fixture {
  const char* file;
  const char* prefix;  // after the path
};

TEST(ScenarioErrorsTest, BadFixtureFiles) {
  const Fixture kFixtures[] = {
      {"bad_yaml.yaml", ":6:7: invalid YAML"},
      {"unknown_key.yaml", ":11:5: sessions[0].cont: unknown key 'cont'"},
      {"unknown_step.yaml", ":14:9: sessions[0].steps[1]: unknown step 'barier'"},
      {"missing_barrier_partner.yaml",
       ":13:18: sessions[0].steps[1].barrier: missing barrier partner"},
      {"bad_param.yaml", ":15:14: sessions[0].steps[2].sql: unknown reference ${run_id}"},
      {"bad_expr.yaml", ":21:50: expect.step_rows[0].sessions: '${workers} -' is not a number"},
      {"duplicate_step.yaml", ":18:15: sessions[0].steps[3].name: duplicate step name 'claim'"},
      {"unknown_outcome_step.yaml", ":18:25: outcome.win.step: unknown step 'clam'"},
      {"level_without_check.yaml",
       ":21:5: expect.at.serializable: leaves nothing to check at serializable"},
      {"barrier_cycle.yaml", ":8:14: sessions[0].steps[0].barrier: barrier cycle: session 'a'"},
      {"deep_expression.yaml",
       ":7:12: sessions[0].count: '((((((((((((((((((((((((((((((((((((((((2"},
  };
  for (const Fixture& f : kFixtures) {
    std::string path = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/bad/" + f.file;
    Result<Scenario> r = LoadScenarioFile(path);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), StatusCode::kUsage);
    EXPECT_THAT(r.status().message(), StartsWith(path + f.prefix));
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos)
        << "one defect, one error: " << r.status().message();
  }
}

}  // namespace
}  // namespace racelab
