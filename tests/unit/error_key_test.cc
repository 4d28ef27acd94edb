// The summary counts errors by the engine's code where the SQLSTATE is generic
// (harness/model/error_key.h, ResultSummary::errors), keeps `sqlstates` by SQLSTATE, and the
// summary tables of every format show the engine's name (SQLITE_BUSY, MariaDB 1205), not HY000.
#include "harness/model/error_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "harness/eval/result_accumulator.h"
#include "harness/model/error_names.h"
#include "reports/reporter.h"
#include "reports/reporters.h"
#include "tests/unit/render_report.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ErrorKey, EngineCodeOnlyWhereTheSqlstateIsGeneric) {
  EXPECT_EQ(ErrorKey("HY000", "SQLITE_BUSY"), "SQLITE_BUSY");  // SQLite: every error is HY000
  EXPECT_EQ(ErrorKey("HY000", "1205"), "1205");                // MariaDB lock wait timeout
  EXPECT_EQ(ErrorKey("23000", "1062"), "1062");                // MariaDB duplicate key: class only
  EXPECT_EQ(ErrorKey("40001", "1213"), "40001");  // MariaDB deadlock: a specific SQLSTATE
  EXPECT_EQ(ErrorKey("40001", ""), "40001");      // PostgreSQL
  EXPECT_EQ(ErrorKey("XX000", ""), "XX000");      // generic, but no code to name
  EXPECT_EQ(ErrorKey("", ""), "");
  EXPECT_TRUE(IsGenericSqlstate("HY000"));
  EXPECT_FALSE(IsGenericSqlstate("40P01"));
  EXPECT_FALSE(IsGenericSqlstate("000"));
}

TEST(ErrorNames, CodesHaveTheirEnginesConditionNames) {
  // PostgreSQL 15, Appendix A
  EXPECT_EQ(ErrorCodeName("postgresql", "40001"), "serialization_failure");
  EXPECT_EQ(ErrorCodeName("postgresql", "40P01"), "deadlock_detected");
  EXPECT_EQ(ErrorCodeName("postgresql", "55P03"), "lock_not_available");
  EXPECT_EQ(ErrorCodeName("postgresql", "57P01"), "admin_shutdown");
  EXPECT_EQ(ErrorCodeName("postgresql", "23505"), "unique_violation");
  EXPECT_EQ(ErrorCodeName("postgresql", "25006"), "read_only_sql_transaction");
  EXPECT_EQ(ErrorCodeName("postgresql", "XX002"), "index_corrupted");  // the table's last entry
  EXPECT_EQ(ErrorCodeName("postgresql", ""), "");                      // before the first
  EXPECT_EQ(ErrorCodeName("postgresql", "ZZZZZ"), "");                 // past the last
  EXPECT_EQ(ErrorCodeName("postgresql", "1213"), "") << "not a PostgreSQL code";
  // MariaDB, mysqld_error.h — its own numbers only: its deadlock 1213 is counted as 40001
  // (error_key.h), which PostgreSQL's name "serialization_failure" would misname.
  EXPECT_EQ(ErrorCodeName("mariadb", "1213"), "ER_LOCK_DEADLOCK");
  EXPECT_EQ(ErrorCodeName("mariadb", "1205"), "ER_LOCK_WAIT_TIMEOUT");
  EXPECT_EQ(ErrorCodeName("mariadb", "40001"), "");
  EXPECT_EQ(ErrorCodeName("mariadb", "4000"), "");
  // SQLite's codes are names already; an unknown engine names nothing.
  EXPECT_EQ(ErrorCodeName("sqlite", "SQLITE_BUSY"), "");
  EXPECT_EQ(ErrorCodeName("sqlite", "40001"), "");
  EXPECT_EQ(ErrorCodeName("oracle", "40001"), "");
  EXPECT_EQ(ErrorKeyWithName("sqlite", "SQLITE_BUSY"), "SQLITE_BUSY");
  EXPECT_EQ(ErrorKeyWithName("postgresql", "40001"), "40001 serialization_failure");
}

StepEvent Failed(std::string sqlstate, std::string code) {
  StepEvent e;
  e.session = "worker.1";
  e.step = "claim";
  e.sqlstate = std::move(sqlstate);
  e.error_code = std::move(code);
  return e;
}

// Two trials: SQLite busy errors (one plain, one snapshot), a MariaDB deadlock and lock wait
// timeout, a PostgreSQL serialization failure.
ResultSummary Summary(const PlanItem& item) {
  ResultAccumulator acc(item, DetailsPolicy::kNone);
  TrialVerdict a;
  a.result.index = 0;
  a.result.events = {Failed("HY000", "SQLITE_BUSY"), Failed("HY000", "SQLITE_BUSY"),
                     Failed("HY000", "SQLITE_BUSY_SNAPSHOT"), StepEvent{}};
  acc.Add(a);
  TrialVerdict b;
  b.result.index = 1;
  b.result.events = {Failed("40001", "1213"), Failed("HY000", "1205"), Failed("40001", "")};
  acc.Add(b);
  return acc.Finish("");
}

TEST(ErrorKey, SummaryCountsByNameAndBySqlstate) {
  PlanItem item;
  ResultSummary s = Summary(item);
  EXPECT_EQ(s.sqlstates, (std::map<std::string, int>{{"40001", 2}, {"HY000", 4}}))
      << "sqlstates keeps its meaning (backward compatible)";
  EXPECT_EQ(s.errors,
            (std::map<std::string, int>{
                {"1205", 1}, {"40001", 2}, {"SQLITE_BUSY", 2}, {"SQLITE_BUSY_SNAPSHOT", 1}}));
}

using testing::Render;

TEST(ErrorKey, SummaryTablesNameTheEngineError) {
  PlanItem item;
  item.scenario = "sqlite-deferred-read-then-write";
  item.isolation = IsolationLevel::kSerializable;
  item.engine = "sqlite";  // SQLite names none of these codes: every format shows them bare
  RunReport report;
  report.target.engine = "sqlite";
  report.results.push_back(Summary(item));
  for (const char* format : {"console", "md", "html"}) {
    const std::string text = Render(format, report);
    // Markdown escapes the underscores.
    EXPECT_THAT(text, HasSubstr(std::string(format) == "md" ? "SQLITE\\_BUSY×2" : "SQLITE_BUSY×2"))
        << format;
    EXPECT_THAT(text, HasSubstr("1205×1")) << format;
    EXPECT_THAT(text, HasSubstr("40001×2")) << format;
    EXPECT_THAT(text, Not(HasSubstr("HY000×")))
        << format << ": the generic SQLSTATE is not the name";
  }
  // The page is read by people: it names each code as the result's engine names it
  // (error_names.h); console and Markdown keep the bare code, which a reader greps for.
  item.engine = "mariadb";
  EXPECT_THAT(Render("html", report),
              HasSubstr("1205 ER_LOCK_WAIT_TIMEOUT×1, 40001×2, SQLITE_BUSY×2"))
      << "MariaDB's 40001 (a deadlock, 1213) keeps no PostgreSQL name";
  item.engine = "postgresql";
  EXPECT_THAT(Render("html", report), HasSubstr("1205×1, 40001 serialization_failure×2"));
  const nlohmann::json j = nlohmann::json::parse(Render("json", report));
  const nlohmann::json& r = j["results"][0];
  EXPECT_EQ(r["sqlstates"], nlohmann::json::parse(R"({"40001": 2, "HY000": 4})"));
  EXPECT_EQ(r["errors"],
            nlohmann::json::parse(
                R"({"1205": 1, "40001": 2, "SQLITE_BUSY": 2, "SQLITE_BUSY_SNAPSHOT": 1})"));
}

}  // namespace
}  // namespace racelab
