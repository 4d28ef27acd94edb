// `engines` and engine maps (docs/scenario-format.md "Engines and SQL that differs"): a file read
// once per engine, each reading with its own SQL, levels and expectations; errors with file:line
// and field.
#include <gtest/gtest.h>

#include <string>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

constexpr const char* kTwoEngines = R"yaml(name: two
title: t
teaches: t
engines: [postgresql, mariadb]
isolation: { postgresql: [rc, ser], mariadb: [ru, rr] }
setup: { postgresql: "CREATE TABLE t (x int)", mariadb: "CREATE TABLE t (x int) ENGINE=InnoDB" }
sessions:
  - name: w
    settings: { postgresql: { lock_timeout: 200ms }, mariadb: { innodb_lock_wait_timeout: "1" } }
    steps:
      - begin
      - sql: { default: "SELECT x FROM t", mariadb: "SELECT x FROM t FOR UPDATE" }
        name: read
        capture: { postgresql: [x], mariadb: [] }
      - commit
expect:
  lock_waits: 0
  sqlstates: { postgresql: {}, mariadb: { "1205": 0 } }
  at:
    serializable: { postgresql: { sqlstates: { "40001": 0 } }, default: {} }
)yaml";

TEST(EngineMapsTest, EachEngineReadsItsOwnEntries) {
  Result<Scenario> s = LoadScenarioText(kTwoEngines, "two.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->engines, (std::vector<std::string>{"postgresql", "mariadb"}));
  EXPECT_EQ(s->engine, "postgresql");
  EXPECT_EQ(s->setup, "CREATE TABLE t (x int)");
  EXPECT_EQ(s->sessions[0].steps[1].sql, "SELECT x FROM t");  // `default`
  EXPECT_EQ(s->sessions[0].steps[1].capture, std::vector<std::string>{"x"});
  EXPECT_EQ(s->isolation, (std::vector<IsolationLevel>{IsolationLevel::kReadCommitted,
                                                       IsolationLevel::kSerializable}));
  const Scenario* m = s->ForEngine("mariadb");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->engine, "mariadb");
  EXPECT_EQ(m->setup, "CREATE TABLE t (x int) ENGINE=InnoDB");
  EXPECT_EQ(m->sessions[0].steps[1].sql, "SELECT x FROM t FOR UPDATE");
  EXPECT_TRUE(m->sessions[0].steps[1].capture.empty());
  ASSERT_EQ(m->sessions[0].settings.size(), 1u);
  EXPECT_EQ(m->sessions[0].settings[0].first, "innodb_lock_wait_timeout");
  EXPECT_EQ(m->isolation, (std::vector<IsolationLevel>{IsolationLevel::kReadUncommitted,
                                                       IsolationLevel::kRepeatableRead}));
  ASSERT_TRUE(m->expect.sqlstates.has_value());
  EXPECT_EQ(m->expect.sqlstates->count("1205"), 1u);  // an engine error number is a key
  EXPECT_EQ(s->ForEngine("sqlite"), nullptr);
}

TEST(EngineMapsTest, PlansPerEngineAndRefusesAnEngineNotListed) {
  Result<Scenario> s = LoadScenarioText(kTwoEngines, "two.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanOptions options;
  options.engine = "mariadb";
  Result<std::vector<PlanItem>> items = ExpandScenario(*s, options);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].engine, "mariadb");
  EXPECT_EQ((*items)[0].isolation, IsolationLevel::kReadUncommitted);
  EXPECT_EQ((*items)[0].sessions[0].steps[1].sql, "SELECT x FROM t FOR UPDATE");
  options.engine = "postgresql";
  items = ExpandScenario(*s, options);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[1].isolation, IsolationLevel::kSerializable);
  ASSERT_TRUE((*items)[1].expect.sqlstates.has_value());
  EXPECT_EQ((*items)[1].expect.sqlstates->count("40001"), 1u);
  options.engine = "sqlite";
  items = ExpandScenario(*s, options);
  ASSERT_FALSE(items.ok());
  EXPECT_NE(items.status().message().find("does not run on sqlite"), std::string::npos)
      << items.status().message();
}

TEST(EngineMapsTest, WithoutEnginesAFileIsPostgresqlOnly) {
  Result<Scenario> s = LoadScenarioText(
      "name: one\ntitle: t\nteaches: t\nsessions:\n  - name: w\n    steps: [begin, commit]\n"
      "expect: { lock_waits: 0 }\n",
      "one.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->engines, std::vector<std::string>{"postgresql"});
  EXPECT_EQ(s->ForEngine("mariadb"), nullptr);
}

std::string ErrorOf(const std::string& yaml) {
  Result<Scenario> s = LoadScenarioText(yaml, "bad.yaml");
  return s.ok() ? "(loaded)" : s.status().message();
}

TEST(EngineMapsTest, AMissingEngineEntryIsAnErrorWithLineAndField) {
  std::string e = ErrorOf(
      "name: bad\ntitle: t\nteaches: t\nengines: [postgresql, mariadb]\nsessions:\n  - name: w\n"
      "    steps:\n      - sql: { postgresql: SELECT 1 }\n        name: s\n"
      "expect: { lock_waits: 0 }\n");
  EXPECT_EQ(e,
            "bad.yaml:8:14: sessions[0].steps[0].sql: this engine map has no entry for 'mariadb' "
            "and no `default` (an engine map needs one for every engine in `engines`: postgresql, "
            "mariadb)");
}

TEST(EngineMapsTest, AnEntryForAnEngineNotListedIsAnError) {
  std::string e = ErrorOf(
      "name: bad\ntitle: t\nteaches: t\nsessions:\n  - name: w\n"
      "    steps:\n      - sql: { postgresql: SELECT 1, sqlite: SELECT 2 }\n"
      "expect: { lock_waits: 0 }\n");
  EXPECT_NE(e.find("bad.yaml:7:38: sessions[0].steps[0].sql: engine 'sqlite' is not one this "
                   "scenario runs on (engines: postgresql)"),
            std::string::npos)
      << e;
}

TEST(EngineMapsTest, UnknownAndRepeatedEnginesAreErrors) {
  std::string e = ErrorOf(
      "name: bad\ntitle: t\nteaches: t\nengines: [postgresql, mysql, postgresql]\nsessions:\n"
      "  - name: w\n    steps: [begin, commit]\nexpect: { lock_waits: 0 }\n");
  EXPECT_NE(e.find("bad.yaml:4:23: engines[1]: unknown engine 'mysql' (expected one of: "
                   "postgresql, mariadb, sqlite)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("bad.yaml:4:30: engines[2]: engine 'postgresql' is listed twice"),
            std::string::npos)
      << e;
}

TEST(EngineMapsTest, AnErrorInASharedPartIsReportedOnce) {
  std::string e = ErrorOf(
      "name: bad\ntitle: t\nteaches: t\nengines: [postgresql, mariadb]\nsessions:\n  - name: w\n"
      "    steps: [begin, comit]\nexpect: { lock_waits: 0 }\n");
  EXPECT_EQ(e.find("comit"), e.rfind("comit")) << e;
  EXPECT_NE(e.find("bad.yaml:7:20"), std::string::npos) << e;
}

TEST(EngineMapsTest, ReadUncommittedIsALevelAndEngineCodesAreErrorKeys) {
  EXPECT_EQ(ParseIsolation("read uncommitted"), IsolationLevel::kReadUncommitted);
  EXPECT_EQ(ParseIsolation("RU"), IsolationLevel::kReadUncommitted);
  EXPECT_EQ(IsolationName(IsolationLevel::kReadUncommitted), "read uncommitted");
  std::string e = ErrorOf(
      "name: bad\ntitle: t\nteaches: t\nengines: [mariadb, sqlite]\nsessions:\n  - name: w\n    "
      "retry: { sqlstates: [\"1213\", "
      "SQLITE_BUSY, \"12345\", \"0123\"] }\n    steps: [begin, commit]\n"
      "expect: { lock_waits: 0, sqlstates: { \"1062\": 0, \"99\": 0 } }\n");
  EXPECT_EQ(e.find("'1213'"), std::string::npos) << e;
  EXPECT_EQ(e.find("'SQLITE_BUSY'"), std::string::npos) << e;
  EXPECT_EQ(e.find("'12345'"), std::string::npos) << e;  // a SQLSTATE
  EXPECT_NE(e.find("'0123' is not a SQLSTATE nor an engine error code"), std::string::npos) << e;
  EXPECT_EQ(e.find("'1062'"), std::string::npos) << e;
  EXPECT_NE(e.find("'99' is not a SQLSTATE nor an engine error code"), std::string::npos) << e;
}

}  // namespace
}  // namespace racelab
