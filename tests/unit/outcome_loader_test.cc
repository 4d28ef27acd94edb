// Loading and planning of issue 11 items 3, 4 and 10: `errors` (a step's or a session's SQLSTATE,
// message and DETAIL), counts with bounds, `one_of` with `min_fraction`, and `final` with `any_of`
// — with their bad input (file:line:col and field path).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Line 14 is `expect:`; the tests append their expectations after it (line 15 on).
constexpr char kHead[] = R"(name: outcome-sample
title: Outcome sample
teaches: Errors, bounds and alternatives.
params: { workers: 3 }
setup: CREATE TABLE t (id int)
sessions:
  - name: worker
    count: ${workers}
    steps:
      - begin
      - { sql: "UPDATE t SET id = 1", name: claim, on_error: continue }
      - { commit: , name: commit }
outcome: { win: { step: claim } }
expect:
)";

Result<Scenario> Load(const std::string& expect, const std::string& engines = "") {
  std::string text = kHead;
  if (!engines.empty()) text.insert(text.find("params:"), "engines: " + engines + "\n");
  return LoadScenarioText(text + expect, "o.yaml");
}

std::string ErrorOf(const std::string& expect, const std::string& engines = "") {
  Result<Scenario> s = Load(expect, engines);
  return s.ok() ? "(loaded)" : s.status().message();
}

PlanItem PlanOne(const Scenario& s, std::map<std::string, std::string> set = {}) {
  PlanOptions options;
  options.isolation = {IsolationLevel::kSerializable};
  options.set = std::move(set);
  Result<std::vector<PlanItem>> items = ExpandScenario(s, options);
  EXPECT_TRUE(items.ok()) << items.status().message();
  return items.ok() && !items->empty() ? (*items)[0] : PlanItem{};
}

TEST(OutcomeLoaderTest, ErrorsEntryLoadsAndPlansWithEveryInstanceAsDefault) {
  Result<Scenario> s = Load(
      "  errors:\n"
      "    - { session: worker, step: commit, sqlstate: \"40001\", message: 'could not serialize', "
      "detail: pivot }\n"
      "    - { step: claim, sqlstate: 40P01, sessions: { at_most: 1 } }\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanItem item = PlanOne(*s);
  ASSERT_EQ(item.expect.errors.size(), 2u);
  const PlannedError& e = item.expect.errors[0];
  EXPECT_EQ(e.session, "worker");
  EXPECT_EQ(e.step, "commit");
  EXPECT_EQ(e.message, "could not serialize");
  EXPECT_EQ(e.detail, "pivot");
  EXPECT_EQ(e.sessions, CountRange(3));  // every instance of worker (count: ${workers})
  EXPECT_EQ(item.expect.errors[1].sessions, CountRange::Between(0, 1));
}

// More sessions of a role than it has could never fail so: refused when planned, before any trial,
// as blocked.instances is (a new user's trial: every trial failed instead).
TEST(OutcomeLoaderTest, ErrorsSessionsMoreThanTheRoleHasAreRefusedWhenPlanned) {
  Result<Scenario> s = Load(
      "  errors: [ { session: worker, sqlstate: \"40001\", sessions: \"${workers} + 1\" } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, PlanOptions{});
  ASSERT_FALSE(items.ok());
  EXPECT_THAT(
      items.status().message(),
      StartsWith(
          "o.yaml:15:13: expect.errors[0].sessions: sessions '${workers} + 1' = 4 is more than "
          "session 'worker' has (3)"));
  s = Load("  errors: [ { session: worker, sqlstate: \"40001\", sessions: { at_least: 4 } } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  items = ExpandScenario(*s, PlanOptions{});
  ASSERT_FALSE(items.ok());
  EXPECT_THAT(
      items.status().message(),
      StartsWith("o.yaml:15:13: expect.errors[0].sessions.at_least: at_least '4' = 4 is more than "
                 "session 'worker' has (3)"));
  s = Load(
      "  errors: [ { session: worker, sqlstate: \"40001\", sessions: { at_most: 4 } } ]\n");  // at
                                                                                              // most:
                                                                                              // may
                                                                                              // hold
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(ExpandScenario(*s, PlanOptions{}).ok());
}

TEST(OutcomeLoaderTest, ErrorsEntryBadInputNamesLineColumnAndField) {
  EXPECT_THAT(ErrorOf("  errors: [ { session: worker, message: 'pivot (' } ]\n"),
              StartsWith("o.yaml:15:41: expect.errors[0].message: 'pivot (' is not an ECMAScript "
                         "regular expression"));
  EXPECT_THAT(ErrorOf("  errors: [ { session: worker, message: '(a)\\1' } ]\n"),
              StartsWith("o.yaml:15:41: expect.errors[0].message: '(a)\\1' is not an ECMAScript "
                         "regular expression"));
  EXPECT_THAT(
      ErrorOf("  errors: [ { session: worker, message: 'a{1000}{1000}' } ]\n"),
      StartsWith(
          "o.yaml:15:41: expect.errors[0].message: 'a{1000}{1000}' is not an ECMAScript regular"));
  EXPECT_THAT(
      ErrorOf("  errors: [ { step: claim, sqlstate: \"40001\" } ]\n"),
      StartsWith("o.yaml:15:13: expect.errors[0]: an errors entry without session needs sessions"));
  EXPECT_THAT(
      ErrorOf("  errors: [ { session: worker } ]\n"),
      StartsWith(
          "o.yaml:15:13: expect.errors[0]: an errors entry checks sqlstate, message, detail"));
  EXPECT_THAT(ErrorOf("  errors: [ { session: wrker, sqlstate: \"40001\" } ]\n"),
              StartsWith("o.yaml:15:24: expect.errors[0].session: unknown session 'wrker'"));
  EXPECT_THAT(ErrorOf("  errors: [ { session: worker, sqlstate: \"4001\" } ]\n"),
              StartsWith("o.yaml:15:42: expect.errors[0].sqlstate: '4001' is not a SQLSTATE"));
  EXPECT_THAT(ErrorOf("  errors: [ { session: worker, detail: pivot } ]\n", "[mariadb]"),
              HasSubstr("expect.errors[0].detail: mariadb sends no DETAIL with its errors"));
}

TEST(OutcomeLoaderTest, CountsTakeBoundsEverywhere) {
  Result<Scenario> s = Load(
      "  winners: { at_least: 1, at_most: \"${workers} - 1\" }\n"
      "  sqlstates: { \"40001\": { at_most: 2 }, 40P01: 0 }\n"
      "  lock_waits: { at_least: 1 }\n"
      "  step_rows: [ { step: claim, rows: 0, sessions: { at_least: 0, at_most: 2 } } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanItem item = PlanOne(*s);
  EXPECT_EQ(*item.expect.winners, CountRange::Between(1, 2));
  EXPECT_EQ(item.expect.winners->Text(), ">= 1 and <= 2");
  EXPECT_EQ(item.expect.sqlstates->at("40001").Text(), "<= 2");
  EXPECT_EQ(item.expect.sqlstates->at("40P01").Text(), "= 0");
  EXPECT_EQ(item.expect.lock_waits->Text(), ">= 1");
  EXPECT_EQ(item.expect.step_rows[0].sessions, CountRange::Between(0, 2));
}

TEST(OutcomeLoaderTest, BadBoundsNameLineColumnAndField) {
  EXPECT_THAT(ErrorOf("  winners: { at_least: 2, at_most: 1 }\n"),
              StartsWith("o.yaml:15:24: expect.winners.at_least: at_least '2' = 2 is greater than "
                         "at_most '1' = 1"));
  EXPECT_THAT(ErrorOf("  winners: {}\n"),
              StartsWith("o.yaml:15:12: expect.winners: a count with bounds has"));
  EXPECT_THAT(ErrorOf("  winners: { at_leest: 1 }\n"),
              StartsWith("o.yaml:15:14: expect.winners.at_leest: unknown key 'at_leest' (did you "
                         "mean 'at_least'?"));
  EXPECT_THAT(ErrorOf("  lock_waits: { at_most: -1 }\n"),
              StartsWith("o.yaml:15:26: expect.lock_waits.at_most: '-1' must be an integer >= 0"));
  // Bounds that cross only with --set values: the planner says so, at the file's line.
  Result<Scenario> s = Load("  winners: { at_least: 2, at_most: \"${workers} - 1\" }\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanOptions options;
  options.set = {{"workers", "2"}};
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, options);
  ASSERT_FALSE(items.ok());
  EXPECT_THAT(
      items.status().message(),
      HasSubstr("--set workers=2: o.yaml:15:24: expect.winners.at_least: at_least '2' = 2 is "
                "greater than at_most '${workers} - 1' = 1"));
}

// The other shapes a new key can be written wrong in: each error names its line, column and field.
TEST(OutcomeLoaderTest, EveryNewKeyWrittenWrongNamesLineColumnAndField) {
  const std::string long_pattern(257, 'a');
  const std::string long_name(64, 'n');
  for (const auto& [expect, want] : std::vector<std::pair<std::string, std::string>>{
           {"  errors: { session: worker, sqlstate: \"40001\" }\n",
            "o.yaml:15:11: expect.errors: expected a list, found a mapping"},
           {"  errors: [ { session: worker, step: comit, sqlstate: \"40001\" } ]\n",
            "o.yaml:15:38: expect.errors[0].step: unknown step 'comit' in session 'worker' (did "
            "you mean 'commit'?"},
           {"  errors: [ { session: worker, sqlstate: \"40001\", sesions: 1 } ]\n",
            "o.yaml:15:51: expect.errors[0].sesions: unknown key 'sesions' (did you mean "
            "'sessions'?"},
           {"  errors: [ { step: claim, sqlstate: \"40001\", sessions: -1 } ]\n",
            "o.yaml:15:57: expect.errors[0].sessions: '-1' must be an integer >= 0"},
           {"  errors: [ { session: worker, message: " + long_pattern + " } ]\n",
            "o.yaml:15:41: expect.errors[0].message: '" + std::string(80, 'a') +
                "…' is 257 bytes long; at most 256"},
           {"  errors: [ { session: worker, sqlstate: [\"40001\"] } ]\n",
            "o.yaml:15:42: expect.errors[0].sqlstate: expected text, found a list"},
           {"  one_of: { winners: 1 }\n",
            "o.yaml:15:11: expect.one_of: expected a list, found a mapping"},
           {"  one_of: [ { winners: 1, min_fraction: most }, { winners: 0 } ]\n",
            "o.yaml:15:41: expect.one_of[0].min_fraction: 'most' is not a number"},
           {"  one_of: [ { winners: 1, name: " + long_name + " }, { winners: 0 } ]\n",
            "o.yaml:15:33: expect.one_of[0].name: '" + long_name +
                "' is 64 bytes long; at most 63"},
           {"  one_of: [ { winners: { at_most: x } }, { winners: 0 } ]\n",
            "o.yaml:15:35: expect.one_of[0].winners.at_most: 'x' is not a number"},
           {"  final: [ { sql: SELECT 1, any_of: running } ]\n",
            "o.yaml:15:37: expect.final[0].any_of: expected a list, found text"},
           {"  final: [ { sql: SELECT 1, any_of: [\"1\", { value: 2 }] } ]\n",
            "o.yaml:15:43: expect.final[0].any_of[1]: expected text, found a mapping"},
           {"  sqlstates: { \"40001\": { at_most: 1, exactly: 1 } }\n",
            "o.yaml:15:39: expect.sqlstates.40001.exactly: unknown key 'exactly' (expected one of: "
            "at_least, at_most)"},
           {"  winners: 1\n  at:\n    serializable: { errors: [ { session: wrker, sqlstate: "
            "\"40001\" } ] }\n",
            "o.yaml:17:42: expect.at.serializable.errors[0].session: unknown session 'wrker'"},
           {"  step_rows: [ { step: claim, rows: 0, sessions: { at_least: \"${nope}\" } } ]\n",
            "o.yaml:15:62: expect.step_rows[0].sessions.at_least: unknown reference ${nope}"},
       }) {
    EXPECT_THAT(ErrorOf(expect), StartsWith(want)) << expect;
  }
}

constexpr char kOneOf[] =
    "  winners: 1\n"
    "  one_of:\n"
    "    - { name: nowait, sqlstates: { 55P03: 1 }, min_fraction: 0.9 }\n"
    "    - { sqlstates: {}, final: [ { sql: SELECT 1, equals: \"1\" } ] }\n"
    "  final: [ { sql: SELECT 2, equals: \"2\" } ]\n"
    "  at:\n"
    "    repeatable read:\n"
    "      one_of: [ { name: a, winners: 1 }, { name: b, winners: 0 } ]\n";

TEST(OutcomeLoaderTest, OneOfLoadsWithNamesFractionsAndItsOwnFinals) {
  Result<Scenario> s = Load(kOneOf);
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanItem item = PlanOne(*s);
  ASSERT_EQ(item.expect.one_of.size(), 2u);
  EXPECT_EQ(item.expect.one_of[0].name, "nowait");
  EXPECT_EQ(item.expect.one_of[1].name, "alternative 2");
  EXPECT_DOUBLE_EQ(item.expect.one_of[0].min_fraction.value_or(0), 0.9);
  EXPECT_FALSE(item.expect.one_of[1].min_fraction.has_value());
  EXPECT_EQ(item.expect.one_of[0].checks.sqlstates->at("55P03"), CountRange(1));
  std::vector<std::string> finals;
  for (const PlannedFinal* f : AllFinalQueries(item.expect)) finals.push_back(f->sql);
  EXPECT_THAT(finals, ElementsAre("SELECT 2", "SELECT 1"));  // the file's, then the alternatives'
  PlanOptions rr;
  rr.isolation = {IsolationLevel::kRepeatableRead};
  Result<std::vector<PlanItem>> at_rr = ExpandScenario(*s, rr);
  ASSERT_TRUE(at_rr.ok());
  EXPECT_EQ((*at_rr)[0].expect.one_of[1].name, "b");  // at: replaces the list whole
}

TEST(OutcomeLoaderTest, OneOfBadInputNamesLineColumnAndField) {
  EXPECT_THAT(ErrorOf("  one_of: [ { winners: 1 } ]\n"),
              StartsWith("o.yaml:15:11: expect.one_of: one_of lists at least two alternatives"));
  EXPECT_THAT(ErrorOf("  one_of: [ { winners: 1 }, { name: x } ]\n"),
              StartsWith("o.yaml:15:29: expect.one_of[1]: this alternative checks nothing"));
  EXPECT_THAT(
      ErrorOf("  one_of: [ { winners: 1, min_fraction: 1.5 }, { winners: 0 } ]\n"),
      StartsWith(
          "o.yaml:15:41: expect.one_of[0].min_fraction: '1.5' must be a fraction from 0 to 1"));
  EXPECT_THAT(ErrorOf("  one_of: [ { winners: 1, at: {} }, { winners: 0 } ]\n"),
              StartsWith("o.yaml:15:27: expect.one_of[0].at: unknown key 'at'"));
  EXPECT_THAT(
      ErrorOf("  one_of: [ { one_of: [] }, { winners: 0 } ]\n"),
      StartsWith(
          "o.yaml:15:13: expect.one_of[0]: a one_of alternative cannot hold another one_of"));
  EXPECT_THAT(ErrorOf("  one_of: [ { name: x, winners: 1 }, { name: x, winners: 0 } ]\n"),
              StartsWith("o.yaml:15:46: expect.one_of[1].name: two alternatives are named 'x'"));
}

TEST(OutcomeLoaderTest, FinalAnyOf) {
  Result<Scenario> s =
      Load("  final: [ { sql: SELECT 1, any_of: [\"1\", \"${workers}\", null] } ]\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanItem item = PlanOne(*s);
  EXPECT_THAT(item.expect.final[0].any_of, ElementsAre("1", "3", "NULL"));
  EXPECT_THAT(
      ErrorOf("  final: [ { sql: SELECT 1, equals: \"1\", any_of: [\"1\", \"2\"] } ]\n"),
      StartsWith("o.yaml:15:12: expect.final[0]: a final entry has equals (one value) or any_of"));
  EXPECT_THAT(
      ErrorOf("  final: [ { sql: SELECT 1 } ]\n"),
      StartsWith("o.yaml:15:12: expect.final[0]: a final entry has equals (one value) or any_of"));
  EXPECT_THAT(ErrorOf("  final: [ { sql: SELECT 1, any_of: [\"1\"] } ]\n"),
              StartsWith("o.yaml:15:37: expect.final[0].any_of: any_of lists at least two values"));
  EXPECT_THAT(ErrorOf("  final: [ { sql: SELECT 1, any_of: [\"${nope}\", \"2\"] } ]\n"),
              StartsWith("o.yaml:15:38: expect.final[0].any_of[0]: unknown reference ${nope}"));
}

}  // namespace
}  // namespace racelab
