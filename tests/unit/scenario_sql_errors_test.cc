// Which errors are the scenario's SQL at fault (exit 2) and which are the race's outcome or the
// server's fault, per engine: PostgreSQL's errors.h and MariaDB's sql_errors.h, the parts that need
// no server (issue 20 item 22). The servers' own codes for these are checked in
// tests/integration/mariadb_engine_test.cc and cli_test.cc.
#include <gtest/gtest.h>

#include "harness/engines/mariadb/sql_errors.h"
#include "harness/engines/postgresql/errors.h"

namespace racelab {
namespace {

TEST(ScenarioSqlErrors, PostgresqlAccessRuleAndTransactionStateErrors) {
  // 42501 insufficient_privilege (what confinement refuses), 42601 syntax, 42P01 undefined table;
  // class 25 where the statement's place is wrong: 25001 "cannot run inside a transaction block",
  // 25P01 outside one, 25000 the class itself, 25008 a held cursor's level.
  for (const char* code :
       {"42501", "42601", "42P01", "25000", "25001", "25P01", "25008", "25007"}) {
    EXPECT_TRUE(pg::IsScenarioSqlError(code)) << code;
  }
  // Outcomes and faults: a READ ONLY write (25006), a statement after an earlier error (25P02), the
  // server's idle and transaction timeouts (25P03, 25P04), serialization and lock outcomes, a lost
  // session, and no error at all.
  for (const char* code : {"", "25006", "25P02", "25P03", "25P04", "40001", "40P01", "55P03",
                           "57014", "57P01", "08006", "23505", "55000", "2", "25"}) {
    EXPECT_FALSE(pg::IsScenarioSqlError(code)) << code;
  }
}

TEST(ScenarioSqlErrors, MariadbAccessDeniedTransactionStateAndXaOrder) {
  EXPECT_TRUE(mariadb::IsScenarioSqlError("42000", 1044));   // database access denied
  EXPECT_TRUE(mariadb::IsScenarioSqlError("42000", 1142));   // table
  EXPECT_TRUE(mariadb::IsScenarioSqlError("42000", 1143));   // column
  EXPECT_TRUE(mariadb::IsScenarioSqlError("42000", 1227));   // needs SUPER or another privilege
  EXPECT_TRUE(mariadb::IsScenarioSqlError("28000", 1045));   // access denied for the user
  EXPECT_TRUE(mariadb::IsScenarioSqlError("25000", 1179));   // not allowed in a transaction
  EXPECT_TRUE(mariadb::IsScenarioSqlError("25001", 1568));   // characteristics changed in one
  EXPECT_TRUE(mariadb::IsScenarioSqlError("XAE04", 1397));   // XAER_NOTA
  EXPECT_TRUE(mariadb::IsScenarioSqlError("XAE05", 1398));   // XAER_INVAL
  EXPECT_TRUE(mariadb::IsScenarioSqlError("XAE07", 1399));   // XAER_RMFAIL
  EXPECT_TRUE(mariadb::IsScenarioSqlError("XAE09", 1400));   // XAER_OUTSIDE
  EXPECT_TRUE(mariadb::IsScenarioSqlError("XAE08", 1440));   // XAER_DUPID
  EXPECT_FALSE(mariadb::IsScenarioSqlError("25006", 1792));  // a READ ONLY write: an outcome
  EXPECT_FALSE(mariadb::IsScenarioSqlError("XA100", 1402));  // XA_RBROLLBACK: an outcome
  EXPECT_FALSE(mariadb::IsScenarioSqlError("XA102", 1614));  // XA_RBDEADLOCK
  EXPECT_FALSE(mariadb::IsScenarioSqlError("40001", 1213));  // deadlock
  EXPECT_FALSE(mariadb::IsScenarioSqlError("HY000", 1205));  // lock wait timeout
  EXPECT_FALSE(mariadb::IsScenarioSqlError("HY000", 2013));  // lost connection
  EXPECT_FALSE(mariadb::IsScenarioSqlError("", 0));
}

}  // namespace
}  // namespace racelab
