// SQLite session settings, DSNs and error names: parsing only, no database.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "harness/engines/sqlite/error_names.h"
#include "harness/engines/sqlite/session_settings.h"
#include "harness/engines/sqlite/sqlite_engine.h"
#include "harness/loader/scenario_loader.h"

namespace racelab::sqlite {
namespace {

TEST(SqliteSettingsTest, KnownSettingsAndPragmas) {
  auto s = ParseSqliteSettings({{"journal_mode", "WAL"},
                                {"busy_timeout", "2s"},
                                {"begin", "Immediate"},
                                {"synchronous", "off"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->journal_mode, "wal");
  EXPECT_EQ(*s->busy_timeout_ms, 2000);
  EXPECT_EQ(s->begin_mode, "IMMEDIATE");
  ASSERT_EQ(s->pragmas.size(), 1u);
  EXPECT_EQ(s->pragmas[0], (std::pair<std::string, std::string>{"synchronous", "off"}));
  EXPECT_EQ(*ParseSqliteSettings({{"busy_timeout", "250ms"}})->busy_timeout_ms, 250);
  EXPECT_EQ(*ParseSqliteSettings({{"busy_timeout", "0"}})->busy_timeout_ms, 0);
  EXPECT_FALSE(ParseSqliteSettings({})->busy_timeout_ms.has_value());
}

TEST(SqliteSettingsTest, BadValuesAreUsageErrorsNamingTheSetting) {
  for (auto [name, value, expect] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"busy_timeout", "soon", "settings.busy_timeout: 'soon' is not a duration"},
           {"busy_timeout", "-5", "settings.busy_timeout"},
           {"journal_mode", "wall", "settings.journal_mode: 'wall' is not a journal mode"},
           {"begin", "later", "settings.begin: 'later' is not a transaction mode"},
           {"Bad-Name", "1", "settings.Bad-Name: not a SQLite pragma name"}}) {
    auto s = ParseSqliteSettings({{name, value}});
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), StatusCode::kUsage);
    EXPECT_NE(s.status().message().find(expect), std::string::npos) << s.status().message();
  }
}

TEST(SqliteDsnTest, FilePathsOnly) {
  EXPECT_EQ(*ParseSqliteDsn("sqlite:///var/lib/app/runs.db"), "/var/lib/app/runs.db");
  EXPECT_EQ(*ParseSqliteDsn("sqlite:runs.db"), "runs.db");
  for (const char* bad : {"sqlite://", "sqlite:", "sqlite://host/runs.db", "sqlite:///a.db?mode=ro",
                          "postgresql://x"}) {
    EXPECT_EQ(ParseSqliteDsn(bad).status().code(), StatusCode::kUsage) << bad;
  }
}

TEST(SqliteDsnTest, ASecretTypedIntoTheDsnIsNeverShown) {
  for (const char* dsn :
       {"sqlite://u:hunter2@host/x.db", "sqlite:///tmp/x.db?password=hunter2",
        "sqlite:u:hunter2@x.db", "sqlite:///a.db?mode=ro&key=hunter2", "sqlite://:hunter2@/x.db"}) {
    EXPECT_EQ(RedactSqliteDsn(dsn).find("hunter2"), std::string::npos) << dsn;
    EXPECT_TRUE(SqliteDsnMayHoldPassword(dsn)) << dsn;
    auto parsed = ParseSqliteDsn(dsn);
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().message().find("hunter2"), std::string::npos)
          << parsed.status().message();
    }
  }
  EXPECT_EQ(RedactSqliteDsn("sqlite://u:hunter2@host/x.db"), "sqlite://u:***@host/x.db");
  EXPECT_EQ(RedactSqliteDsn("sqlite:///tmp/x.db?password=hunter2"),
            "sqlite:///tmp/x.db?password=***");
  // A DSN as documented is shown as written.
  for (const char* dsn : {"sqlite:///var/lib/app/runs.db", "sqlite:runs.db", "sqlite:/a:b/c.db"}) {
    EXPECT_EQ(RedactSqliteDsn(dsn), dsn);
    EXPECT_FALSE(SqliteDsnMayHoldPassword(dsn)) << dsn;
  }
}

TEST(SqliteErrorNamesTest, ExtendedCodesByName) {
  EXPECT_EQ(ErrorName(SQLITE_BUSY), "SQLITE_BUSY");
  EXPECT_EQ(ErrorName(517), "SQLITE_BUSY_SNAPSHOT");
  EXPECT_EQ(ErrorName(2067), "SQLITE_CONSTRAINT_UNIQUE");
  EXPECT_EQ(ErrorName(SQLITE_INTERRUPT), "SQLITE_INTERRUPT");
  EXPECT_EQ(ErrorName(SQLITE_LOCKED_SHAREDCACHE), "SQLITE_LOCKED_SHAREDCACHE");
  EXPECT_EQ(ErrorName(SQLITE_BUSY | (40 << 8)),
            "SQLITE_BUSY");  // an extended code newer than the table
  EXPECT_EQ(ErrorName(99), "SQLITE_99");
}

}  // namespace
}  // namespace racelab::sqlite

namespace racelab::sqlite {
namespace {

// The SQLite example of docs/scenario-format.md ("SQLite sessions") loads, and each of its
// sessions' settings is what the SQLite engine accepts.
TEST(SqliteSettingsTest, TheFormatDocsExampleLoadsAndItsSettingsParse) {
  std::ifstream file(std::string(RACELAB_SOURCE_DIR) + "/docs/scenario-format.md");
  ASSERT_TRUE(file);
  std::stringstream text;
  text << file.rdbuf();
  const std::string doc = text.str();
  const std::string start = "```yaml\nname: sqlite-begin-immediate-example\n";
  size_t b = doc.find(start);
  ASSERT_NE(b, std::string::npos);
  b += std::string("```yaml\n").size();
  const std::string block = doc.substr(b, doc.find("```\n", b) - b);
  Result<Scenario> scenario = LoadScenarioText(block, "docs/sqlite-begin-immediate-example.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  EXPECT_EQ(scenario->engines, std::vector<std::string>{"sqlite"});
  ASSERT_EQ(scenario->sessions.size(), 2u);
  for (const SessionSpec& s : scenario->sessions) {
    auto parsed = ParseSqliteSettings(s.settings);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->journal_mode, "wal");
    EXPECT_EQ(parsed->busy_timeout_ms, 5000);
    EXPECT_EQ(parsed->begin_mode, "IMMEDIATE");
    EXPECT_TRUE(parsed->pragmas.empty());
  }
}

}  // namespace
}  // namespace racelab::sqlite
