// The confinement of scenario SQL on SQLite (docs/sqlite.md "What a scenario may not do"), against
// the real libsqlite3: what a step may not do is refused with SQLITE_AUTH, a scenario error, and
// writes nothing; what the machine fails at (a full disk) is an infrastructure fault, not a race
// outcome.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "harness/engines/sqlite/sqlite_engine.h"
#include "harness/engines/sqlite/sqlite_session.h"
#include "tests/integration/sqlite_fixture.h"

namespace racelab::sqlite {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class SqliteConfinementTest : public SqliteWorkspaceTest {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/racelab-sqlite-confine-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    outside_ = tmpl;
    SqliteWorkspaceTest::SetUp();
  }
  void TearDown() override {
    s_.reset();
    SqliteWorkspaceTest::TearDown();
    fs::remove_all(outside_);
  }
  Status Start(std::vector<std::pair<std::string, std::string>> settings = {}) {
    auto s = engine_->OpenSession(kServerNode, "a", In(1000), nullptr);
    EXPECT_TRUE(s.ok());
    s_.reset(static_cast<SqliteSession*>(s->release()));
    return s_->StartClean(SessionStart{.label = "a", .workspace = ws_, .settings = settings},
                          In(1000), "t.yaml", nullptr);
  }
  QueryResult Run(const std::string& sql) { return s_->Exec(sql, In(5000), 10); }
  // `sql` is refused as a scenario error that names what was denied, and `file` is not made.
  // SQLite reports a denied function as SQLITE_ERROR ("not authorized to use function"), the rest
  // as SQLITE_AUTH (measured on 3.40.1).
  void ExpectDenied(const std::string& sql, const std::string& denied, const std::string& file = "",
                    const std::string& code = "SQLITE_AUTH") {
    QueryResult r = Run(sql);
    EXPECT_EQ(r.error_code, code) << sql << ": " << r.message;
    EXPECT_NE(r.message.find("(racelab confines scenario SQL and denies " + denied),
              std::string::npos)
        << r.message;
    EXPECT_TRUE(engine_->IsScenarioError(r)) << sql;
    EXPECT_FALSE(engine_->IsInfrastructureFault(r)) << sql;
    if (!file.empty()) {
      EXPECT_FALSE(fs::exists(file)) << sql << " wrote " << file;
    }
  }

  std::string outside_;
  std::unique_ptr<SqliteSession> s_;
};

TEST_F(SqliteConfinementTest, AttachAndVacuumIntoWriteNothingOutsideTheRunFolder) {
  ASSERT_TRUE(Start().ok());
  ASSERT_TRUE(Run("CREATE TABLE t (x); INSERT INTO t VALUES (1)").ok());
  ExpectDenied("ATTACH DATABASE '" + outside_ + "/a.db' AS a",
               "ATTACH DATABASE or VACUUM INTO '" + outside_, outside_ + "/a.db");
  ExpectDenied("VACUUM INTO '" + outside_ + "/copy.db'", "ATTACH DATABASE or VACUUM INTO",
               outside_ + "/copy.db");
  ExpectDenied("VACUUM", "VACUUM");
  ExpectDenied("DETACH DATABASE main", "DETACH DATABASE");
  // The statement after a denial runs: the connection is as it was.
  QueryResult r = Run("SELECT x FROM t");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.values.at(0).at(0).value_or(""), "1");
}

TEST_F(SqliteConfinementTest, ProcessWideSettingsAndExtensionsAreDenied) {
  ASSERT_TRUE(Start().ok());
  ExpectDenied("PRAGMA temp_store_directory = '" + outside_ + "'", "PRAGMA temp_store_directory");
  ExpectDenied("PRAGMA hard_heap_limit = 1000", "PRAGMA hard_heap_limit");
  ExpectDenied("PRAGMA soft_heap_limit = 1000", "PRAGMA soft_heap_limit");
  ExpectDenied("SELECT load_extension('/usr/lib/x86_64-linux-gnu/libc.so.6')", "load_extension()",
               "", "SQLITE_ERROR");
  // The connection's own pragmas run.
  QueryResult wal = Run("PRAGMA journal_mode = wal");
  ASSERT_TRUE(wal.ok()) << wal.message;
  EXPECT_EQ(wal.values.at(0).at(0).value_or(""), "wal");
  EXPECT_TRUE(Run("PRAGMA wal_checkpoint").ok());
  EXPECT_TRUE(Run("PRAGMA cache_size = 100").ok());
}

TEST_F(SqliteConfinementTest, DefensiveModeKeepsTheSchemaAndTheJournal) {
  ASSERT_TRUE(Start().ok());
  ASSERT_TRUE(Run("CREATE TABLE t (x)").ok());
  QueryResult r =
      Run("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'junk' WHERE name = 't'");
  EXPECT_FALSE(r.ok()) << "defensive mode lets scenario SQL rewrite sqlite_schema";
  QueryResult off = Run("PRAGMA journal_mode = off");
  ASSERT_TRUE(off.ok()) << off.message;
  EXPECT_NE(off.values.at(0).at(0).value_or(""), "off");
}

TEST_F(SqliteConfinementTest, SessionSettingsAreConfinedToo) {
  Status st = Start({{"temp_store_directory", "'" + outside_ + "'"}});
  EXPECT_EQ(st.code(), StatusCode::kUsage) << st.message();
  EXPECT_NE(st.message().find("settings.temp_store_directory"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("SQLITE_AUTH"), std::string::npos) << st.message();
  Status off = Start({{"journal_mode", "off"}});
  EXPECT_EQ(off.code(), StatusCode::kUsage);
  EXPECT_NE(off.message().find("settings.journal_mode: 'off' is refused"), std::string::npos)
      << off.message();
}

// A full disk is the machine's fault: SQLITE_FULL, provoked deterministically by max_page_count
// (the same code SQLite gives when write() fails with ENOSPC: os_unix.c).
TEST_F(SqliteConfinementTest, AFullDatabaseIsAnInfrastructureFaultNotAScenarioError) {
  ASSERT_TRUE(Start().ok());
  ASSERT_TRUE(Run("CREATE TABLE t (x); PRAGMA max_page_count = 3").ok());
  QueryResult r = Run(
      "INSERT INTO t SELECT zeroblob(4096) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)");
  EXPECT_EQ(r.error_code, "SQLITE_FULL") << r.message;
  EXPECT_TRUE(engine_->IsInfrastructureFault(r));
  EXPECT_FALSE(engine_->IsScenarioError(r));
  QueryResult io;
  io.error_code = "SQLITE_IOERR_WRITE";
  EXPECT_TRUE(engine_->IsInfrastructureFault(io));
  io.error_code = "SQLITE_BUSY";
  EXPECT_FALSE(engine_->IsInfrastructureFault(io));
  io.error_code = "SQLITE_CONSTRAINT_UNIQUE";
  EXPECT_FALSE(engine_->IsInfrastructureFault(io));
}

TEST_F(SqliteConfinementTest, TheEngineRunsTheLevelsItsTraitsName) {
  EXPECT_EQ(engine_->capabilities().levels,
            std::vector<IsolationLevel>{IsolationLevel::kSerializable});
}

}  // namespace
}  // namespace racelab::sqlite
