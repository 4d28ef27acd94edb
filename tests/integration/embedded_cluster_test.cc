// EmbeddedCluster against the real PostgreSQL server binaries: start, connect, stop, leave nothing
// behind; concurrent starts; orphan cleanup; clear errors. Each test process uses its own short
// base folder (/tmp/rlt-<pid>/...), removed at the end, so runs in parallel do not disturb each
// other.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <poll.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <vector>

#include "harness/engines/embedded/process.h"
#include "harness/engines/postgresql/cluster.h"
#include "tests/integration/pg_test_env.h"

namespace racelab::pg {
namespace {

namespace fs = std::filesystem;

// The first row's first column of `sql`, or "ERROR: ..." (connection or query failure).
std::string QueryOne(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = std::string("ERROR: ") + PQerrorMessage(conn);
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    out = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0
              ? PQgetvalue(res, 0, 0)
              : std::string("ERROR: ") + PQerrorMessage(conn);
    PQclear(res);
  }
  PQfinish(conn);
  return out;
}

// Pids of live processes whose command line mentions `dir` + "/".
std::vector<pid_t> ProcessesMentioning(const std::string& dir) {
  std::vector<pid_t> found;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.find(dir + "/") != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

std::vector<std::string> RunDirs(const std::string& base) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(base, ec)) {
    if (e.path().filename().string().rfind("run-", 0) == 0) dirs.push_back(e.path().string());
  }
  return dirs;
}

// Tests that count initdb runs get a base folder of their own; the others share Base()/shared.
class EmbeddedClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Base(); }  // fixes the name in this process, before any fork()
  static void TearDownTestSuite() { fs::remove_all(Base()); }

  static const std::string& Base() {
    static const std::string base = "/tmp/rlt-" + std::to_string(getpid());
    return base;
  }

  static ClusterOptions Options(const std::string& sub = "shared") {
    ClusterOptions options;
    options.base_dir = Base() + "/" + sub;
    return options;
  }
};

TEST_F(EmbeddedClusterTest, StartsConnectsAndStopsLeavingNothing) {
  Result<std::unique_ptr<EmbeddedCluster>> first = EmbeddedCluster::Start(Options("t1"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EmbeddedCluster& c = **first;
  EXPECT_TRUE(c.ran_initdb());  // a fresh base folder has no template
  EXPECT_EQ(c.conninfo(), "host=" + c.run_dir() + " port=5432 user=racelab dbname=postgres");
  EXPECT_EQ(QueryOne(c.conninfo(), "SELECT version()").rfind("PostgreSQL ", 0), 0u)
      << QueryOne(c.conninfo(), "SELECT version()");
  EXPECT_EQ(QueryOne(c.conninfo(), "SHOW fsync"), "off");
  EXPECT_EQ(QueryOne(c.conninfo(), "SHOW max_connections"), "200");
  EXPECT_EQ(QueryOne(c.conninfo(), "SELECT current_user"), "racelab");
  EXPECT_FALSE(ProcessesMentioning(c.run_dir()).empty());
  const std::string run_dir = c.run_dir();
  const double initdb_ms = c.ready_ms();

  ASSERT_TRUE(c.Stop().ok());
  EXPECT_TRUE(ProcessesMentioning(run_dir).empty());
  EXPECT_FALSE(fs::exists(run_dir));
  EXPECT_TRUE(c.Stop().ok());  // idempotent

  Result<std::unique_ptr<EmbeddedCluster>> second = EmbeddedCluster::Start(Options("t1"));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_FALSE((*second)->ran_initdb());  // the template is cached
  EXPECT_EQ(QueryOne((*second)->conninfo(), "SELECT 1"), "1");
  RecordProperty("ready_ms_with_initdb", std::to_string(initdb_ms));
  RecordProperty("ready_ms_cached", std::to_string((*second)->ready_ms()));
  std::printf("ready_ms with initdb: %.1f, with cached template: %.1f\n", initdb_ms,
              (*second)->ready_ms());
}

TEST_F(EmbeddedClusterTest, TwoThreadsStartTwoClustersAtOnce) {
  struct Outcome {
    std::string error, run_dir, answer;
    bool ran_initdb = false;
  };
  auto run = [] {  // the whole life of a cluster stays on this thread (see cluster.h)
    Outcome out;
    Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(Options("t2"));
    if (!c.ok()) {
      out.error = c.status().message();
      return out;
    }
    out.run_dir = (*c)->run_dir();
    out.ran_initdb = (*c)->ran_initdb();
    out.answer = QueryOne((*c)->conninfo(), "SELECT 42");
    if (Status s = (*c)->Stop(); !s.ok()) out.error = s.message();
    return out;
  };
  std::future<Outcome> a = std::async(std::launch::async, run);
  std::future<Outcome> b = std::async(std::launch::async, run);
  ASSERT_EQ(a.wait_for(std::chrono::seconds(200)), std::future_status::ready);
  ASSERT_EQ(b.wait_for(std::chrono::seconds(200)), std::future_status::ready);
  Outcome x = a.get(), y = b.get();
  EXPECT_EQ(x.error, "");
  EXPECT_EQ(y.error, "");
  EXPECT_EQ(x.answer, "42");
  EXPECT_EQ(y.answer, "42");
  EXPECT_NE(x.run_dir, y.run_dir);
  EXPECT_EQ(int(x.ran_initdb) + int(y.ran_initdb), 1);  // one initdb; the other waited for it
  EXPECT_TRUE(RunDirs(Options("t2").base_dir).empty());
}

// A racelab process that dies without Stop(): its postmaster dies with it (parent-death signal) and
// the next CleanOrphans() removes the run folder and the server's shared memory.
TEST_F(EmbeddedClusterTest, CleanOrphansRemovesRunOfDeadProcess) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(Options());
    std::string msg = c.ok() ? (*c)->run_dir() : "ERROR " + c.status().message();
    ssize_t n = write(fds[1], msg.data(), msg.size());
    _exit(n > 0 ? 0 : 1);  // no Stop(), no destructors
  }
  close(fds[1]);
  std::string run_dir;
  char buf[4096];
  pollfd p{fds[0], POLLIN, 0};
  while (poll(&p, 1, 200000) > 0) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    run_dir.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_EQ(run_dir.rfind(Options().base_dir + "/run-", 0), 0u) << run_dir;
  ASSERT_TRUE(fs::exists(run_dir + "/data/postmaster.pid"));
  std::ifstream pidfile(run_dir + "/data/postmaster.pid");
  std::string line;
  long long shm_key = 0, shm_id = -1;
  for (int n = 1; std::getline(pidfile, line) && n <= 7; ++n) {
    if (n == 7) std::sscanf(line.c_str(), "%lld %lld", &shm_key, &shm_id);
  }

  EXPECT_GE(CleanOrphans(Options().base_dir), 1);
  EXPECT_FALSE(fs::exists(run_dir));
  EXPECT_TRUE(ProcessesMentioning(run_dir).empty());
  shmid_ds ds{};
  if (shm_id >= 0 && shmctl(static_cast<int>(shm_id), IPC_STAT, &ds) == 0) {
    EXPECT_NE(ds.shm_perm.mode & SHM_DEST, 0u) << "shared memory segment left behind";
  }
}

// A live postmaster whose owner is gone (crafted: owner.pid names a dead process) is killed.
TEST_F(EmbeddedClusterTest, CleanOrphansKillsLivePostmasterOfDeadOwner) {
  Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(Options());
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::string run_dir = (*c)->run_dir();
  EXPECT_EQ(CleanOrphans(Options().base_dir), 0);  // its owner (this process) is alive
  EXPECT_EQ(QueryOne((*c)->conninfo(), "SELECT 1"), "1");

  pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  std::ofstream(run_dir + "/owner.pid", std::ios::trunc) << dead << "\n";

  EXPECT_EQ(CleanOrphans(Options().base_dir), 1);
  EXPECT_FALSE(fs::exists(run_dir));
  EXPECT_TRUE(ProcessesMentioning(run_dir).empty());
  EXPECT_TRUE((*c)->Stop().ok());  // reaps the killed postmaster; nothing left to remove
}

// postmaster.pid line 7: "<shm key> <shm id>"; -1 when absent.
long long ShmIdOf(const std::string& data_dir) {
  std::ifstream pidfile(data_dir + "/postmaster.pid");
  std::string line;
  long long key = 0, id = -1;
  for (int n = 1; std::getline(pidfile, line) && n <= 7; ++n) {
    if (n == 7) std::sscanf(line.c_str(), "%lld %lld", &key, &id);
  }
  return id;
}

// The segment no longer exists, or is marked for removal (freed when its last process detaches).
bool ShmGone(long long id) {
  shmid_ds ds{};
  if (shmctl(static_cast<int>(id), IPC_STAT, &ds) != 0) return errno == EINVAL || errno == EIDRM;
  return (ds.shm_perm.mode & SHM_DEST) != 0;
}

// A server stopped with SIGSTOP (postmaster and backends) never acts on the fast-shutdown SIGINT:
// Stop() sees it is stopped, SIGKILLs every process of the server at once, and removes its shared
// memory, its run folder and its record.
TEST_F(EmbeddedClusterTest, StopOfAStoppedServerKillsItWithoutWaiting) {
  Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(Options());
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::string run_dir = (*c)->run_dir(), data_dir = run_dir + "/data";
  EXPECT_EQ(QueryOne((*c)->conninfo(), "SHOW dynamic_shared_memory_type"), "mmap")
      << "dynamic shared memory lives in the run folder, not /dev/shm";
  PGconn* client = PQconnectdb((*c)->conninfo().c_str());  // a backend that is busy waiting for us
  ASSERT_EQ(PQstatus(client), CONNECTION_OK);
  const long long shm_id = ShmIdOf(data_dir);
  ASSERT_GE(shm_id, 0);
  const std::string record =
      fs::path(run_dir).parent_path() / ("ipc-" + fs::path(run_dir).filename().string());
  EXPECT_TRUE(fs::exists(record));
  const std::vector<pid_t> server = embedded::ProcessesIn(data_dir);
  ASSERT_GE(server.size(), 3u) << "postmaster, helpers and the client's backend";
  for (pid_t p : server) kill(p, SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  Status stopped = (*c)->Stop();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("Stop() of a stopped server: %.0f ms\n", ms);
  EXPECT_TRUE(stopped.ok()) << stopped.message();
  EXPECT_LT(ms, 5000) << "no fast-shutdown wait for a server that cannot act on it";
  EXPECT_TRUE(embedded::ProcessesIn(data_dir).empty());
  EXPECT_TRUE(ProcessesMentioning(run_dir).empty());
  EXPECT_FALSE(fs::exists(run_dir));
  EXPECT_TRUE(ShmGone(shm_id)) << "segment " << shm_id;
  EXPECT_FALSE(fs::exists(record));
  PQfinish(client);
}

// The run folder is gone but a stopped backend of its killed postmaster still holds the segment (as
// when a run ended while the server was dying): the ipc record is all that is left to find it, and
// CleanOrphans() kills the backend (its working directory is the deleted data folder) and removes
// the segment and the record.
TEST_F(EmbeddedClusterTest, CleanOrphansRemovesSharedMemoryRecordedForAGoneRunFolder) {
  const std::string base = Options("t3").base_dir;
  std::string run_dir, data_dir, record;
  long long shm_id = -1;
  pid_t postmaster = -1;
  std::vector<pid_t> server;
  PGconn* client = nullptr;
  {
    Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(Options("t3"));
    ASSERT_TRUE(c.ok()) << c.status().message();
    run_dir = (*c)->run_dir();
    data_dir = run_dir + "/data";
    record = base + "/ipc-" + fs::path(run_dir).filename().string();
    client = PQconnectdb((*c)->conninfo().c_str());
    ASSERT_EQ(PQstatus(client), CONNECTION_OK);
    shm_id = ShmIdOf(data_dir);
    postmaster = (*c)->postmaster_pid();
    server = embedded::ProcessesIn(data_dir);
    for (pid_t p : server) {
      if (p != postmaster) kill(p, SIGSTOP);  // its children keep the segment attached
    }
    kill(postmaster, SIGKILL);
    ASSERT_TRUE(embedded::WaitForExit(postmaster, std::chrono::seconds(10)).has_value());
    fs::remove_all(run_dir);  // what Stop() would find: no postmaster, then the folder removed
    ASSERT_TRUE(fs::exists(record));
    ASSERT_FALSE(ShmGone(shm_id)) << "the stopped backends still hold it";
    c.value().release();  // no Stop(): the test plays a run that ended without it  // NOLINT
  }
  CleanOrphans(base);
  EXPECT_TRUE(embedded::ProcessesIn(data_dir).empty()) << "the stopped backends are killed";
  EXPECT_TRUE(ShmGone(shm_id)) << "segment " << shm_id;
  EXPECT_FALSE(fs::exists(record));
  PQfinish(client);
}

TEST_F(EmbeddedClusterTest, BadBindirIsAClearUsageError) {
  ClusterOptions options = Options();
  options.pg_bindir = "/nonexistent/pg/bin";
  Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUsage);
  EXPECT_NE(c.status().message().find("/nonexistent/pg/bin"), std::string::npos);
  EXPECT_NE(c.status().message().find("initdb"), std::string::npos) << c.status().message();
}

TEST_F(EmbeddedClusterTest, ServerThatCannotStartReportsItsLog) {
  ClusterOptions options = Options();
  options.settings = {{"shared_buffers", "lots"}};
  Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kDatabase);
  EXPECT_NE(c.status().message().find("shared_buffers"), std::string::npos) << c.status().message();
  EXPECT_TRUE(RunDirs(options.base_dir).empty());
}

TEST_F(EmbeddedClusterTest, TooLongBaseDirIsRefusedBeforeAnyWork) {
  ClusterOptions options = Options();
  options.base_dir = Base() + "/" + std::string(90, 'x');
  Result<std::unique_ptr<EmbeddedCluster>> c = EmbeddedCluster::Start(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUsage);
  EXPECT_NE(c.status().message().find("107"), std::string::npos) << c.status().message();
  EXPECT_FALSE(fs::exists(options.base_dir));
}

TEST(EmbeddedTestEnvTest, TestConninfoConnects) {
  const std::string& conninfo = testing::TestConninfo();
  ASSERT_FALSE(conninfo.empty());
  EXPECT_EQ(QueryOne(conninfo, "SELECT 1"), "1");
  EXPECT_EQ(&conninfo, &testing::TestConninfo());  // one cluster per binary
}

}  // namespace
}  // namespace racelab::pg
