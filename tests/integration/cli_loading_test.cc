// The racelab binary while it loads and plans (issue 7): SIGINT/SIGTERM end loading promptly with
// 130/143 before any cluster starts or any file is written; hostile --set values, a step longer
// than the trial deadline and a role on a node the engine lacks are exit-2 errors naming FILE:LINE.
// No database server is needed: every case ends before racelab would connect (the node check
// opens SQLite, in-process, and runs nothing).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

std::string Rep(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// `n` valid scenario files near the size limit (two sessions of 480 steps each), so that loading
// the folder takes seconds.
void WriteSlowCatalogue(const fs::path& dir, int n) {
  std::string steps;
  for (int i = 0; i < 480; ++i) {
    steps += "      - sql: SELECT " + std::to_string(i) + " -- " + Rep("padding ", 22) + "\n";
  }
  for (int i = 0; i < n; ++i) {
    std::ofstream f(dir / ("slow-" + std::to_string(i) + ".yaml"));
    f << "name: slow-" << i << "\ntitle: Slow\nteaches: Loading takes time.\nsessions:\n"
      << "  - name: a\n    steps:\n"
      << steps << "      - barrier: go\n"
      << "  - name: b\n    steps:\n"
      << steps << "      - barrier: go\n"
      << "expect: { lock_waits: 0 }\n";
  }
}

bool IsEmptyDir(const fs::path& dir) { return !fs::exists(dir) || fs::is_empty(dir); }

TEST(CliLoading, SigintWhileLoadingExits130BeforeAnyClusterStarts) {
  TempDir catalogue, base, parent;
  WriteSlowCatalogue(catalogue.path, 120);
  fs::path out = parent.path / "reports";
  // How long the whole folder takes to load: the signal must come well inside it.
  ProcessResult full =
      RunProcess({kBin, "list"}, seconds(120), {{"RACELAB_SCENARIOS", catalogue.path.string()}});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_GT(full.elapsed_ms, 1500) << "loading must take long enough to interrupt it";

  Subprocess p({kBin, "run", catalogue.path.string(), "--out", out.string()},
               {{"RACELAB_TMPDIR", base.path.string()}});
  std::this_thread::sleep_for(milliseconds(static_cast<long>(full.elapsed_ms / 4)));
  auto signalled = std::chrono::steady_clock::now();
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(seconds(60));
  double after_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - signalled)
          .count();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(after_ms, 1500) << "one file's load at most (a whole folder took " << full.elapsed_ms
                            << " ms)";
  EXPECT_EQ(r.err.find("starting embedded PostgreSQL"), std::string::npos) << r.err;
  EXPECT_TRUE(IsEmptyDir(base.path)) << "no cluster folder was created";
  EXPECT_FALSE(fs::exists(out)) << "no report folder was created";
}

TEST(CliLoading, SigtermWhileListingExits143) {
  TempDir catalogue;
  WriteSlowCatalogue(catalogue.path, 120);
  Subprocess p({kBin, "list"}, {{"RACELAB_SCENARIOS", catalogue.path.string()}});
  std::this_thread::sleep_for(milliseconds(500));
  p.Signal(SIGTERM);
  ProcessResult r = p.Wait(seconds(60));
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_LT(r.elapsed_ms, 2500);
}

TEST(CliLoading, HostileSetValuesAreUsageErrorsNamingTheFile) {
  std::string file = kSrc + "/scenarios/guarded-cas-claim.yaml";
  // 30,000 nested parentheses (once a stack overflow) and a duration past the clock's range.
  const std::vector<std::string> sets = {"workers=" + Rep("(", 30000) + "2" + Rep(")", 30000),
                                         "workers=" + Rep("(", 40) + "2" + Rep(")", 40),
                                         "workers=10000000000000", "workers=1e13"};
  for (const std::string& set : sets) {
    ProcessResult r = RunProcess(
        {kBin, "run", file, "--set", set, "--dsn", "host=/nonexistent", "-q"}, seconds(20));
    EXPECT_EQ(r.exit_code, 2) << set.substr(0, 60) << ": " << r.err;
    EXPECT_NE(r.err.find(file + ":"), std::string::npos) << r.err.substr(0, 500);
    EXPECT_LT(r.err.size(), 2000u);
  }
}

// --set, --tag and --dsn take one value each: the scenario named after them is a positional (CLI11
// let a vector option swallow every following word: 'racelab run --set workers=2 guarded-cas-claim'
// was "--set 'guarded-cas-claim': expected NAME=VALUE").
TEST(CliLoading, ScenarioNamesAfterSetTagAndDsnArePositionals) {
  for (const std::vector<std::string>& option : {std::vector<std::string>{"--set", "workers=2"},
                                                 {"--tag", "claims"},
                                                 {"--dsn", "host=/nonexistent"}}) {
    std::vector<std::string> argv = {kBin, "run"};
    argv.insert(argv.end(), option.begin(), option.end());
    argv.push_back("no-such-scenario");
    argv.push_back("-q");
    ProcessResult r = RunProcess(argv, seconds(20));
    EXPECT_EQ(r.exit_code, 2) << option[0] << ": " << r.err;
    EXPECT_NE(r.err.find("unknown scenario 'no-such-scenario'"), std::string::npos)
        << option[0] << ": " << r.err;
  }
}

TEST(CliLoading, AStepLongerThanTheTrialDeadlineIsAUsageError) {
  std::string file = kSrc + "/scenarios/lock-hold-wait.yaml";
  ProcessResult r = RunProcess({kBin, "run", file, "--set", "hold_ms=5000", "--trial-timeout-ms",
                                "1000", "--dsn", "host=/nonexistent", "-q"},
                               seconds(20));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot end before the trial deadline (--trial-timeout-ms 1000)"),
            std::string::npos)
      << r.err;
}

// `node:` names a node the engine does not have (a single server has one, "server"): the plan meets
// the engine and ends there, exit 2, naming FILE:LINE:COL and the field, in stderr and in the
// report's run_error; with `node: server` the same file runs and passes.
TEST(CliLoading, ARoleOnANodeTheEngineLacksIsAUsageErrorNamingTheLine) {
  TempDir dir, out, out2;
  const fs::path file = dir.path / "node.yaml";
  auto write = [&](const std::string& node) {
    std::ofstream f(file);
    f << "name: node-check\ntitle: Node check\nteaches: A role's node is the engine's.\n"
      << "engines: [sqlite]\nsessions:\n  - name: a\n    node: " << node
      << "\n    steps: [ sql: SELECT 1 ]\nexpect: { lock_waits: 0 }\n";
  };
  write("standby1");
  ProcessResult r = RunProcess({kBin, "run", file.string(), "--engine", "sqlite", "--trials", "1",
                                "-q", "--format", "json", "--out", out.path.string()},
                               seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string want =
      file.string() + ":7:11: sessions[0].node: sqlite has no node 'standby1' (its nodes: server)";
  EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  const std::string report = Slurp(out.path / "racelab.json");
  EXPECT_NE(report.find("has no node 'standby1'"), std::string::npos) << report;
  EXPECT_NE(report.find("\"results\": []"), std::string::npos) << "nothing ran: " << report;
  write("server");
  ProcessResult ok = RunProcess({kBin, "run", file.string(), "--engine", "sqlite", "--trials", "1",
                                 "-q", "--format", "json", "--out", out2.path.string()},
                                seconds(30));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// A folder with malformed files (tests/fixtures/bad: one defect per file) — as --scenarios DIR or
// named: every file's error is printed with FILE:LINE:COL and its field, not only the first, then a
// count; nothing runs (exit 2, no server), and the JUnit file carries the same text.
TEST(CliLoading, EveryMalformedFileOfAFolderIsReportedAndNothingRuns) {
  const std::string dir = kSrc + "/tests/fixtures/bad";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  ASSERT_GE(files.size(), 10u);
  TempDir out;
  for (const std::vector<std::string>& how :
       {std::vector<std::string>{dir}, std::vector<std::string>{"--scenarios", dir}}) {
    std::vector<std::string> argv = {
        kBin, "run", "--dsn", "host=/nonexistent", "--out", out.path.string(), "--format", "junit"};
    argv.insert(argv.end(), how.begin(), how.end());
    ProcessResult r = RunProcess(argv, seconds(30));
    EXPECT_EQ(r.exit_code, 2) << how.back() << ": " << r.err;
    for (const std::string& file : files) {
      EXPECT_NE(r.err.find(dir + "/" + file + ":"), std::string::npos)
          << file << " not reported: " << r.err;
    }
    EXPECT_NE(r.err.find(
                  "tests/fixtures/bad/unknown_key.yaml:11:5: sessions[0].cont: unknown key 'cont'"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(std::to_string(files.size()) + " of " + std::to_string(files.size()) +
                         " scenario files did not load (each error above); nothing was loaded"),
              std::string::npos)
        << r.err;
    const std::string junit = Slurp(out.path / "racelab.junit.xml");
    EXPECT_NE(junit.find("unknown_step.yaml:14:9"), std::string::npos)
        << "the last file's error, in the JUnit too";
  }
}

// --permutation over several ordered scenarios: stderr says what runs and what is skipped in each
// (a scenario without a match is skipped whole, said so), before any server is asked; no match
// anywhere is exit 2 listing every ordered scenario's permutations.
TEST(CliLoading, PermutationSaysWhatItSelectsAndSkipsInEachOrderedScenario) {
  const std::string two = kSrc + "/tests/fixtures/order/lost-update-two-orders.yaml";
  const std::string four = kSrc + "/tests/fixtures/order/markers.yaml";
  ProcessResult r =
      RunProcess({kBin, "run", two, four, "--permutation", "4", "--dsn", "host=/nonexistent", "-q"},
                 seconds(30));
  EXPECT_EQ(r.exit_code, 3) << "planned, then the server cannot be reached: " << r.err;
  EXPECT_NE(
      r.err.find("racelab: --permutation 4: scenario lost-update-two-orders skipped: none of its 2 "
                 "permutations matches:\n  " +
                 two + ":25:5: order[0]: "),
      std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find(
          "racelab: --permutation 4: scenario order-markers runs 1 of its 4 permutations:\n  " +
          four + ":30:5: order[3]: a.one b.slow a.one (--permutation 4)\nskipped:\n  " + four +
          ":21:5: "),
      std::string::npos)
      << r.err;
  r = RunProcess({kBin, "run", two, four, "--permutation", "9", "--dsn", "host=/nonexistent", "-q"},
                 seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("scenario lost-update-two-orders's are:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scenario order-markers's are:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace racelab::testing
