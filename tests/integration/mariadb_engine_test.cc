// The MariaDB engine against a real embedded MariaDB server (never mocks): deadlines, cancel,
// errors with both codes, lock waits with their blockers, terminate, workspaces, leftovers, stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/engine/engine.h"
#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/dsn.h"
#include "harness/engines/mariadb/engine.h"
#include "harness/engines/mariadb/server.h"
#include "tests/integration/mariadb_fixture.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

using MariaDbEngineTest = MariaDbWorkspaceTest;

TEST_F(MariaDbEngineTest, ExecReturnsRowsAffectedRowsAndTheVerb) {
  auto s = Open("a");
  ASSERT_TRUE(
      Run(s.get(), "CREATE TABLE t (id int PRIMARY KEY, v varchar(10)) ENGINE=InnoDB").ok());
  QueryResult r = Run(s.get(), "INSERT INTO t VALUES (1, 'x'), (2, NULL)");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, 2);
  r = Run(s.get(), "SELECT id, v FROM t ORDER BY id");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, 2);
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_EQ(r.columns, (std::vector<std::string>{"id", "v"}));
  EXPECT_EQ(r.values[1][1], std::nullopt);
  // CLIENT_FOUND_ROWS: an UPDATE that matches a row but changes nothing still counts it.
  r = Run(s.get(), "UPDATE t SET v = 'x' WHERE id = 1");
  EXPECT_EQ(r.rows, 1);
  r = Run(s.get(), engine_->BeginSql(IsolationLevel::kReadCommitted));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(s->in_transaction());
  r = Run(s.get(), "COMMIT");
  EXPECT_EQ(r.command_tag, "COMMIT");
  EXPECT_TRUE(engine_->Committed(r));
  EXPECT_GT(s->session_id(), 0);
}

TEST_F(MariaDbEngineTest, ErrorsKeepTheEngineNumberAndTheSqlstate) {
  auto s = Open("a");
  ASSERT_TRUE(Run(s.get(), "CREATE TABLE t (id int PRIMARY KEY) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(s.get(), "INSERT INTO t VALUES (1)").ok());
  QueryResult r = Run(s.get(), "INSERT INTO t VALUES (1)");
  EXPECT_EQ(r.error_code, "1062");  // ER_DUP_ENTRY
  EXPECT_EQ(r.sqlstate, "23000");
  r = Run(s.get(), "SELEC 1");
  EXPECT_EQ(r.error_code, "1064");
  EXPECT_TRUE(engine_->IsScenarioError(r));
  r = Run(s.get(), "SELECT * FROM missing");
  EXPECT_EQ(r.error_code, "1146");
  EXPECT_TRUE(engine_->IsScenarioError(r));
  EXPECT_FALSE(engine_->IsSessionLost(r));
}

// A transaction-state error is the scenario's SQL in the wrong place, never the race's outcome nor
// a fault of the server (exit 2, issue 20 item 22); a READ ONLY transaction refusing a write (1792,
// 25006) stays an outcome. (The XA-order codes are classified the same way: sql_errors.h,
// unit-tested in tests/unit/scenario_sql_errors_test.cc.)
TEST_F(MariaDbEngineTest, TransactionStateErrorsAreScenarioErrors) {
  auto s = Open("a");
  QueryResult r;
  ASSERT_TRUE(Run(s.get(), "START TRANSACTION").ok());
  ASSERT_TRUE(Run(s.get(), "SELECT 1").ok());
  r = Run(s.get(), "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
  EXPECT_EQ(r.error_code, "1568") << r.message;  // 25001
  EXPECT_EQ(r.sqlstate, "25001");
  EXPECT_TRUE(engine_->IsScenarioError(r));
  ASSERT_TRUE(Run(s.get(), "ROLLBACK").ok());
  ASSERT_TRUE(Run(s.get(), "CREATE TABLE ro (id int) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(s.get(), "START TRANSACTION READ ONLY").ok());
  r = Run(s.get(), "INSERT INTO ro VALUES (1)");
  EXPECT_EQ(r.sqlstate, "25006") << r.message;
  EXPECT_FALSE(engine_->IsScenarioError(r));
  ASSERT_TRUE(Run(s.get(), "ROLLBACK").ok());
}

// `begin` with its own level and READ ONLY (Engine::BeginSqlWith): the level holds for that
// transaction only, seen by what a second read sees after another session's commit; a write in a
// READ ONLY transaction fails with 1792 / 25006; DEFERRABLE does not exist on MariaDB.
TEST_F(MariaDbEngineTest, BeginTakesItsOwnLevelForOneTransactionAndReadOnly) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE t (id int PRIMARY KEY, v int) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(a.get(), "INSERT INTO t VALUES (1, 0)").ok());
  auto second_read_sees_commit = [&](const std::string& begin) {
    EXPECT_TRUE(Run(a.get(), begin).ok()) << begin;
    QueryResult first = Run(a.get(), "SELECT v FROM t WHERE id = 1");
    EXPECT_TRUE(Run(b.get(), "UPDATE t SET v = v + 1 WHERE id = 1").ok());
    QueryResult second = Run(a.get(), "SELECT v FROM t WHERE id = 1");
    EXPECT_TRUE(Run(a.get(), "COMMIT").ok());
    return first.values.at(0).at(0) != second.values.at(0).at(0);
  };
  EXPECT_TRUE(second_read_sees_commit(engine_->BeginSqlWith(IsolationLevel::kReadCommitted, {})));
  // The next plain START TRANSACTION is back at the session's level (REPEATABLE READ by default).
  EXPECT_FALSE(second_read_sees_commit("START TRANSACTION"));
  EXPECT_FALSE(second_read_sees_commit(engine_->BeginSqlWith(IsolationLevel::kRepeatableRead, {})));
  TransactionModes read_only;
  read_only.read_only = true;
  std::string begin = engine_->BeginSqlWith(IsolationLevel::kReadCommitted, read_only);
  EXPECT_EQ(begin, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; START TRANSACTION READ ONLY");
  ASSERT_TRUE(Run(a.get(), begin).ok());
  EXPECT_TRUE(Run(a.get(), "SELECT v FROM t").ok());
  QueryResult w = Run(a.get(), "UPDATE t SET v = 0 WHERE id = 1");
  EXPECT_EQ(w.error_code, "1792");  // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  EXPECT_EQ(w.sqlstate, "25006");
  EXPECT_TRUE(Run(a.get(), "ROLLBACK").ok());
  TransactionModes deferrable;
  deferrable.deferrable = true;
  EXPECT_EQ(engine_->BeginSqlWith(IsolationLevel::kSerializable, deferrable), "");
}

TEST_F(MariaDbEngineTest, ALockWaitTimeoutIs1205WithSqlstateHY000) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE t (id int PRIMARY KEY) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(a.get(), "INSERT INTO t VALUES (1)").ok());
  ASSERT_TRUE(Run(a.get(), "START TRANSACTION; SELECT id FROM t WHERE id = 1 FOR UPDATE").ok());
  ASSERT_TRUE(Run(b.get(), "SET SESSION innodb_lock_wait_timeout = 1").ok());
  QueryResult r = Run(b.get(), "SELECT id FROM t WHERE id = 1 FOR UPDATE");
  EXPECT_EQ(r.error_code, "1205");
  EXPECT_EQ(r.sqlstate, "HY000");
  EXPECT_TRUE(b->healthy());
}

TEST_F(MariaDbEngineTest, ADeadlockIs1213With40001AndItsCommitSaysRollback) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE t (id int PRIMARY KEY, v int) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(a.get(), "INSERT INTO t VALUES (1, 0), (2, 0)").ok());
  ASSERT_TRUE(Run(a.get(), "START TRANSACTION; UPDATE t SET v = 1 WHERE id = 1").ok());
  ASSERT_TRUE(Run(b.get(), "START TRANSACTION; UPDATE t SET v = 1 WHERE id = 2").ok());
  QueryResult ra;
  std::thread t([&] { ra = Run(a.get(), "UPDATE t SET v = 2 WHERE id = 2"); });
  std::this_thread::sleep_for(milliseconds(300));
  QueryResult rb = Run(b.get(), "UPDATE t SET v = 2 WHERE id = 1");
  if (!rb.ok()) Run(b.get(), "ROLLBACK");  // the loser's rollback lets the winner go on
  t.join();
  QueryResult& loser = ra.ok() ? rb : ra;
  Session* loser_session = ra.ok() ? b.get() : a.get();
  EXPECT_EQ(loser.error_code, "1213");
  EXPECT_EQ(loser.sqlstate, "40001");
  EXPECT_TRUE(ra.ok() || rb.ok()) << ra.message << " / " << rb.message;
  if (loser_session ==
      a.get()) {  // InnoDB rolled the victim's transaction back: COMMIT commits nothing
    QueryResult c = Run(a.get(), "COMMIT");
    EXPECT_EQ(c.command_tag, "ROLLBACK");
    EXPECT_FALSE(engine_->Committed(c));
  }
  Run(a.get(), "COMMIT");
  Run(b.get(), "COMMIT");
  // The victim's next transaction (a retry) commits, whatever the level its BeginSql names: the
  // victim's rolled-back state ends at that BEGIN. It did not at read uncommitted, read committed
  // and repeatable read, whose BeginSql put START TRANSACTION past the 64th character (found by
  // racelab-mariadb-bench: every claim after a deadlock counted as rolled back).
  for (IsolationLevel level : {IsolationLevel::kReadUncommitted, IsolationLevel::kReadCommitted,
                               IsolationLevel::kRepeatableRead, IsolationLevel::kSerializable}) {
    ASSERT_TRUE(Run(loser_session, engine_->BeginSql(level)).ok());
    ASSERT_TRUE(Run(loser_session, "UPDATE t SET v = v + 1 WHERE id = 1").ok());
    QueryResult c = Run(loser_session, "COMMIT");
    EXPECT_EQ(c.command_tag, "COMMIT") << IsolationName(level);
    EXPECT_TRUE(engine_->Committed(c)) << IsolationName(level);
  }
}

TEST_F(MariaDbEngineTest, TheDeadlineCancelsAHungStatementByKillQuery) {
  auto s = Open("a");
  Clock::time_point t0 = Clock::now();
  QueryResult r = s->Exec("SELECT SLEEP(30)", In(300), 1, milliseconds(5000));
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_TRUE(r.cancelled_by_deadline);
  EXPECT_LT(ms, 3000) << "KILL QUERY should end SLEEP(30) at once";
  // MariaDB ends an interrupted SLEEP() with the result 1 and no error (MariaDB docs "SLEEP").
  EXPECT_TRUE(s->healthy());
  EXPECT_TRUE(Run(s.get(), "SELECT 1").ok());
}

TEST_F(MariaDbEngineTest, TheDeadlineCancelsALockWaitWith1317) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE t (id int PRIMARY KEY) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(a.get(), "INSERT INTO t VALUES (1)").ok());
  ASSERT_TRUE(Run(a.get(), "START TRANSACTION; SELECT id FROM t WHERE id = 1 FOR UPDATE").ok());
  Clock::time_point t0 = Clock::now();
  QueryResult r =
      b->Exec("SELECT id FROM t WHERE id = 1 FOR UPDATE", In(300), 1, milliseconds(5000));
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_TRUE(r.cancelled_by_deadline);
  EXPECT_EQ(r.error_code, "1317");  // ER_QUERY_INTERRUPTED
  EXPECT_EQ(r.sqlstate, "70100");
  EXPECT_LT(ms, 3000);
  EXPECT_TRUE(b->healthy());
}

TEST_F(MariaDbEngineTest, TheMonitorSeesALockWaitWithItsBlocker) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE t (id int PRIMARY KEY, v int) ENGINE=InnoDB").ok());
  ASSERT_TRUE(Run(a.get(), "INSERT INTO t VALUES (1, 0)").ok());
  Result<std::unique_ptr<WaitMonitor>> m =
      engine_->OpenMonitor(std::chrono::microseconds(2000), In(10000), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  (*m)->Begin({a->connection_id(), b->connection_id()}, Clock::now());
  ASSERT_TRUE(Run(a.get(), "START TRANSACTION; UPDATE t SET v = 1 WHERE id = 1").ok());
  QueryResult rb;
  std::thread t([&] { rb = Run(b.get(), "UPDATE t SET v = 2 WHERE id = 1"); });
  bool seen = (*m)->AwaitBlocked({b->connection_id()}, In(10000), nullptr);
  EXPECT_TRUE(seen) << (*m)->error();
  ASSERT_TRUE(Run(a.get(), "COMMIT").ok());
  t.join();
  EXPECT_TRUE(rb.ok()) << rb.message;
  std::vector<WaitObservation> obs = (*m)->End();
  ASSERT_FALSE(obs.empty());
  // Polls at least 100 ms apart: InnoDB refreshes INNODB_TRX only after 100 ms without a read.
  for (size_t i = 1; i < obs.size(); ++i)
    EXPECT_GE(obs[i].poll_sent_us - obs[i - 1].poll_received_us, 100000);
  EXPECT_EQ(obs[0].node, kServerNode) << "the one node of a single server";
  EXPECT_EQ(obs[0].session_id, b->session_id());
  EXPECT_EQ(obs[0].blocking, std::vector<int64_t>{a->session_id()});
  EXPECT_EQ(obs[0].wait_event, "RECORD");
  EXPECT_NE(obs[0].query.find("UPDATE t SET v = 2"), std::string::npos) << obs[0].query;
  EXPECT_TRUE((*m)->healthy());
}

TEST_F(MariaDbEngineTest, TerminateEndsAnotherSession) {
  auto a = Open("a");
  Result<std::unique_ptr<WaitMonitor>> m =
      engine_->OpenMonitor(std::chrono::microseconds(2000), In(10000), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->Terminate({a->connection_id()}, In(10000)), "");
  QueryResult r = Run(a.get(), "SELECT 1");
  EXPECT_TRUE(engine_->IsSessionLost(r)) << r.error_code << " " << r.message;
  EXPECT_FALSE(a->healthy());
}

TEST_F(MariaDbEngineTest, AClearStartUndoesSettingsLocksAndTransactions) {
  auto a = Open("a");
  ASSERT_TRUE(Run(a.get(), "SET SESSION innodb_lock_wait_timeout = 7").ok());
  ASSERT_TRUE(Run(a.get(), "SELECT GET_LOCK('racelab_test_lock', 0)").ok());
  ASSERT_TRUE(Run(a.get(), "START TRANSACTION").ok());
  bool lost = false;
  SessionStart start;
  start.label = "a";
  start.workspace = ws_;
  start.settings = {{"innodb_snapshot_isolation", "ON"}};
  ASSERT_TRUE(a->StartClean(start, In(10000), "test", &lost).ok());
  EXPECT_FALSE(a->in_transaction());
  QueryResult r = Run(a.get(),
                      "SELECT @@innodb_lock_wait_timeout = @@GLOBAL.innodb_lock_wait_timeout, "
                      "IS_USED_LOCK('racelab_test_lock') IS NULL, DATABASE(), "
                      "@@innodb_snapshot_isolation");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.values[0][0], "1");
  EXPECT_EQ(r.values[0][1], "1");
  EXPECT_EQ(r.values[0][2], ws_);
  EXPECT_EQ(r.values[0][3], "1");
  start.settings = {{"no_such_setting", "1"}};
  Status st = a->StartClean(start, In(10000), "x.yaml", &lost);
  EXPECT_EQ(st.code(), StatusCode::kUsage) << st.message();
  EXPECT_NE(st.message().find("1193"), std::string::npos) << st.message();
}

TEST_F(MariaDbEngineTest, LeftoversOfDeadRunsAreListedAndDroppedLiveOnesKept) {
  ASSERT_TRUE(engine_->HoldRunLock(In(10000), In(10000), nullptr).ok());
  auto a = Open("a");
  const std::string dead = "racelab_1_dead00_1";  // pid 1's run lock is never held
  ASSERT_TRUE(
      engine_->ResetWorkspace(dead, In(10000), nullptr).ok());  // as the admin: a session may not
  Result<std::vector<Leftover>> left = engine_->ListLeftovers(In(10000));
  ASSERT_TRUE(left.ok()) << left.status().message();
  bool saw_dead = false, saw_mine = false;
  for (const Leftover& l : *left) {
    if (l.name == dead) saw_dead = !l.live;
    if (l.name == ws_) saw_mine = l.live;
  }
  EXPECT_TRUE(saw_dead);
  EXPECT_TRUE(saw_mine) << "this run's workspace is live: its run lock is held";
  ASSERT_TRUE(engine_->DropLeftovers(*left, In(10000)).ok());
  QueryResult r =
      Run(a.get(), "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('" +
                       dead + "', '" + ws_ + "')");
  EXPECT_EQ(r.values[0][0], "1");  // the dead one is gone, mine is kept
}

// Sessions run as the run's confined user: its own databases only. Another run's database, a new
// database outside the run's names and the server's user table are refused with an access error
// (SQLSTATE 42000), while the session works in its workspace.
TEST_F(MariaDbEngineTest, SessionsAreConfinedToTheRunsDatabases) {
  auto a = Open("a");
  ASSERT_TRUE(Run(a.get(), "CREATE TABLE mine (id int PRIMARY KEY) ENGINE=InnoDB").ok());
  QueryResult who = Run(a.get(), "SELECT CURRENT_USER()");
  ASSERT_TRUE(who.ok() && !who.values.empty()) << who.message;
  EXPECT_EQ(who.values[0][0].value_or("").rfind("racelab_u_", 0), 0u)
      << who.values[0][0].value_or("");
  for (const std::string& sql : {std::string("CREATE DATABASE appdb_of_someone_else"),
                                 std::string("CREATE DATABASE racelab_1_other0_1"),
                                 std::string("SELECT User FROM mysql.user")}) {
    QueryResult r = Run(a.get(), sql);
    EXPECT_FALSE(r.ok()) << sql;
    EXPECT_EQ(r.sqlstate, "42000") << sql << ": " << r.message;
  }
  EXPECT_NE(engine_->ScenarioErrorHint({"42000"}).find("--no-confine"), std::string::npos);
}

TEST(MariaDbDsnTest, ParsesUrlsAndRedactsPasswords) {
  Result<mariadb::ConnectTarget> t =
      mariadb::ParseMariaDbDsn("mysql://u:p%40ss@db.example:3307/app");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "u");
  EXPECT_EQ(t->password, "p@ss");
  EXPECT_EQ(t->host, "db.example");
  EXPECT_EQ(t->port, 3307u);
  EXPECT_EQ(t->database, "app");
  t = mariadb::ParseMariaDbDsn("mariadb://root@/?socket=/run/mysqld/mysqld.sock");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->socket, "/run/mysqld/mysqld.sock");
  EXPECT_EQ(mariadb::RedactMariaDbDsn("mariadb://u:secret@h/db"), "mariadb://u:***@h/db");
  Result<mariadb::ConnectTarget> bad = mariadb::ParseMariaDbDsn("mariadb://u:secret@h:99999/db");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("secret"), std::string::npos) << bad.status().message();
}

// A server whose racelab was SIGKILLed: mariadbd dies with it (parent-death signal) and the next
// start removes its run folder.
TEST(MariaDbServerTest, StopRemovesEverythingAndSigkillOrphansAreCleanedNextRun) {
  Result<std::unique_ptr<mariadb::EmbeddedMariaDb>> s = mariadb::EmbeddedMariaDb::Start({});
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::printf("[ mariadb  ] ready %.0f ms after mariadbd started, Start() %.0f ms\n",
              (*s)->ready_time().count() / 1000.0, (*s)->start_time().count() / 1000.0);
  std::string run_dir = (*s)->run_dir();
  pid_t pid = (*s)->pid();
  ASSERT_TRUE((*s)->Stop().ok());
  EXPECT_FALSE(std::filesystem::exists(run_dir));
  EXPECT_NE(kill(pid, 0), 0);

  // The killed run's server lives under a base folder of this test's own: another racelab starting
  // meanwhile (ctest -j2 runs the other MariaDB tests beside this one) cleans the orphans of the
  // default base on its start, and would take this one before the cleaner under test could.
  mariadb::ServerOptions own;
  own.base_dir = "/tmp/rlm-orphan-" + std::to_string(getpid());
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t child = fork();
  if (child == 0) {  // a racelab that starts a server and is then killed
    close(pipefd[0]);
    auto started = mariadb::EmbeddedMariaDb::Start(own);
    std::string dir = started.ok() ? (*started)->run_dir() : "";
    dir += "\n";
    ssize_t unused = write(pipefd[1], dir.data(), dir.size());
    (void)unused;
    pause();
    _exit(0);
  }
  close(pipefd[1]);
  char buf[512] = {};
  ssize_t n = read(pipefd[0], buf, sizeof(buf) - 1);
  close(pipefd[0]);
  std::string orphan(buf, n > 0 ? static_cast<size_t>(n) - 1 : 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_FALSE(orphan.empty());
  EXPECT_TRUE(std::filesystem::exists(orphan));
  std::string base = std::filesystem::path(orphan).parent_path().string();
  int removed = 0;
  for (int i = 0; i < 100 && std::filesystem::exists(orphan); ++i) {
    removed += mariadb::CleanMariaDbOrphans(base);
    if (std::filesystem::exists(orphan)) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_FALSE(std::filesystem::exists(orphan));
  EXPECT_GE(removed, 1);
  std::filesystem::remove_all(own.base_dir);  // its template copy
}

}  // namespace
}  // namespace racelab
