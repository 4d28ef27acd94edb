// The SQLite engine's files: the run folder goes with Close(), a SIGKILLed run's folder goes with
// the next engine, a live run's folder is never touched, and a --dsn database is only ever copied.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "harness/engines/sqlite/sqlite_engine.h"
#include "harness/engines/sqlite/sqlite_session.h"

namespace racelab::sqlite {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
SteadyTime In(long ms) { return Clock::now() + std::chrono::milliseconds(ms); }

// Each test uses a RACELAB_TMPDIR of its own so that other runs on the machine are not in the
// picture.
class SqliteFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/racelab-sqlite-files-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    old_tmpdir_ = std::getenv("RACELAB_TMPDIR") ? std::getenv("RACELAB_TMPDIR") : "";
    ::setenv("RACELAB_TMPDIR", base_.c_str(), 1);
  }
  void TearDown() override {
    if (old_tmpdir_.empty())
      ::unsetenv("RACELAB_TMPDIR");
    else
      ::setenv("RACELAB_TMPDIR", old_tmpdir_.c_str(), 1);
    fs::remove_all(base_);
  }
  std::vector<std::string> Folders() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(base_)) out.push_back(e.path().filename().string());
    return out;
  }
  std::unique_ptr<Engine> OpenOrDie(const std::string& dsn = "") {
    EngineOptions o;
    o.engine = "sqlite";
    o.dsn = dsn;
    auto e = OpenSqliteEngine(o);
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(*e) : nullptr;
  }

  std::string base_, old_tmpdir_;
};

TEST_F(SqliteFilesTest, CloseRemovesTheRunFolder) {
  auto e = OpenOrDie();
  std::string ws = e->WorkspaceName(1);
  ASSERT_TRUE(e->ResetWorkspace(ws, In(1000), nullptr).ok());
  auto s = e->OpenSession(kServerNode, "w", In(1000), nullptr);
  ASSERT_TRUE(
      (*s)->StartClean(
              SessionStart{.label = "w", .workspace = ws, .settings = {{"journal_mode", "wal"}}},
              In(1000), "f", nullptr)
          .ok());
  ASSERT_TRUE((*s)->Exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)", In(1000)).ok());
  EXPECT_EQ(Folders().size(), 1u);
  s->reset();
  EXPECT_TRUE(e->Close().ok());
  EXPECT_TRUE(Folders().empty());
}

TEST_F(SqliteFilesTest, ASigkilledRunsFolderIsRemovedByTheNextRun) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    EngineOptions o;
    o.engine = "sqlite";
    auto e = OpenSqliteEngine(o);
    if (!e.ok()) ::_exit(3);
    (*e)->ResetWorkspace((*e)->WorkspaceName(1), In(1000), nullptr);
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_EQ(Folders().size(), 1u) << "the killed run left its folder";
  const std::string dead = Folders()[0];

  auto e = OpenOrDie();  // sweeps
  std::vector<std::string> now = Folders();
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], dead);
  EXPECT_TRUE(e->Close().ok());
}

TEST_F(SqliteFilesTest, ALiveRunsFolderIsListedAsLiveAndKept) {
  const std::string other = base_ + "/racelab-sqlite-1-00000000000000aa";
  fs::create_directory(other);
  int fd = ::open((other + "/run.lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // "another run" holds it
  const std::string dead = base_ + "/racelab-sqlite-2-00000000000000bb";
  auto e = OpenOrDie();
  fs::create_directory(dead);
  std::ofstream(dead + "/run.lock").put('\n');
  auto left = e->ListLeftovers(In(1000));
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 2u);
  for (const Leftover& l : *left) EXPECT_EQ(l.live, l.name == other) << l.name;
  EXPECT_TRUE(e->DropLeftovers(*left, In(1000)).ok());
  EXPECT_TRUE(fs::exists(other));
  EXPECT_FALSE(fs::exists(dead));
  ::close(fd);
  EXPECT_TRUE(e->Close().ok());
}

TEST_F(SqliteFilesTest, ADsnDatabaseIsCopiedNeverWritten) {
  const std::string user = base_ + "/user.db";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(user.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT); "
                           "INSERT INTO runs VALUES (1, 'queued')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto before = fs::last_write_time(user);
  auto e = OpenOrDie("sqlite://" + user);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->info().embedded);
  std::string ws = e->WorkspaceName(1);
  for (int trial = 0; trial < 2; ++trial) {
    ASSERT_TRUE(e->ResetWorkspace(ws, In(1000), nullptr).ok());
    auto s = e->OpenSession(kServerNode, "w", In(1000), nullptr);
    ASSERT_TRUE(
        (*s)->StartClean(SessionStart{.label = "w", .workspace = ws}, In(1000), "f", nullptr).ok());
    QueryResult r = (*s)->Exec(
        "UPDATE runs SET status = 'running' WHERE status = 'queued' RETURNING id", In(1000));
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.rows, 1) << "trial " << trial << " starts from the user's data";
  }
  EXPECT_TRUE(e->Close().ok());
  EXPECT_EQ(fs::last_write_time(user), before);

  EngineOptions o;
  o.dsn = "sqlite://host/x.db";
  EXPECT_EQ(OpenSqliteEngine(o).status().code(), StatusCode::kUsage);
  o.dsn = "sqlite://" + base_ + "/missing.db";
  EXPECT_EQ(OpenSqliteEngine(o).status().code(), StatusCode::kDatabase);
  std::ofstream(base_ + "/junk.db")
      << "not a database at all, just text long enough to be a header......";
  o.dsn = "sqlite://" + base_ + "/junk.db";
  auto junk = OpenSqliteEngine(o);
  EXPECT_EQ(junk.status().code(), StatusCode::kDatabase);
  EXPECT_NE(junk.status().message().find("SQLITE_NOTADB"), std::string::npos)
      << junk.status().message();
}

// A WAL database (item 11 of issue 20): a read-only connection would leave FILE-wal and FILE-shm
// beside the user's file; racelab makes nothing there, and still copies every commit — also those
// that another connection keeps in its -wal file (then the files are that connection's).
TEST_F(SqliteFilesTest, AWalDsnDatabaseGetsNoWalOrShmBesideIt) {
  const std::string user = base_ + "/wal.db";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(user.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA journal_mode = wal; CREATE TABLE runs (id INTEGER PRIMARY KEY); "
                           "INSERT INTO runs VALUES (1)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);  // the last connection: checkpoints and removes -wal and -shm
  }
  ASSERT_FALSE(fs::exists(user + "-wal"));
  auto rows_in_a_trial = [&]() -> long {
    auto e = OpenOrDie("sqlite://" + user);
    if (!e) return -1;
    std::string ws = e->WorkspaceName(1);
    EXPECT_TRUE(e->ResetWorkspace(ws, In(1000), nullptr).ok());
    auto s = e->OpenSession(kServerNode, "w", In(1000), nullptr);
    EXPECT_TRUE(
        (*s)->StartClean(SessionStart{.label = "w", .workspace = ws}, In(1000), "f", nullptr).ok());
    QueryResult r = (*s)->Exec("SELECT count(*) FROM runs", In(1000));
    EXPECT_TRUE(r.ok()) << r.message;
    s->reset();
    EXPECT_TRUE(e->Close().ok());
    return r.ok() ? std::stol(r.values.at(0).at(0).value_or("-1")) : -1;
  };
  EXPECT_EQ(rows_in_a_trial(), 1);
  EXPECT_FALSE(fs::exists(user + "-wal")) << "racelab left a -wal file beside the --dsn database";
  EXPECT_FALSE(fs::exists(user + "-shm")) << "racelab left a -shm file beside the --dsn database";

  // A writer of the user's, with a commit still in its -wal file: the copy has it.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(user.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "PRAGMA wal_autocheckpoint = 0; INSERT INTO runs VALUES (2)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_TRUE(fs::exists(user + "-wal"));
  EXPECT_EQ(rows_in_a_trial(), 2);
  sqlite3_close(writer);
  EXPECT_FALSE(fs::exists(user + "-wal"));
  EXPECT_FALSE(fs::exists(user + "-shm"));
}

}  // namespace
}  // namespace racelab::sqlite
