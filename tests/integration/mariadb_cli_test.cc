// racelab run --engine mariadb end to end (the real binary, a real embedded MariaDB): the MariaDB
// scenarios pass, and nothing is left after a normal exit, SIGINT, SIGTERM, or SIGKILL + next run.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/integration/subprocess.h"

namespace racelab {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::ProcessResult;
using testing::Subprocess;

std::string BaseDir() {  // harness/engines/mariadb/server.h DefaultMariaDbBaseDir(), TMPDIR unset
  const char* tmp = std::getenv("RACELAB_TMPDIR");
  if (tmp == nullptr || *tmp == '\0') tmp = std::getenv("TMPDIR");
  if (tmp == nullptr || *tmp == '\0') tmp = "/tmp";
  return std::string(tmp) + "/racelab-" + std::to_string(geteuid()) + "/mariadb";
}

// Run folders of racelab process `pid` (run-<pid>-<n>).
int RunFoldersOf(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(BaseDir(), ec))
    if (e.path().filename().string().rfind("run-" + std::to_string(pid) + "-", 0) == 0) ++n;
  return n;
}

std::string OutDir(const std::string& name) {
  std::string dir =
      fs::temp_directory_path() / ("racelab-mariadb-cli-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(MariaDbCliTest, TheMariaDbScenariosPassAndNothingIsLeft) {
  std::string out = OutDir("all");
  Subprocess p({RACELAB_BINARY, "run", "--engine", "mariadb", "--trials", "2", "--format",
                "console,json", "--out", out});
  ProcessResult r = p.Wait(milliseconds(600000));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("MariaDB"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("guarded-cas-claim"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read uncommitted"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("advisory-seq "), std::string::npos)
      << "a PostgreSQL-only scenario ran on MariaDB";
  EXPECT_EQ(RunFoldersOf(p.pid()), 0);
  fs::remove_all(out);
}

TEST(MariaDbCliTest, AnEngineTheDsnDoesNotNameIsAUsageError) {
  Subprocess p({RACELAB_BINARY, "run", "--engine", "mariadb", "--dsn", "postgresql://u@h/db",
                "guarded-cas-claim"});
  ProcessResult r = p.Wait(milliseconds(60000));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// SIGINT and SIGTERM stop the run (130, 143) and remove the server; SIGKILL leaves its folder,
// which the next run removes.
TEST(MariaDbCliTest, SignalsLeaveNothingBehind) {
  for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
    std::string out = OutDir("sig");
    Subprocess p({RACELAB_BINARY, "run", "--engine", "mariadb", "lock-lease", "--trials", "1000",
                  "--out", out});
    ASSERT_TRUE(p.WaitForStderr("ready in", milliseconds(120000))) << "signal " << sig;
    std::this_thread::sleep_for(milliseconds(500));
    p.Signal(sig);
    ProcessResult r = p.Wait(milliseconds(60000));
    EXPECT_FALSE(r.timed_out);
    if (sig == SIGKILL) {
      EXPECT_EQ(RunFoldersOf(p.pid()), 1) << "a SIGKILLed run cannot clean up";
      Subprocess next({RACELAB_BINARY, "run", "--engine", "mariadb", "guarded-cas-claim",
                       "--trials", "1", "--isolation", "rc", "--format", "console", "--out", out});
      ProcessResult n = next.Wait(milliseconds(300000));
      EXPECT_EQ(n.exit_code, 0) << n.err;
      EXPECT_EQ(RunFoldersOf(p.pid()), 0) << "the next run removes the orphan";
    } else {
      EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
      EXPECT_EQ(RunFoldersOf(p.pid()), 0);
    }
    fs::remove_all(out);
  }
}

}  // namespace
}  // namespace racelab
