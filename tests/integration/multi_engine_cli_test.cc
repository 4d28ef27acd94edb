// `racelab run --engine postgresql,sqlite`: one run over two engines, one report that puts them
// side by side. The fixture (tests/fixtures/multi_engine_claim.yaml) forces its interleaving with
// barriers and differs between the engines at serializable (PostgreSQL 40001, SQLite
// SQLITE_BUSY_SNAPSHOT) and runs at read committed on PostgreSQL only;
// sqlite-naive-select-then-update runs on SQLite only. So every cell of the side-by-side table is
// known in advance and asserted, on the console and in racelab.md, and racelab.json must name both
// servers and match schemas/racelab-report.schema.json. PostgreSQL is the test server (--dsn: the
// run's one DSN serves the engine it names); SQLite is embedded in a folder of the test's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"
#include "tests/schema/schema_check.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

// The console line whose first two cells are `scenario` and `level`, split at runs of 2+ spaces.
std::vector<std::string> ConsoleRow(const std::string& text, const std::string& scenario,
                                    const std::string& level) {
  std::istringstream in(text);
  const std::regex gap(" {2,}");
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    for (std::sregex_token_iterator it(line.begin(), line.end(), gap, -1), end; it != end; ++it)
      cells.push_back(*it);
    if (cells.size() > 1 && cells[0] == scenario && cells[1] == level) return cells;
  }
  return {};
}

TEST(MultiEngineCli, PostgresqlAndSqliteSideBySideInOneReport) {
  TempDir out, base;
  ProcessResult r = RunProcess(
      {kBin, "run", "--engine", "postgresql,sqlite",
       kSrc + "/tests/fixtures/multi_engine_claim.yaml", "sqlite-naive-select-then-update",
       "--trials", "3", "--dsn", TestConninfo(), "--allow-superuser", "--out", out.path.string(),
       "--format", "console,json,md,junit,html"},
      seconds(240), {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Progress numbers the items over the whole run and names the engine.
  EXPECT_NE(r.err.find("[1/4] multi-engine-claim @ read committed on postgresql"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[4/4] sqlite-naive-select-then-update @ serializable on sqlite"),
            std::string::npos)
      << r.err;

  EXPECT_THAT(ConsoleRow(r.out, "scenario", "isolation"),
              ElementsAre("scenario", "isolation", "params", "postgresql", "sqlite"))
      << r.out;
  EXPECT_THAT(ConsoleRow(r.out, "multi-engine-claim", "read committed"),
              ElementsAre("multi-engine-claim", "read committed", "-", "pass · winners 2×3",
                          "— not in its isolation: list on sqlite (ser)"))
      << r.out;
  EXPECT_THAT(ConsoleRow(r.out, "multi-engine-claim", "serializable"),
              ElementsAre("multi-engine-claim", "serializable", "-", "pass · winners 1×3 · 40001×3",
                          "pass · winners 1×3 · SQLITE_BUSY_SNAPSHOT×3"))
      << r.out;
  const auto sqlite_only = ConsoleRow(r.out, "sqlite-naive-select-then-update", "serializable");
  ASSERT_EQ(sqlite_only.size(), 5u) << r.out;
  EXPECT_EQ(sqlite_only[2], "workers=3, journal_mode=wal");
  EXPECT_EQ(sqlite_only[3], "— not in its engines: list (sqlite)");
  EXPECT_THAT(sqlite_only[4], StartsWith("pass · winners 1×3"));

  const std::string md = Slurp(out.path / "racelab.md");
  EXPECT_NE(md.find("| multi-engine-claim | serializable | - | pass · winners 1×3 · 40001×3 | "
                    "pass · winners 1×3 · SQLITE\\_BUSY\\_SNAPSHOT×3 |\n"),
            std::string::npos)
      << md;

  const std::string json_text = Slurp(out.path / "racelab.json");
  EXPECT_THAT(ValidateJsonText(SchemaPath("racelab-report.schema.json"), json_text), IsEmpty());
  EXPECT_THAT(
      ValidateXmlText(SchemaPath("racelab-junit.xsd"), Slurp(out.path / "racelab.junit.xml")),
      IsEmpty());
  const nlohmann::json j = nlohmann::json::parse(json_text);
  ASSERT_EQ(j["targets"].size(), 2u);
  EXPECT_EQ(j["targets"][0]["engine"], "postgresql");
  EXPECT_EQ(j["targets"][0]["embedded"], false);
  EXPECT_EQ(j["targets"][1]["engine"], "sqlite");
  EXPECT_EQ(j["targets"][1]["embedded"], true);
  for (const auto& t : j["targets"])
    EXPECT_FALSE(t["server_version"].get<std::string>().empty()) << t;
  std::vector<std::string> engines;
  for (const auto& result : j["results"]) engines.push_back(result["engine"]);
  EXPECT_THAT(engines, ElementsAre("postgresql", "postgresql", "sqlite", "sqlite"));
  ASSERT_EQ(j["skipped"].size(), 2u) << j["skipped"];
  EXPECT_EQ(j["skipped"][0]["scenario"], "sqlite-naive-select-then-update");
  EXPECT_EQ(j["skipped"][0]["engine"], "postgresql");
  EXPECT_FALSE(j["skipped"][0].contains("isolation")) << "the whole scenario";
  EXPECT_EQ(j["skipped"][1]["scenario"], "multi-engine-claim");
  EXPECT_EQ(j["skipped"][1]["engine"], "sqlite");
  EXPECT_EQ(j["skipped"][1]["isolation"], "read committed");
  EXPECT_TRUE(fs::is_empty(base.path)) << "the SQLite run folder goes with the run";
}

// One-engine reports of different engines merge into one report of several engines: each result
// keeps its engine, both servers are named, the tables are side by side, and no "differs" warning.
TEST(MultiEngineCli, MergeOfTwoEnginesReportsIsSideBySide) {
  TempDir pg, lite, merged, base;
  const std::string fixture = kSrc + "/tests/fixtures/multi_engine_claim.yaml";
  ProcessResult r = RunProcess(
      {kBin, "run", fixture, "--isolation", "ser", "--trials", "2", "--dsn", TestConninfo(),
       "--allow-superuser", "-q", "--format", "json", "--out", pg.path.string()},
      seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunProcess({kBin, "run", "--engine", "sqlite", fixture, "--trials", "2", "-q", "--format",
                  "json", "--out", lite.path.string()},
                 seconds(120), {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunProcess(
      {kBin, "merge", (pg.path / "racelab.json").string(), (lite.path / "racelab.json").string(),
       "--format", "console,json", "--out", merged.path.string()},
      seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("differs"), std::string::npos) << r.err;
  EXPECT_THAT(ConsoleRow(r.out, "multi-engine-claim", "serializable"),
              ElementsAre("multi-engine-claim", "serializable", "pass · winners 1×2 · 40001×2",
                          "pass · winners 1×2 · SQLITE_BUSY_SNAPSHOT×2"))
      << r.out;
  const nlohmann::json j = nlohmann::json::parse(Slurp(merged.path / "racelab.json"));
  ASSERT_EQ(j["targets"].size(), 2u);
  EXPECT_EQ(j["results"][1]["engine"], "sqlite");
}

// Two --dsn, one per engine, without --engine: the run is on both servers, neither embedded. Two
// DSNs of one engine are a usage error.
TEST(MultiEngineCli, OneDsnPerEngineRunsOnBothServers) {
  TempDir out, base, files;
  const fs::path db = files.path / "empty.db";
  { std::ofstream touch(db); }  // a 0-byte file is an empty SQLite database
  ProcessResult r = RunProcess(
      {kBin, "run", "--dsn", TestConninfo(), "--dsn", "sqlite:" + db.string(),
       kSrc + "/tests/fixtures/multi_engine_claim.yaml", "--isolation", "ser", "--trials", "2",
       "--allow-superuser", "-q", "--format", "console,json", "--out", out.path.string()},
      seconds(180), {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(ConsoleRow(r.out, "multi-engine-claim", "serializable"),
              ElementsAre("multi-engine-claim", "serializable", "pass · winners 1×2 · 40001×2",
                          "pass · winners 1×2 · SQLITE_BUSY_SNAPSHOT×2"))
      << r.out;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  ASSERT_EQ(j["targets"].size(), 2u) << j["targets"];
  EXPECT_EQ(j["targets"][0]["engine"], "postgresql");
  EXPECT_EQ(j["targets"][0]["embedded"], false);
  EXPECT_EQ(j["targets"][1]["engine"], "sqlite");
  EXPECT_EQ(j["targets"][1]["embedded"], false);
  EXPECT_EQ(fs::file_size(db), 0u) << "a sqlite: DSN's file is never written";
  EXPECT_TRUE(fs::is_empty(base.path)) << "nothing embedded was started or left";

  r = RunProcess({kBin, "run", "--dsn", "postgresql://u:Pw-S3cret@127.0.0.1/a", "--dsn",
                  "host=127.0.0.1 dbname=b", "-q", "--format", "console"},
                 seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("are both servers of postgresql: give one --dsn per engine"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Pw-S3cret"), std::string::npos) << r.err;
}

// A server of one engine that cannot be opened (here a sqlite: file that does not exist) does not
// stop the others: its results are not run, with the reason, the next engine runs, and the exit
// is 3.
TEST(MultiEngineCli, AnEngineThatCannotStartDoesNotStopTheOthers) {
  TempDir out, base;
  ProcessResult r =
      RunProcess({kBin, "run", "--dsn", "sqlite:" + (out.path / "missing.db").string(), "--dsn",
                  TestConninfo(), kSrc + "/tests/fixtures/multi_engine_claim.yaml", "--isolation",
                  "ser", "--trials", "2", "--allow-superuser", "-q", "--format",
                  "console,json,junit", "--out", out.path.string()},
                 seconds(180), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_NE(r.err.find("no such database file"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("pass · winners 1×2 · 40001×2"), std::string::npos)
      << "PostgreSQL ran: " << r.out;
  const std::string json_text = Slurp(out.path / "racelab.json");
  EXPECT_THAT(ValidateJsonText(SchemaPath("racelab-report.schema.json"), json_text), IsEmpty());
  const nlohmann::json j = nlohmann::json::parse(json_text);
  ASSERT_EQ(j["results"].size(), 1u) << j["results"];
  EXPECT_EQ(j["results"][0]["engine"], "postgresql");
  EXPECT_EQ(j["results"][0]["verdict"], "pass");
  ASSERT_EQ(j["not_run"].size(), 1u) << j["not_run"];
  EXPECT_EQ(j["not_run"][0]["engine"], "sqlite");
  EXPECT_THAT(j["not_run"][0]["reason"].get<std::string>(), StartsWith("SQLite could not start: "));
  EXPECT_NE(j["run_error"].get<std::string>().find("no such database file"), std::string::npos);
}

// An engine that is not in --engine cannot be served by --dsn; an unknown engine is named.
TEST(MultiEngineCli, UsageErrorsNameTheEngine) {
  ProcessResult r = RunProcess(
      {kBin, "run", "--engine", "postgresql,oracle", "-q", "--format", "console"}, seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown engine 'oracle'"), std::string::npos) << r.err;
  r = RunProcess({kBin, "run", "--engine", "postgresql,sqlite", "--dsn", "mysql://u@127.0.0.1/db",
                  "-q", "--format", "console"},
                 seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a server of any engine in --engine postgresql, sqlite"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace racelab::testing
