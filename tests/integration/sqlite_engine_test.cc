// The SQLite engine against the real libsqlite3 (no mocks): what SQLite does when two connections
// want the same database, and what racelab's busy handler records about it (docs/sqlite.md).
#include "harness/engines/sqlite/sqlite_engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <set>
#include <thread>

#include "harness/engines/sqlite/sqlite_session.h"
#include "harness/engines/sqlite/sqlite_waits.h"
#include "tests/integration/sqlite_fixture.h"

namespace racelab::sqlite {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

long MsSince(SteadyTime t) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t).count();
}

class SqliteEngineTest : public SqliteWorkspaceTest {
 protected:
  void TearDown() override {
    a_.reset();
    b_.reset();
    SqliteWorkspaceTest::TearDown();
  }

  // A session on the workspace with these settings; the first one also creates table runs.
  std::unique_ptr<SqliteSession> Open(const std::string& label,
                                      std::vector<std::pair<std::string, std::string>> settings) {
    auto s = engine_->OpenSession(kServerNode, label, In(1000), nullptr);
    EXPECT_TRUE(s.ok());
    std::unique_ptr<SqliteSession> out(static_cast<SqliteSession*>(s->release()));
    SessionStart start{.label = label, .workspace = ws_, .settings = std::move(settings)};
    Status st = out->StartClean(start, In(1000), "test.yaml", nullptr);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
  }
  void Setup(const std::string& journal_mode, long busy_timeout_ms) {
    a_ = Open("a",
              {{"journal_mode", journal_mode}, {"busy_timeout", std::to_string(busy_timeout_ms)}});
    b_ = Open("b",
              {{"journal_mode", journal_mode}, {"busy_timeout", std::to_string(busy_timeout_ms)}});
    Ok(a_.get(),
       "CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT NOT NULL); "
       "INSERT INTO runs VALUES (1, 'queued')");
    engine_->busy_log()->TakeEnded();
  }
  static QueryResult Run(SqliteSession* s, const std::string& sql, long deadline_ms = 10000) {
    return s->Exec(sql, In(deadline_ms), 10);
  }
  static void Ok(SqliteSession* s, const std::string& sql) {
    QueryResult r = Run(s, sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.error_code << " " << r.message;
  }

  std::unique_ptr<SqliteSession> a_, b_;
};

// lang_transaction.html: a deferred transaction that has read cannot become a writer while another
// connection writes — SQLITE_BUSY at once; c3ref/busy_handler.html: SQLite does not call the busy
// handler where waiting could deadlock. So busy_timeout does not help.
// A single server has one node, "server": its sessions are there, and a session on another node is
// refused before anything is opened (the CLI checks a plan's nodes first: node_check.h).
TEST_F(SqliteEngineTest, OneNodeAndAnUnknownNodeIsAUsageError) {
  EXPECT_EQ(engine_->nodes(), std::vector<std::string>{kServerNode});
  auto s = engine_->OpenSession(kServerNode, "a", In(1000), nullptr);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->node(), "server");
  EXPECT_EQ((*s)->connection_id(), (ConnectionId{"server", (*s)->session_id()}));
  auto other = engine_->OpenSession("standby1", "b", In(1000), nullptr);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kUsage);
  EXPECT_EQ(other.status().message(), "sqlite has no node 'standby1' (its nodes: server)");
}

TEST_F(SqliteEngineTest, DeferredReaderUpgradeIsRefusedAtOnceDespiteBusyTimeout) {
  for (const char* mode : {"delete", "wal"}) {
    SCOPED_TRACE(mode);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
    Setup(mode, 5000);
    Ok(a_.get(), "BEGIN");
    Ok(a_.get(), "SELECT status FROM runs WHERE id = 1");
    Ok(b_.get(), "BEGIN");
    Ok(b_.get(), "SELECT status FROM runs WHERE id = 1");
    Ok(a_.get(), "UPDATE runs SET status = 'running' WHERE id = 1");
    auto t0 = Clock::now();
    QueryResult r = Run(b_.get(), "UPDATE runs SET status = 'running' WHERE id = 1");
    EXPECT_EQ(r.error_code, "SQLITE_BUSY");
    EXPECT_EQ(r.message, "database is locked");
    EXPECT_EQ(r.sqlstate, "HY000");
    EXPECT_LT(MsSince(t0), 1000) << "the busy timeout (5 s) was not used";
    EXPECT_TRUE(b_->in_transaction()) << "SQLITE_BUSY leaves the transaction open";
    EXPECT_TRUE(engine_->busy_log()->TakeEnded().empty()) << "the busy handler was called";
    Ok(b_.get(), "ROLLBACK");
    Ok(a_.get(), "COMMIT");
  }
}

// wal.html / rescode.html#busy_snapshot: the reader's snapshot is older than the last commit.
TEST_F(SqliteEngineTest, WalStaleSnapshotWriteGetsBusySnapshot) {
  Setup("wal", 5000);
  Ok(b_.get(), "BEGIN");
  Ok(b_.get(), "SELECT status FROM runs WHERE id = 1");
  Ok(a_.get(), "UPDATE runs SET status = 'running' WHERE id = 1");  // autocommit: committed
  QueryResult r =
      Run(b_.get(), "UPDATE runs SET status = 'running' WHERE id = 1 AND status = 'queued'");
  EXPECT_EQ(r.error_code, "SQLITE_BUSY_SNAPSHOT");
  Ok(b_.get(), "ROLLBACK");
}

// Rollback journal: the writer's COMMIT needs every reader gone; it waits in the busy handler until
// the reader rolls back, and the wait is recorded with its holder.
TEST_F(SqliteEngineTest, JournalCommitWaitsForReaderAndTheWaitIsRecorded) {
  Setup("delete", 5000);
  Ok(a_.get(), "BEGIN");
  Ok(a_.get(), "UPDATE runs SET status = 'running' WHERE id = 1");
  Ok(b_.get(), "BEGIN");
  Ok(b_.get(), "SELECT status FROM runs WHERE id = 1");
  auto commit = std::async(std::launch::async, [&] { return Run(a_.get(), "COMMIT"); });
  SqliteWaitMonitor monitor(engine_->busy_log());
  ASSERT_TRUE(monitor.AwaitBlocked({a_->connection_id()}, In(5000), nullptr));
  std::this_thread::sleep_for(milliseconds(50));
  Ok(b_.get(), "ROLLBACK");
  QueryResult r = commit.get();
  EXPECT_TRUE(r.ok()) << r.error_code;
  auto waits = engine_->busy_log()->TakeEnded();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].session_id, a_->session_id());
  EXPECT_EQ(waits[0].need, "commit");
  EXPECT_EQ(waits[0].how, WaitEnd::kAcquired);
  EXPECT_GE(waits[0].retries, 3);
  EXPECT_GE(std::chrono::duration_cast<milliseconds>(waits[0].end - waits[0].start).count(), 40);
  EXPECT_EQ(waits[0].holders, std::vector<int64_t>{b_->session_id()});
}

// BEGIN IMMEDIATE takes the write lock up front, so the second one waits (busy handler) instead of
// failing later, and goes on when the first commits.
TEST_F(SqliteEngineTest, ImmediateWaitsForTheWriterThenProceeds) {
  for (const char* mode : {"delete", "wal"}) {
    SCOPED_TRACE(mode);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
    a_ = Open("a", {{"journal_mode", mode}, {"begin", "immediate"}, {"busy_timeout", "5000"}});
    b_ = Open("b", {{"journal_mode", mode}, {"begin", "immediate"}, {"busy_timeout", "5000"}});
    Ok(a_.get(),
       "CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT); INSERT INTO runs VALUES (1, "
       "'queued')");
    engine_->busy_log()->TakeEnded();
    Ok(a_.get(), "BEGIN");
    auto second = std::async(std::launch::async, [&] { return Run(b_.get(), "BEGIN"); });
    SqliteWaitMonitor monitor(engine_->busy_log());
    ASSERT_TRUE(monitor.AwaitBlocked({b_->connection_id()}, In(5000), nullptr));
    Ok(a_.get(), "UPDATE runs SET status = 'running' WHERE id = 1 AND status = 'queued'");
    Ok(a_.get(), "COMMIT");
    QueryResult r = second.get();
    ASSERT_TRUE(r.ok()) << r.error_code;
    QueryResult u =
        Run(b_.get(),
            "UPDATE runs SET status = 'running' WHERE id = 1 AND status = 'queued' RETURNING id");
    EXPECT_TRUE(u.ok());
    EXPECT_EQ(u.rows, 0) << "the second sees the first's commit";
    Ok(b_.get(), "COMMIT");
    // b's busy handler retries by taking the SHARED lock, trying for RESERVED and dropping both
    // (btree.c sqlite3BtreeBeginTrans), so in rollback-journal mode a's COMMIT can meet b's SHARED
    // lock for a moment and wait itself (lockingv3.html: EXCLUSIVE needs every SHARED lock gone).
    // That wait is real; the claim here is about b's.
    std::vector<BusyWait> b_waits;
    for (const BusyWait& w : engine_->busy_log()->TakeEnded()) {
      if (w.session_id == b_->session_id()) {
        b_waits.push_back(w);
      } else {
        EXPECT_EQ(w.session_id, a_->session_id());
        EXPECT_EQ(w.need, "commit");
        EXPECT_EQ(w.how, WaitEnd::kAcquired);
        EXPECT_STREQ(mode, "delete") << "no SHARED lock in WAL mode to meet";
      }
    }
    ASSERT_EQ(b_waits.size(), 1u);
    EXPECT_EQ(b_waits[0].need, "write");
    EXPECT_EQ(b_waits[0].statement, "BEGIN IMMEDIATE");
    EXPECT_EQ(b_waits[0].how, WaitEnd::kAcquired);
    EXPECT_EQ(b_waits[0].holders, std::vector<int64_t>{a_->session_id()});
  }
}

// A deferred transaction whose first statement writes holds no read transaction yet, so it waits in
// its busy handler (docs/sqlite.md row 6) and then sees the winner's commit: the guarded claim.
TEST_F(SqliteEngineTest, WriteAsFirstStatementWaitsAndSeesTheWinner) {
  for (const char* mode : {"delete", "wal"}) {
    SCOPED_TRACE(mode);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
    Setup(mode, 5000);
    const std::string claim =
        "UPDATE runs SET status = 'running' WHERE id = 1 AND status = 'queued' RETURNING id";
    Ok(a_.get(), "BEGIN");
    QueryResult won = Run(a_.get(), claim);
    ASSERT_TRUE(won.ok());
    EXPECT_EQ(won.rows, 1);
    Ok(b_.get(), "BEGIN");
    auto second = std::async(std::launch::async, [&] { return Run(b_.get(), claim); });
    SqliteWaitMonitor monitor(engine_->busy_log());
    ASSERT_TRUE(monitor.AwaitBlocked({b_->connection_id()}, In(5000), nullptr));
    Ok(a_.get(), "COMMIT");
    QueryResult lost = second.get();
    ASSERT_TRUE(lost.ok()) << lost.error_code;
    EXPECT_EQ(lost.rows, 0);
    Ok(b_.get(), "COMMIT");
    auto waits = engine_->busy_log()->TakeEnded();
    ASSERT_GE(waits.size(), 1u);
    EXPECT_EQ(waits.back().session_id, b_->session_id());
    EXPECT_EQ(waits.back().how, WaitEnd::kAcquired);
  }
}

// An autocommit statement (no BEGIN) that holds the write lock is named as the holder of the waits
// behind it: it publishes its transaction state while it runs (progress handler), not only after.
// Forced: A's UPDATE computes until cancelled (its write lock is taken before its first row,
// vdbe.c OP_Transaction), B waits for it in its busy handler, then A is cancelled and B goes on.
TEST_F(SqliteEngineTest, AutocommitWriterIsNamedAsTheHolder) {
  for (const char* mode : {"delete", "wal"}) {
    SCOPED_TRACE(mode);
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
    Setup(mode, 10000);
    const std::string endless =
        "UPDATE runs SET status = (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
        "SELECT count(*) FROM c) WHERE id = 1";
    auto holder = std::async(std::launch::async, [&] { return Run(a_.get(), endless, 20000); });
    const SteadyTime until = In(5000);
    while (engine_->busy_log()->TxnState(a_->session_id()) != SQLITE_TXN_WRITE &&
           Clock::now() < until) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    ASSERT_EQ(engine_->busy_log()->TxnState(a_->session_id()), SQLITE_TXN_WRITE)
        << "the running autocommit UPDATE published its write lock";
    auto waiter = std::async(std::launch::async, [&] {
      return Run(b_.get(), "UPDATE runs SET status = 'b' WHERE id = 1");
    });
    SqliteWaitMonitor monitor(engine_->busy_log());
    ASSERT_TRUE(monitor.AwaitBlocked({b_->connection_id()}, In(5000), nullptr));
    EXPECT_TRUE(a_->Cancel(milliseconds(5000)));
    QueryResult a = holder.get();
    EXPECT_EQ(a.error_code, "SQLITE_INTERRUPT");
    QueryResult b = waiter.get();
    ASSERT_TRUE(b.ok()) << b.error_code << " " << b.message;
    EXPECT_EQ(b.rows, 1);
    EXPECT_EQ(engine_->busy_log()->TxnState(a_->session_id()), SQLITE_TXN_NONE);
    auto waits = engine_->busy_log()->TakeEnded();
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_EQ(waits[0].session_id, b_->session_id());
    EXPECT_EQ(waits[0].need, "write");
    EXPECT_EQ(waits[0].how, WaitEnd::kAcquired);
    EXPECT_EQ(waits[0].holders, std::vector<int64_t>{a_->session_id()});
  }
}

// Rollback journal, all autocommit but the reader: A's UPDATE holds the write lock and waits at its
// commit for reader C to leave (lockingv3.html: EXCLUSIVE needs every SHARED lock gone); B's UPDATE
// waits for A. Each wait names its holder: A's is C ("commit"), B's is A ("write").
TEST_F(SqliteEngineTest, AutocommitCommitWaitingForAReaderHoldsUpTheNextWriter) {
  Setup("delete", 10000);
  auto c = Open("c", {{"journal_mode", "delete"}, {"busy_timeout", "10000"}});
  Ok(c.get(), "BEGIN");
  Ok(c.get(), "SELECT status FROM runs WHERE id = 1");
  SqliteWaitMonitor monitor(engine_->busy_log());
  auto first = std::async(std::launch::async, [&] {
    return Run(a_.get(), "UPDATE runs SET status = 'a' WHERE id = 1");
  });
  ASSERT_TRUE(monitor.AwaitBlocked({a_->connection_id()}, In(5000), nullptr));
  auto second = std::async(std::launch::async, [&] {
    return Run(b_.get(), "UPDATE runs SET status = 'b' WHERE id = 1");
  });
  ASSERT_TRUE(monitor.AwaitBlocked({b_->connection_id()}, In(5000), nullptr));
  Ok(c.get(), "ROLLBACK");
  QueryResult a = first.get(), b = second.get();
  ASSERT_TRUE(a.ok()) << a.error_code;
  ASSERT_TRUE(b.ok()) << b.error_code;
  QueryResult final = Run(c.get(), "SELECT status FROM runs WHERE id = 1");
  ASSERT_TRUE(final.ok());
  EXPECT_EQ(final.values.at(0).at(0), "b") << "A committed first, then B";
  auto waits = engine_->busy_log()->TakeEnded();
  ASSERT_EQ(waits.size(), 2u);
  const BusyWait& wa = waits[0].session_id == a_->session_id() ? waits[0] : waits[1];
  const BusyWait& wb = waits[0].session_id == a_->session_id() ? waits[1] : waits[0];
  EXPECT_EQ(wa.session_id, a_->session_id());
  EXPECT_EQ(wa.need, "commit");
  EXPECT_EQ(wa.holders, std::vector<int64_t>{c->session_id()});
  EXPECT_EQ(wb.session_id, b_->session_id());
  EXPECT_EQ(wb.need, "write");
  EXPECT_EQ(wb.holders, std::vector<int64_t>{a_->session_id()});
  c.reset();
}

// busy_timeout 100 ms with SQLite's schedule (1, 2, 5, 10, 15, 20, 25, 22 ms): 8 retries, then
// SQLITE_BUSY; busy_timeout 0 consults the handler once and gives up.
TEST_F(SqliteEngineTest, BusyTimeoutFollowsSqliteScheduleThenGivesUp) {
  Setup("wal", 100);
  Ok(a_.get(), "BEGIN IMMEDIATE");
  auto t0 = Clock::now();
  QueryResult r = Run(b_.get(), "BEGIN IMMEDIATE");
  EXPECT_EQ(r.error_code, "SQLITE_BUSY");
  EXPECT_FALSE(r.cancelled_by_deadline);
  EXPECT_GE(MsSince(t0), 100);
  auto waits = engine_->busy_log()->TakeEnded();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].retries, 8);
  EXPECT_EQ(waits[0].how, WaitEnd::kBusyTimeout);

  b_->set_busy_timeout_ms(0);
  r = Run(b_.get(), "BEGIN IMMEDIATE");
  EXPECT_EQ(r.error_code, "SQLITE_BUSY");
  waits = engine_->busy_log()->TakeEnded();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].retries, 0);
  Ok(a_.get(), "ROLLBACK");
}

// A statement stuck behind a lock past its deadline: the busy handler stops at the deadline.
TEST_F(SqliteEngineTest, LockWaitEndsAtTheStatementDeadline) {
  Setup("wal", 60000);
  Ok(a_.get(), "BEGIN IMMEDIATE");
  auto t0 = Clock::now();
  QueryResult r = Run(b_.get(), "BEGIN IMMEDIATE", 300);
  long ms = MsSince(t0);
  EXPECT_EQ(r.error_code, "SQLITE_BUSY");
  EXPECT_TRUE(r.cancelled_by_deadline);
  EXPECT_NE(r.message.find("at the statement deadline"), std::string::npos) << r.message;
  EXPECT_GE(ms, 290);
  EXPECT_LT(ms, 2000);
  auto waits = engine_->busy_log()->TakeEnded();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].how, WaitEnd::kDeadline);
  Ok(a_.get(), "ROLLBACK");
}

// A statement that computes past its deadline is interrupted (progress handler); Cancel() from
// another thread interrupts one too (sqlite3_interrupt).
TEST_F(SqliteEngineTest, LongStatementIsInterruptedAtDeadlineAndByCancel) {
  Setup("delete", 0);
  const std::string forever =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
  auto t0 = Clock::now();
  QueryResult r = Run(a_.get(), forever, 200);
  EXPECT_EQ(r.error_code, "SQLITE_INTERRUPT");
  EXPECT_TRUE(r.cancelled_by_deadline);
  EXPECT_LT(MsSince(t0), 2000);

  auto running = std::async(std::launch::async, [&] { return Run(a_.get(), forever, 60000); });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_TRUE(a_->Cancel(milliseconds(2000)));
  r = running.get();
  EXPECT_EQ(r.error_code, "SQLITE_INTERRUPT");
  EXPECT_TRUE(r.cancelled_by_deadline);
  Ok(a_.get(), "SELECT 1");  // the session works after it
}

TEST_F(SqliteEngineTest, PartialUniqueIndexViolationIsNamedWithItsExtendedCode) {
  Setup("delete", 0);
  Ok(a_.get(),
     "CREATE TABLE r (id INTEGER PRIMARY KEY, thread_id TEXT, status TEXT); "
     "CREATE UNIQUE INDEX one_active ON r (thread_id) WHERE status IN ('queued', 'running'); "
     "INSERT INTO r (thread_id, status) VALUES ('t', 'succeeded'), ('t', 'queued')");
  QueryResult r = Run(b_.get(), "INSERT INTO r (thread_id, status) VALUES ('t', 'running')");
  EXPECT_EQ(r.error_code, "SQLITE_CONSTRAINT_UNIQUE");
  EXPECT_EQ(r.message, "UNIQUE constraint failed: r.thread_id");
  EXPECT_FALSE(engine_->IsScenarioError(r));
  QueryResult bad = Run(b_.get(), "SELEC 1");
  EXPECT_EQ(bad.error_code, "SQLITE_ERROR");
  EXPECT_TRUE(engine_->IsScenarioError(bad));
}

// An authorizer's refusal (SQLITE_AUTH) is what scenario SQL may not do: the scenario's fault, exit
// 2, as PostgreSQL's 42501 (issue 20 item 22). The code alone decides it, as the engine reads it.
TEST_F(SqliteEngineTest, AuthorizerRefusalIsAScenarioError) {
  QueryResult denied;
  denied.error_code = "SQLITE_AUTH";
  denied.message = "not authorized";
  EXPECT_TRUE(engine_->IsScenarioError(denied));
  EXPECT_FALSE(engine_->IsSessionLost(denied));
}

TEST_F(SqliteEngineTest, EveryTrialGetsANewEmptyDatabase) {
  Setup("wal", 0);
  std::string first = engine_->WorkspaceFile(ws_);
  ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
  EXPECT_NE(engine_->WorkspaceFile(ws_), first);
  EXPECT_FALSE(std::filesystem::exists(first));
  a_ = Open("a", {});
  QueryResult r = Run(a_.get(), "SELECT count(*) FROM sqlite_schema");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.values[0][0].value_or(""), "0");
}

TEST_F(SqliteEngineTest, SessionsMustAgreeOnTheJournalMode) {
  a_ = Open("a", {{"journal_mode", "wal"}});
  Ok(a_.get(), "CREATE TABLE t (x)");
  auto s = engine_->OpenSession(kServerNode, "b", In(1000), nullptr);
  ASSERT_TRUE(s.ok());
  Status st = (*s)->StartClean(
      SessionStart{.label = "b", .workspace = ws_, .settings = {{"journal_mode", "delete"}}},
      In(1000), "x.yaml", nullptr);
  // Switching a WAL database back needs it to be the only connection
  // (pragma.html#pragma_journal_mode).
  EXPECT_EQ(st.code(), StatusCode::kUsage) << st.message();
  EXPECT_NE(st.message().find("x.yaml: session b: settings.journal_mode"), std::string::npos)
      << st.message();
  st = (*s)->StartClean(
      SessionStart{.label = "b", .workspace = ws_, .settings = {{"begin", "later"}}}, In(1000),
      "x.yaml", nullptr);
  EXPECT_EQ(st.code(), StatusCode::kUsage);
}

}  // namespace
}  // namespace racelab::sqlite

namespace racelab::sqlite {
namespace {

// Sessions start in parallel (one per worker thread); switching a new file to WAL takes an
// exclusive lock for a moment, so one session's PRAGMA may meet another's: it waits, and is not a
// recorded wait.
TEST_F(SqliteEngineTest, SessionsStartInParallelOnWal) {
  for (int trial = 0; trial < 20; ++trial) {
    ASSERT_TRUE(engine_->ResetWorkspace(ws_, In(5000), nullptr).ok());
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < 4; ++i)
      sessions.push_back(std::move(*engine_->OpenSession(kServerNode, "w", In(1000), nullptr)));
    std::vector<std::future<Status>> started;
    for (auto& s : sessions) {
      started.push_back(std::async(std::launch::async, [&] {
        return s->StartClean(
            SessionStart{.label = "w", .workspace = ws_, .settings = {{"journal_mode", "wal"}}},
            In(5000), "f.yaml", nullptr);
      }));
    }
    for (auto& f : started) {
      Status st = f.get();
      ASSERT_TRUE(st.ok()) << st.message();
    }
  }
  EXPECT_TRUE(engine_->busy_log()->TakeEnded().empty());
}

}  // namespace
}  // namespace racelab::sqlite

namespace racelab::sqlite {
namespace {

// The runner starts every session, then resets the workspace, then runs setup on the control
// session; the reverse order works too. Either way each trial sees only its own setup.
TEST_F(SqliteEngineTest, EachTrialSeesOnlyItsOwnSetupInEitherOrder) {
  auto worker = std::move(*engine_->OpenSession(kServerNode, "w", In(1000), nullptr));
  auto control = std::move(*engine_->OpenSession(kServerNode, "c", In(1000), nullptr));
  const std::string ws = engine_->WorkspaceName(2);
  auto start = [&](Session* s) {
    Status st = s->StartClean(
        SessionStart{.label = "x", .workspace = ws, .settings = {{"journal_mode", "wal"}}},
        In(1000), "f.yaml", nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
  };
  std::set<std::string> files;
  for (int trial = 0; trial < 4; ++trial) {
    SCOPED_TRACE(trial);
    const bool sessions_first = trial % 2 == 0;
    if (sessions_first) {
      start(worker.get());
      start(control.get());
    }
    ASSERT_TRUE(engine_->ResetWorkspace(ws, In(1000), nullptr).ok());
    if (!sessions_first) {
      start(worker.get());
      start(control.get());
    }
    files.insert(engine_->WorkspaceFile(ws));
    QueryResult setup = control->Exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)", In(1000));
    ASSERT_TRUE(setup.ok()) << setup.message;
    QueryResult seen = worker->Exec("SELECT count(*) FROM t", In(1000));
    ASSERT_TRUE(seen.ok()) << seen.message;
    EXPECT_EQ(seen.values[0][0].value_or(""), "1");
  }
  EXPECT_EQ(files.size(), 4u);
  EXPECT_TRUE(engine_->DropWorkspace(ws, In(1000)).ok());
}

}  // namespace
}  // namespace racelab::sqlite
