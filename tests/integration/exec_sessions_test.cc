// Exec sessions on the embedded PostgreSQL (docs/race-your-own-code.md): the shipped examples'
// verdicts, what a program gets in its environment, the order of pause points, and programs that
// hang, crash, flood their output or lack a module — each an `error` with the program's output,
// within its deadline, with nothing of its process group left.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/pg_test_env.h"
#include "tests/integration/scenario_runner.h"
#include "tests/integration/subprocess.h"

namespace racelab::testing {
namespace {

const std::string kExamples = std::string(RACELAB_SOURCE_DIR) + "/examples/claim-worker/";
const std::string kFixtures = std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/exec/";

// Every "pid N" / "child N" a program printed, from every trial's sessions.
std::vector<pid_t> PrintedPids(const ResultSummary& r) {
  std::vector<pid_t> pids;
  static const std::regex kPid("(pid|child) ([0-9]+)");
  for (const TrialVerdict& t : r.trial_details) {
    for (const SessionResult& s : t.result.sessions) {
      if (!s.program) continue;
      const std::string& out = s.program->stdout_tail;
      for (auto it = std::sregex_iterator(out.begin(), out.end(), kPid);
           it != std::sregex_iterator(); ++it)
        pids.push_back(static_cast<pid_t>(std::stol((*it)[2])));
    }
  }
  return pids;
}

void ExpectGone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    errno = 0;
    EXPECT_NE(::kill(pid, 0), 0) << "process " << pid << " survived its trial";
    EXPECT_EQ(errno, ESRCH) << pid;
  }
}

// One trial of `fixture`: an error whose message has every one of `words`, within `max_ms`.
void ExpectErrorTrial(const std::string& fixture, const std::vector<std::string>& words,
                      double max_ms, size_t min_pids) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioRun run = RunScenario(kFixtures + fixture, 1, {}, {kRc});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.results.size(), 1u);
  const ResultSummary& r = run.results[0];
  EXPECT_EQ(r.verdict, Verdict::kError);
  for (const std::string& w : words)
    EXPECT_NE(r.error.find(w), std::string::npos) << w << " in: " << r.error;
  EXPECT_LT(ms, max_ms) << r.error;
  const std::vector<pid_t> pids = PrintedPids(r);
  EXPECT_GE(pids.size(), min_pids) << r.error;  // a partner may be killed before it prints
  ExpectGone(pids);
}

TEST(ExecSessions, TheNaiveClaimExecutesTheJobTwiceInEveryTrial) {
  ScenarioRun run = RunScenario(kExamples + "naive-claim.yaml", 5, {}, {kRc});
  ExpectAllPass(run, 5, 1);
}

TEST(ExecSessions, TheGuardedCasClaimHasOneWinner) {
  ScenarioRun run = RunScenario(kExamples + "guarded-cas-claim.yaml", 5, {}, {kRc});
  ExpectAllPass(run, 5, 1);
}

TEST(ExecSessions, AProgramGetsItsSchemaLevelAndNames) {
  ScenarioRun run = RunScenario(kFixtures + "env.yaml", 1, {}, {kRc, kSer});
  ExpectAllPass(run, 1, 2);
}

TEST(ExecSessions, AnOrderReleasesPausePointsOneSessionAtATime) {
  ScenarioRun run = RunScenario(kFixtures + "ordered.yaml", 3, {}, {kRc});
  ExpectAllPass(run, 3, 2);
}

TEST(ExecSessions, AWorkerThatNeverReachesItsPausePointIsAnErrorWithItsOutput) {
  ExpectErrorTrial("hang.yaml",
                   {"stuck: program: did not reach pause point 'after_read' within 800 ms; killed",
                    "stuck before after_read"},
                   5000, 2);
}

TEST(ExecSessions, AWorkerThatCrashesIsAnErrorWithItsOutput) {
  ExpectErrorTrial("crash.yaml",
                   {"crash: program: killed by signal 11",
                    "before it reached pause point "
                    "'after_read'",
                    "stderr: about to crash"},
                   5000, 1);
}

TEST(ExecSessions, AWorkerThatPrintsTenMegabytesIsKilledAtEightMebibytes) {
  ExpectErrorTrial("flood.yaml",
                   {"flood: program: killed: it wrote more than 8 MiB to stdout", "stdout: …xxxx"},
                   10000, 0);  // its pid line was pushed out of the kept 64 KiB
}

TEST(ExecSessions, AMissingPythonModuleIsTheProgramsExitAndStderr) {
  ExpectErrorTrial("no-module.yaml",
                   {"worker: program: exited 1",
                    "ModuleNotFoundError: No module named "
                    "'racelab_no_such_module'"},
                   5000, 0);
}

// Through the binary, as a user runs it: confined (the generated role logs in with RACELAB_DSN).
TEST(ExecSessionsCli, TheExamplesRunConfinedAndTheirOutputIsInTheReport) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("racelab-exec-cli-" + std::to_string(::getpid()));
  ProcessResult r =
      RunProcess({RACELAB_BINARY, "run", kExamples + "naive-claim.yaml", "--trials", "3", "--dsn",
                  TestConninfo(), "--allow-superuser", "--out", out.string(), "-q"},
                 std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out / "racelab.json");
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(out);
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  const nlohmann::json& trial = j["results"][0]["trial_details"][0];
  ASSERT_EQ(trial["sessions"].size(), 2u) << trial.dump();
  for (const nlohmann::json& s : trial["sessions"]) {
    EXPECT_EQ(s["program"]["ended"], "exited 0") << s.dump();
    EXPECT_EQ(s["program"]["stdout"]["tail"],
              s["label"].get<std::string>() + ": claimed run 1 and executed it\n")
        << s.dump();
  }
}

TEST(ExecSessionsCli, TheShellSnippetPausesWithSocat) {
  if (::access("/usr/bin/socat", X_OK) != 0) GTEST_SKIP() << "no socat";
  ProcessResult r = RunProcess({RACELAB_BINARY, "run", kFixtures + "socat.yaml", "--trials", "2",
                                "--dsn", TestConninfo(), "--allow-superuser", "-q"},
                               std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// The pid file sigint.yaml's program writes into (its shell, then its child).
std::string PidsFile(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("racelab-exec-pids-" + tag + "-" + std::to_string(::getpid())))
      .string();
}

// The two pids sigint.yaml's program wrote, once both are there (empty after 60 s).
std::vector<pid_t> AwaitProgramPids(const std::string& pids_file) {
  std::vector<pid_t> pids;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (pids.size() < 2 && std::chrono::steady_clock::now() < until) {
    std::ifstream in(pids_file);
    pids.clear();
    for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
    if (pids.size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pids.size() == 2 ? pids : std::vector<pid_t>{};
}

// `racelab run sigint.yaml` (one trial), whose program writes its two pids into `pids_file`.
Subprocess StartSigintRun(const std::string& pids_file) {
  std::filesystem::remove(pids_file);
  return Subprocess({RACELAB_BINARY, "run", kFixtures + "sigint.yaml", "--trials", "1", "--dsn",
                     TestConninfo(), "--allow-superuser", "-q"},
                    {{"RACELAB_TEST_PIDS", pids_file}});
}

TEST(ExecSessionsCli, CtrlCKillsTheProgramsWholeProcessGroup) {
  const std::string pids_file = PidsFile("int");
  Subprocess p = StartSigintRun(pids_file);
  const std::vector<pid_t> pids = AwaitProgramPids(pids_file);
  ASSERT_EQ(pids.size(), 2u) << "the program never started";
  p.Signal(SIGINT);
  ProcessResult r = p.Wait(std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(r.elapsed_ms, 30000);
  ExpectGone(pids);
  std::filesystem::remove(pids_file);
}

// SIGKILL gives racelab no chance to end its programs: they outlive it, and `racelab clean` — told
// by the program's folder which racelab owned it and which process group is the program's — ends
// them and removes the folder.
TEST(ExecSessionsCli, CleanEndsTheProgramsOfARacelabKilledWithSigkill) {
  const std::string pids_file = PidsFile("kill");
  Subprocess p = StartSigintRun(pids_file);
  const std::vector<pid_t> pids = AwaitProgramPids(pids_file);
  ASSERT_EQ(pids.size(), 2u) << "the program never started";
  const std::string prefix = "racelab-exec-" + std::to_string(p.pid()) + "-";
  std::vector<std::filesystem::path> folders;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) folders.push_back(e.path());
  ASSERT_EQ(folders.size(), 1u) << "no " << prefix << "* folder";
  p.Signal(SIGKILL);
  p.Wait(std::chrono::seconds(10));
  for (pid_t pid : pids)
    EXPECT_EQ(::kill(pid, 0), 0) << pid << " went with racelab: nothing to clean";

  ProcessResult dry = RunProcess({RACELAB_BINARY, "clean", "--dry-run"}, std::chrono::seconds(60));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove exec session folder " + folders[0].string()),
            std::string::npos)
      << dry.out;
  for (pid_t pid : pids) EXPECT_EQ(::kill(pid, 0), 0) << "--dry-run ended " << pid;

  // --dsn: the killed run's schema and role on the test server go too.
  ProcessResult clean =
      RunProcess({RACELAB_BINARY, "clean", "--dsn", TestConninfo()}, std::chrono::seconds(60));
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("removed 1 exec session folder(s)"), std::string::npos) << clean.out;
  ExpectGone(pids);
  EXPECT_FALSE(std::filesystem::exists(folders[0]));
  std::filesystem::remove(pids_file);
}

}  // namespace
}  // namespace racelab::testing
