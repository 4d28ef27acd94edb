// The racelab binary against servers and neighbours that misbehave: a COPY FROM STDIN it cannot
// feed, a server that stops answering (postmaster and backends stopped with SIGSTOP, as a paused VM
// or a dead peer), an embedded postmaster killed mid-run, and a second run on the same database
// whose process has the same pid. Each must end with a clear exit code within its deadlines and
// leave nothing behind: no schema (or one `racelab clean` removes), no process, no shared memory.
// The test server's role is a superuser: runs against it pass --allow-superuser.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/engines/embedded/process.h"
#include "harness/engines/postgresql/cluster.h"
#include "tests/integration/pg_test_env.h"
#include "tests/integration/subprocess.h"
#include "tests/integration/test_files.h"

namespace racelab::testing {
namespace {

using pg::ClusterOptions;
using pg::EmbeddedCluster;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kBin = RACELAB_BINARY;
const std::string kSrc = RACELAB_SOURCE_DIR;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The count `sql` returns, or -1 if the server cannot be asked.
int Count(const std::string& conninfo, const char* sql) {
  PGconn* c = PQconnectdb((conninfo + " connect_timeout=5").c_str());
  PGresult* r = PQexec(c, sql);
  int n = PQresultStatus(r) == PGRES_TUPLES_OK ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
  PQclear(r);
  PQfinish(c);
  return n;
}

int RacelabSchemas(const std::string& conninfo) {
  return Count(conninfo, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'racelab\\_%'");
}

// Roles racelab generates to confine scenario SQL (harness/run/scenario_role.h).
int RacelabRoles(const std::string& conninfo) {
  return Count(conninfo, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_role\\_%'");
}

bool WaitForSchemas(const std::string& conninfo, int n, milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  while (Clock::now() < until) {
    if (RacelabSchemas(conninfo) >= n) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

// Every process of a server: the postmaster and its children (backends, helpers).
std::vector<pid_t> ServerProcesses(pid_t postmaster) {
  std::vector<pid_t> pids{postmaster};
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = Slurp(e.path() / "stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) == 2 && ppid == postmaster) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

void SignalAll(const std::vector<pid_t>& pids, int sig) {
  for (pid_t p : pids) kill(p, sig);
}

TEST(HostileServer, CopyFromStdinInAStepIsRefusedClearlyWithoutHanging) {
  TempDir out;
  ProcessResult r =
      RunProcess({kBin, "run", kSrc + "/tests/fixtures/copy_in_step.yaml", "--trials", "2", "--dsn",
                  TestConninfo(), "--allow-superuser", "--statement-timeout-ms", "5000", "--out",
                  out.path.string(), "--format", "console,json"},
                 seconds(60));
  EXPECT_FALSE(r.timed_out) << "COPY FROM STDIN must not hang the run";
  EXPECT_EQ(r.exit_code, 2) << "the scenario's SQL cannot run: " << r.err << r.out;
  EXPECT_LT(r.elapsed_ms, 20000) << "refused at once, not at a deadline";
  EXPECT_NE(r.out.find("0A000 COPY FROM STDIN is not supported"), std::string::npos) << r.out;
  std::string json = Slurp(out.path / "racelab.json");
  EXPECT_NE(json.find("\"sqlstate\": \"0A000\""), std::string::npos) << json.substr(0, 3000);
  EXPECT_EQ(json.find("\"cancelled_by_deadline\": true"), std::string::npos)
      << "no deadline was needed";
  EXPECT_EQ(RacelabSchemas(TestConninfo()), 0);
}

TEST(HostileServer, CopyFromStdinInSetupIsRefusedClearlyWithoutHanging) {
  ProcessResult r =
      RunProcess({kBin, "run", kSrc + "/tests/fixtures/copy_in_setup.yaml", "--trials", "2",
                  "--dsn", TestConninfo(), "--allow-superuser", "--format", "console", "-q"},
                 seconds(60));
  EXPECT_FALSE(r.timed_out) << "COPY FROM STDIN in setup must not hang the run";
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_LT(r.elapsed_ms, 20000);
  EXPECT_NE(r.out.find("setup: COPY FROM STDIN is not supported"), std::string::npos) << r.out;
  EXPECT_EQ(RacelabSchemas(TestConninfo()), 0);
}

// A server of the test's own, stopped with SIGSTOP mid-trial: every connection, cancel request and
// cleanup of racelab's waits on it. racelab must give up within its deadlines, exit 3, and leave
// only the schema it could not drop, which `racelab clean` removes once the server answers again.
TEST(HostileServer, FrozenServerEndsTheRunWithinItsDeadlines) {
  TempDir base, out;
  ClusterOptions co;
  co.base_dir = (base.path / "c").string();
  auto cluster = EmbeddedCluster::Start(co);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  const std::string dsn = (*cluster)->conninfo();
  // Deadlines: statement 2 s, trial 5 s, connect 2 s. From the freeze, the run waits for the trial
  // (5 s) + a cancel's grace (5 s); the cancel goes unanswered, so every later wait (final check,
  // reconnects, schema and role drops, the is-the-server-there check) lasts at most 1 s + 1 s: ~20
  // s. Before racelab bounded PQcancel it never exited.
  Subprocess p({kBin,
                "run",
                "lock-hold-wait",
                "--set",
                "hold_ms=1500",
                "--trials",
                "20",
                "--dsn",
                dsn,
                "--allow-superuser",
                "--statement-timeout-ms",
                "2000",
                "--trial-timeout-ms",
                "5000",
                "--connect-timeout-ms",
                "2000",
                "--out",
                out.path.string(),
                "--format",
                "console,json"});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(60)));
  ASSERT_TRUE(WaitForSchemas(dsn, 1, seconds(30))) << "the run never created its schema";
  std::this_thread::sleep_for(milliseconds(300));  // into a trial: a holds the lock, b waits
  const std::vector<pid_t> server = ServerProcesses((*cluster)->postmaster_pid());
  ASSERT_GE(server.size(), 4u) << "postmaster, helpers and racelab's backends";
  SignalAll(server, SIGSTOP);
  const auto frozen = Clock::now();
  ProcessResult r = p.Wait(seconds(90));
  const double exit_ms = MsSince(frozen);
  SignalAll(server, SIGCONT);
  RecordProperty("exit_ms_after_freeze", std::to_string(exit_ms));
  std::printf(
      "racelab exited %.0f ms after the server froze (statement 2 s, trial 5 s, connect 2 s)\n",
      exit_ms);
  EXPECT_FALSE(r.timed_out) << "racelab must not hang on a frozen server";
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_LT(exit_ms, 35000) << r.err;
  EXPECT_NE(r.err.find("the server stopped answering"), std::string::npos)
      << "later items are not waited for: " << r.err;
  EXPECT_TRUE(fs::exists(out.path / "racelab.json")) << "reports of what ran are still written";
  // The server answers again. What racelab could not drop is gone by now — the DROP it sent reached
  // the backend once it continued — or left for `racelab clean`, since its run is gone.
  std::this_thread::sleep_for(seconds(1));
  ProcessResult c = RunProcess({kBin, "clean", "--dsn", dsn}, seconds(60));
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(RacelabSchemas(dsn), 0) << c.out;
  EXPECT_EQ(RacelabRoles(dsn), 0) << c.out;
  EXPECT_TRUE((*cluster)->Stop().ok());
}

// SIGTERM while the server is frozen: racelab stops waiting for it and exits 143 quickly, with its
// default deadlines (statement 30 s, connect 10 s) — cleanup after a stop waits at most 3 s a step.
TEST(HostileServer, SigtermWhileTheServerIsFrozenExitsPromptly) {
  TempDir base;
  ClusterOptions co;
  co.base_dir = (base.path / "c").string();
  auto cluster = EmbeddedCluster::Start(co);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  const std::string dsn = (*cluster)->conninfo();
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=1500", "--trials", "20", "--dsn",
                dsn, "--allow-superuser", "--format", "console"});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(60)));
  ASSERT_TRUE(WaitForSchemas(dsn, 1, seconds(30)));
  std::this_thread::sleep_for(milliseconds(300));
  const std::vector<pid_t> server = ServerProcesses((*cluster)->postmaster_pid());
  SignalAll(server, SIGSTOP);
  std::this_thread::sleep_for(milliseconds(500));
  p.Signal(SIGTERM);
  const auto signalled = Clock::now();
  ProcessResult r = p.Wait(seconds(90));
  const double exit_ms = MsSince(signalled);
  SignalAll(server, SIGCONT);
  std::printf("racelab exited %.0f ms after SIGTERM with a frozen server (default deadlines)\n",
              exit_ms);
  RecordProperty("exit_ms_after_sigterm", std::to_string(exit_ms));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_LT(exit_ms, 20000) << r.err;
  EXPECT_TRUE((*cluster)->Stop().ok());
}

// The embedded postmaster is killed mid-run (OOM killer, an operator): racelab exits 3, and the
// server's SysV shared-memory segment (named on postmaster.pid line 7) is gone afterwards.
TEST(HostileServer, KilledEmbeddedPostmasterLeavesNoSharedMemory) {
  TempDir base;
  Subprocess p({kBin, "run", "lock-hold-wait", "--set", "hold_ms=1500", "--trials", "20",
                "--format", "console"},
               {{"RACELAB_TMPDIR", base.path.string()}});
  ASSERT_TRUE(p.WaitForStderr("@ read committed: 20 trials", seconds(120)));
  const fs::path embedded = base.path / ("racelab-" + std::to_string(geteuid()));
  fs::path run_dir;
  for (const auto& e : fs::directory_iterator(embedded)) {
    if (e.path().filename().string().rfind("run-", 0) == 0) run_dir = e.path();
  }
  ASSERT_FALSE(run_dir.empty());
  std::istringstream pidfile(Slurp(run_dir / "data/postmaster.pid"));
  std::string line;
  long long postmaster = -1, shm_key = 0, shm_id = -1;
  for (int n = 1; std::getline(pidfile, line); ++n) {
    if (n == 1) postmaster = std::atoll(line.c_str());
    if (n == 7) std::sscanf(line.c_str(), "%lld %lld", &shm_key, &shm_id);
  }
  ASSERT_GT(postmaster, 0);
  ASSERT_GE(shm_id, 0) << "postmaster.pid names the segment";
  EXPECT_TRUE(fs::exists(embedded / ("ipc-" + run_dir.filename().string())))
      << "recorded outside the run folder";
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_EQ(kill(static_cast<pid_t>(postmaster), SIGKILL), 0);
  ProcessResult r = p.Wait(seconds(90));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_FALSE(fs::exists(run_dir));
  EXPECT_TRUE(embedded::ProcessesIn((run_dir / "data").string()).empty())
      << "no backend outlives the run";
  shmid_ds ds{};
  errno = 0;
  int stat = shmctl(static_cast<int>(shm_id), IPC_STAT, &ds);
  EXPECT_TRUE(stat != 0 ? errno == EINVAL || errno == EIDRM
                        : (ds.shm_cpid != postmaster || (ds.shm_perm.mode & SHM_DEST) != 0))
      << "shared memory segment " << shm_id << " of the killed server is left (nattch "
      << ds.shm_nattch << ")";
  EXPECT_FALSE(fs::exists(embedded / ("ipc-" + run_dir.filename().string())))
      << "its record is gone too";
}

// Two runs whose processes have the same pid (each is PID 1 of its own PID namespace, as two
// containers' entrypoints are) on one database: they must not touch each other's schema; and
// `racelab clean` meanwhile keeps both, since both runs are alive.
TEST(HostileServer, TwoRunsWithTheSamePidDoNotInterfereAndCleanKeepsLiveSchemas) {
  if (geteuid() != 0 ||
      RunProcess({"/usr/bin/unshare", "--pid", "--fork", "/bin/true"}, seconds(10)).exit_code !=
          0) {
    GTEST_SKIP() << "needs root and unshare(1) for PID namespaces";
  }
  const std::string dsn = TestConninfo();
  auto run = [&] {
    return std::make_unique<Subprocess>(std::vector<std::string>{
        "/usr/bin/unshare", "--pid", "--fork", kBin, "run", "lock-hold-wait", "--set",
        "hold_ms=400", "--isolation", "rc", "--trials", "12", "--dsn", dsn, "--allow-superuser",
        "--format", "console"});
  };
  auto a = run();
  auto b = run();
  if (!WaitForSchemas(dsn, 2, seconds(60))) {
    ProcessResult ra = a->Wait(seconds(60)), rb = b->Wait(seconds(60));
    FAIL() << "both runs make a schema of their own; schemas now " << RacelabSchemas(dsn)
           << "\nrun a exited " << ra.exit_code << ":\n"
           << ra.err << ra.out << "\nrun b exited " << rb.exit_code << ":\n"
           << rb.err << rb.out;
  }
  ProcessResult clean = RunProcess({kBin, "clean", "--dsn", dsn}, seconds(60));
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(clean.out.find("dropped nothing of dead runs; kept 2 schema(s) of live runs"),
            std::string::npos)
      << clean.out;
  EXPECT_NE(clean.out.find("kept schema racelab_1_"), std::string::npos)
      << "both runs are PID 1: " << clean.out;
  ProcessResult ra = a->Wait(seconds(120)), rb = b->Wait(seconds(120));
  EXPECT_EQ(ra.exit_code, 0) << ra.err << ra.out;
  EXPECT_EQ(rb.exit_code, 0) << rb.err << rb.out;
  EXPECT_EQ(RacelabSchemas(dsn), 0);
}

}  // namespace
}  // namespace racelab::testing
