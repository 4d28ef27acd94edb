// `racelab run --engine sqlite` end to end: the scenarios pass, their busy waits are in the report,
// and no database is left behind after a normal run, SIGINT, or SIGKILL followed by the next run.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
const std::string kBin = RACELAB_BINARY;

int RunFolders(const fs::path& base) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(base)) {
    if (e.path().filename().string().rfind("racelab-sqlite-", 0) == 0) ++n;
  }
  return n;
}

TEST(SqliteCli, ScenariosPassAndBusyWaitsAreReported) {
  TempDir base, out;
  ProcessResult r = RunProcess({kBin, "run", "--engine", "sqlite", "--tag", "sqlite", "--trials",
                                "3", "--out", out.path.string()},
                               seconds(240), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string json = Slurp(out.path / "racelab.json");
  EXPECT_NE(json.find("\"engine\": \"sqlite\""), std::string::npos);
  EXPECT_NE(json.find("busy: "), std::string::npos) << "a busy wait with its retries";
  EXPECT_EQ(RunFolders(base.path), 0) << "the run folder goes with the run";
}

// A SQLite transaction is serializable and has no READ ONLY or DEFERRABLE mode: a `begin` that asks
// for one is refused when the file loads (exit 2, its line and field), before any setup runs —
// never a transaction silently run otherwise.
TEST(SqliteCli, ABeginWithAModeSqliteLacksIsRefusedWhenLoaded) {
  TempDir base, dir;
  for (const std::string begin :
       {"{ begin: , read_only: true, name: b }", "{ begin: , isolation: rc, name: b }"}) {
    const fs::path file = dir.path / "modes.yaml";
    std::ofstream(file) << "name: sqlite-begin-modes\ntitle: t\nteaches: t\nengines: [sqlite]\n"
                           "isolation: serializable\nsetup: CREATE TABLE t (k int)\nsessions:\n"
                           "  - name: a\n    steps:\n      - "
                        << begin << "\n      - { sql: \"SELECT k FROM t\" }\n      - { commit: }\n"
                        << "expect: { sqlstates: {} }\n";
    ProcessResult r = RunProcess({kBin, "run", file.string(), "--engine", "sqlite", "--trials", "1",
                                  "--out", (dir.path / "out").string()},
                                 seconds(60), {{"RACELAB_TMPDIR", base.path.string()}});
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    const std::string want =
        begin.find("read_only") != std::string::npos
            ? "modes.yaml:10:31: sessions[0].steps[0].read_only: SQLite has no READ ONLY "
              "transaction mode"
            : "modes.yaml:10:31: sessions[0].steps[0].isolation: SQLite has one isolation "
              "level, serializable: a begin cannot run at read committed";
    EXPECT_NE((r.err + r.out).find(want), std::string::npos) << r.err << r.out;
  }
  EXPECT_EQ(RunFolders(base.path), 0);
}

TEST(SqliteCli, SigintMidRunLeavesNoDatabase) {
  TempDir base, out;
  Subprocess p({kBin, "run", "--engine", "sqlite", "sqlite-lock-hold-wait", "--set", "hold_ms=2000",
                "--trials", "20", "--out", out.path.string()},
               {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_TRUE(p.WaitForStderr("sqlite-lock-hold-wait", seconds(60))) << "the run never started";
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(RunFolders(base.path), 1) << "the trial's database lives in the run folder";
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(30));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(RunFolders(base.path), 0) << "no database left after SIGINT";
}

// Trials that passed, then SIGINT: the result is `interrupted` (exit 130), not `error` — a CI gate
// can tell a stopped run from a database fault. Its passed trials are counted, the cut one is not.
TEST(SqliteCli, SigintAfterPassingTrialsIsInterruptedNotError) {
  TempDir base, out;
  Subprocess p({kBin, "run", "--engine", "sqlite", "sqlite-lock-hold-wait", "--set", "hold_ms=200",
                "--trials", "200", "--out", out.path.string(), "--format", "console,json,junit"},
               {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_TRUE(p.WaitForStderr("sqlite-lock-hold-wait", seconds(60))) << "the run never started";
  std::this_thread::sleep_for(seconds(3));  // a trial takes ~0.5 s: some have passed, not all 200
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(30));
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out.path / "racelab.json"));
  const nlohmann::json& res = j["results"].at(0);
  EXPECT_EQ(res["verdict"], "interrupted") << res.dump();
  EXPECT_GT(res["trials"].get<int>(), 0) << "no trial ended in 3 s: " << r.err;
  EXPECT_LT(res["trials"].get<int>(), 200);
  // The signal lands in a trial (nearly always) or between two (the evaluation of the last, µs).
  const int next = res["trials"].get<int>() + 1;
  EXPECT_THAT(
      res["interrupted"].get<std::string>(),
      ::testing::AnyOf(
          fmt::format("interrupted during trial {} of 200; that trial is not evaluated", next),
          fmt::format("interrupted before trial {} of 200", next)));
  EXPECT_EQ(j["summary"]["error"], 0);
  EXPECT_EQ(j["summary"]["interrupted"], 1);
  EXPECT_EQ(res["expectations"][0]["failed"], 0);
  EXPECT_NE(
      r.out.find(fmt::format("{} trials ran before it, all passed", res["trials"].get<int>())),
      std::string::npos)
      << r.out;
}

TEST(SqliteCli, ASigkilledRunsDatabaseGoesWithTheNextRun) {
  TempDir base, out;
  {
    Subprocess p({kBin, "run", "--engine", "sqlite", "sqlite-lock-hold-wait", "--set",
                  "hold_ms=2000", "--trials", "20", "--out", out.path.string()},
                 {{"RACELAB_TMPDIR", base.path.string()}});
    ASSERT_TRUE(p.WaitForStderr("sqlite-lock-hold-wait", seconds(60)));
    std::this_thread::sleep_for(seconds(1));
    p.Signal(SIGKILL);
    p.Wait(seconds(30));
  }
  EXPECT_EQ(RunFolders(base.path), 1) << "the killed run's folder is left";
  ProcessResult r =
      RunProcess({kBin, "run", "--engine", "sqlite", "sqlite-naive-select-then-update", "--trials",
                  "2", "-q", "--out", out.path.string()},
                 seconds(120), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RunFolders(base.path), 0) << "the next run removed it, and its own";
}

// SQLite has one level (issue 20 item 12): a scenario without `isolation:` runs once, at
// serializable — not three times under the names of levels SQLite does not have.
TEST(SqliteCli, AScenarioWithoutIsolationRunsOnceAtSerializable) {
  TempDir base, dir;
  const fs::path file = dir.path / "no-levels.yaml";
  std::ofstream(file) << "name: sqlite-no-levels\ntitle: t\nteaches: t\nengines: [sqlite]\n"
                         "setup: CREATE TABLE t (k int)\nsessions:\n"
                         "  - name: a\n    steps:\n      - { sql: \"SELECT k FROM t\" }\n"
                      << "expect: { sqlstates: {} }\n";
  ProcessResult r = RunProcess({kBin, "run", file.string(), "--engine", "sqlite", "--trials", "1",
                                "--format", "json", "--out", (dir.path / "out").string()},
                               seconds(60), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto json = nlohmann::json::parse(Slurp(dir.path / "out" / "racelab.json"));
  ASSERT_EQ(json.at("results").size(), 1u) << json.at("results").dump();
  EXPECT_EQ(json.at("results")[0].at("isolation"), "serializable");
}

// A RACELAB_TMPDIR that does not exist, or is relative, is exit 2 naming the variable and the path
// (issue 20 item 21), and racelab makes nothing: no folder tree with a cached template in it.
TEST(SqliteCli, ABadRacelabTmpdirIsAUsageErrorAndMakesNothing) {
  TempDir dir;
  const std::string missing = dir.File("typo/deeper");
  for (const std::string& tmpdir : {missing, std::string("relative/racelab-tmp")}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{kBin, "run", "--engine", "sqlite", "sqlite-begin-immediate",
                                   "--trials", "1", "--out", dir.File("out")},
          std::vector<std::string>{kBin, "run", "--engine", "postgresql", "guarded-cas-claim",
                                   "--trials", "1", "--out", dir.File("out")},
          std::vector<std::string>{kBin, "clean", "--dry-run"}}) {
      ProcessResult r = RunProcess(args, seconds(60), {{"RACELAB_TMPDIR", tmpdir}});
      EXPECT_EQ(r.exit_code, 2) << args[1] << " " << args[2] << ": " << r.err << r.out;
      EXPECT_NE(r.err.find("RACELAB_TMPDIR=" + tmpdir + ": "), std::string::npos) << r.err;
    }
  }
  EXPECT_FALSE(fs::exists(dir.path / "typo")) << "racelab created the missing RACELAB_TMPDIR";
}

// `racelab clean` lists and removes the PostgreSQL template under RACELAB_TMPDIR (a folder the user
// chose), unless a run holds it.
TEST(SqliteCli, CleanListsAndRemovesTheTemplateUnderRacelabTmpdir) {
  TempDir base;
  const fs::path racelab_dir = base.path / ("racelab-" + std::to_string(::geteuid()));
  const fs::path tmpl = racelab_dir / "template-15-wal1";
  fs::create_directories(tmpl);
  std::ofstream(tmpl / "PG_VERSION") << "15\n";
  ProcessResult dry = RunProcess({kBin, "clean", "--dry-run"}, seconds(60),
                                 {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove PostgreSQL template under RACELAB_TMPDIR " + tmpl.string()),
            std::string::npos)
      << dry.out;
  EXPECT_TRUE(fs::exists(tmpl));
  ProcessResult clean =
      RunProcess({kBin, "clean"}, seconds(60), {{"RACELAB_TMPDIR", base.path.string()}});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_FALSE(fs::exists(tmpl)) << clean.out;
}

}  // namespace
}  // namespace racelab::testing
