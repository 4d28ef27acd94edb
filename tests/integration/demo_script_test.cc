// scripts/demo fails when any of its steps fails, and writes into a folder of its own. Its
// structure is tested with a stand-in racelab (a shell script with no database semantics: it logs
// its arguments and exits with the code a test asks for, per engine run and for merge), so every
// exit code of every step is tried in seconds; then once end to end with the real binary on a tiny
// scenario set (RACELAB_DEMO_BUILD=0, RACELAB_DEMO_ENGINES, RACELAB_DEMO_TRIALS: scripts/demo's
// header).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kDemo = std::string(RACELAB_SOURCE_DIR) + "/scripts/demo";

// A stand-in racelab in `dir`: appends its arguments to $FAKE_LOG, exits $FAKE_RC_<engine> for `run
// --engine <engine>`, $FAKE_RC_merge for `merge` (0 when unset).
void WriteFakeRacelab(const fs::path& dir) {
  std::ofstream f(dir / "racelab");
  f << "#!/usr/bin/env bash\n"
       "echo \"$*\" >> \"$FAKE_LOG\"\n"
       "key=$1\n"
       "if [ \"$1\" = run ]; then while [ $# -gt 0 ]; do [ \"$1\" = --engine ] && key=$2; shift; "
       "done; fi\n"
       "var=FAKE_RC_$key\n"
       "exit \"${!var:-0}\"\n";
  f.close();
  fs::permissions(dir / "racelab", fs::perms::owner_all);
}

struct DemoRun {
  ProcessResult result;
  std::string log;  // the stand-in's calls, one line each
};

DemoRun RunFakeDemo(const std::map<std::string, std::string>& codes, bool with_out = true) {
  TempDir bin, work;
  WriteFakeRacelab(bin.path);
  std::map<std::string, std::string> env = {{"RACELAB_DEMO_BUILD", "0"},
                                            {"RACELAB_BUILD_DIR", bin.path.string()},
                                            {"FAKE_LOG", work.File("log")}};
  if (with_out) env["RACELAB_OUT"] = work.File("demo");
  for (const auto& [step, code] : codes) env["FAKE_RC_" + step] = code;
  DemoRun run;
  run.result = RunProcess({"/bin/bash", kDemo}, seconds(60), env);
  run.log = Slurp(work.path / "log");
  return run;
}

TEST(DemoScript, EveryStepRunsIntoTheDemosOwnFolders) {
  DemoRun run = RunFakeDemo({});
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
  EXPECT_THAT(run.log, HasSubstr("run --engine postgresql --trials 20 --out "));
  EXPECT_THAT(run.log, HasSubstr("demo/postgresql\n"));
  EXPECT_THAT(run.log, HasSubstr("demo/mariadb\n"));
  EXPECT_THAT(run.log, HasSubstr("demo/sqlite\n"));
  EXPECT_THAT(run.log, HasSubstr("merge "));
  EXPECT_THAT(run.log, HasSubstr("demo/side-by-side"));
  // Without RACELAB_OUT: racelab-demo/, never racelab-reports/ (where a `racelab run` in the clone
  // writes).
  DemoRun fallback = RunFakeDemo({}, /*with_out=*/false);
  EXPECT_THAT(fallback.log, HasSubstr("--out racelab-demo/postgresql"));
  EXPECT_THAT(fallback.log, Not(HasSubstr("racelab-reports")));
}

TEST(DemoScript, AMergeThatFailsFailsTheDemo) {
  DemoRun run = RunFakeDemo({{"merge", "3"}});
  EXPECT_EQ(run.result.exit_code, 3) << run.result.err << run.result.out;
  EXPECT_THAT(run.result.out, HasSubstr("demo: racelab merge (side by side) exited 3"));
  EXPECT_THAT(run.result.err, HasSubstr("demo: FAILED"));
}

TEST(DemoScript, ARunThatFailsFailsTheDemoAndTheOtherStepsStillRun) {
  for (const std::string code : {"1", "2", "3"}) {
    DemoRun run = RunFakeDemo({{"mariadb", code}});
    EXPECT_EQ(run.result.exit_code, std::stoi(code)) << run.result.err << run.result.out;
    EXPECT_THAT(run.log, HasSubstr("--engine sqlite")) << "the steps after it ran";
    EXPECT_THAT(run.log, HasSubstr("merge "));
    EXPECT_THAT(run.result.out, HasSubstr("demo: racelab run (mariadb) exited " + code));
  }
  // The worst code wins: an error (2, 3) over a failed expectation (1).
  EXPECT_EQ(RunFakeDemo({{"postgresql", "1"}, {"sqlite", "3"}, {"merge", "1"}}).result.exit_code,
            3);
}

TEST(DemoScript, AnInterruptEndsTheDemoAtOnce) {
  DemoRun run = RunFakeDemo({{"mariadb", "130"}});
  EXPECT_EQ(run.result.exit_code, 130);
  EXPECT_THAT(run.log, Not(HasSubstr("--engine sqlite")));
  EXPECT_THAT(run.log, Not(HasSubstr("merge")));
}

TEST(DemoScript, TheRealBinaryOnATinyScenarioSetPassesAndFails) {
  TempDir out, base;
  const std::string build_dir = fs::path(RACELAB_BINARY).parent_path().string();
  std::map<std::string, std::string> env = {{"RACELAB_DEMO_BUILD", "0"},
                                            {"RACELAB_BUILD_DIR", build_dir},
                                            {"RACELAB_DEMO_ENGINES", "sqlite"},
                                            {"RACELAB_DEMO_TRIALS", "2"},
                                            {"RACELAB_TMPDIR", base.path.string()},
                                            {"RACELAB_OUT", out.File("demo")}};
  ProcessResult pass =
      RunProcess({"/bin/bash", kDemo, "sqlite-guarded-cas-claim"}, seconds(120), env);
  EXPECT_EQ(pass.exit_code, 0) << pass.err << pass.out;
  EXPECT_TRUE(fs::exists(out.path / "demo" / "sqlite" / "racelab.json"));
  // A scenario whose expectation does not hold: exit 1, so the demo fails.
  env["RACELAB_DEMO_ENGINES"] = "postgresql";
  env.erase("RACELAB_TMPDIR");  // the cached initdb template of the default folder: no initdb here
  ProcessResult fail =
      RunProcess({"/bin/bash", kDemo,
                  std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/wrong_expectation.yaml"},
                 seconds(120), env);
  EXPECT_EQ(fail.exit_code, 1) << fail.err << fail.out;
  EXPECT_THAT(fail.err, HasSubstr("demo: FAILED"));
}

}  // namespace
}  // namespace racelab::testing
