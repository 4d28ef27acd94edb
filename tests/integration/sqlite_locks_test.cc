// SQLite's live waits and lock view against the real libsqlite3 (docs/sqlite.md "Locks"): the wait
// monitor's listener hears b's busy wait while b still waits, and SnapshotLocks lists what each
// connection's sqlite3_txn_state and busy handler say, in WAL and in rollback-journal mode. Each
// held lock is checked a second way: the POSIX lock SQLite's unix VFS holds for it in /proc/locks
// (lockingv3.html: RESERVED and PENDING are one byte each of the database file; walformat.html:
// WAL_WRITE_LOCK is byte 120 of the -shm file). One process holds them for all its connections, so
// /proc/locks says a lock is held, txn_state says by whom. Checked after a SnapshotLocks too: a
// look must not drop them (a descriptor of the database file closed by this process would: the
// first version read the file's header and lost SQLite's locks).
#include "harness/engines/sqlite/sqlite_locks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/engines/sqlite/sqlite_engine.h"
#include "harness/engines/sqlite/sqlite_session.h"
#include "harness/engines/sqlite/sqlite_waits.h"
#include "tests/integration/sqlite_fixture.h"

namespace racelab::sqlite {
namespace {

using std::chrono::milliseconds;
using ::testing::UnorderedElementsAreArray;
using Clock = std::chrono::steady_clock;

constexpr long kPendingByte = 0x40000000;  // os.h: PENDING_BYTE; RESERVED_BYTE is the next one
constexpr long kWalWriteLockByte = 120;    // wal.c: WALINDEX_LOCK_OFFSET + WAL_WRITE_LOCK

// Whether this process holds a POSIX write lock on byte `at` of `file` (/proc/locks).
bool HoldsWriteLock(const std::string& file, long at) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return false;
  std::ifstream in("/proc/locks");
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string id, kind, advisory, type, dev_ino, start, end;
    long pid = 0;
    f >> id >> kind >> advisory >> type >> pid >> dev_ino >> start >> end;
    const std::string ino = dev_ino.substr(dev_ino.rfind(':') + 1);
    if (kind == "POSIX" && type == "WRITE" && pid == ::getpid() &&
        ino == std::to_string(st.st_ino) && std::stol(start) <= at &&
        (end == "EOF" || std::stol(end) >= at))
      return true;
  }
  return false;
}

// /proc/locks, for a failure's message.
std::string Dump(const std::string& file) {
  struct stat st {};
  ::stat(file.c_str(), &st);
  std::ifstream in("/proc/locks");
  std::string all =
      "\nino " + std::to_string(st.st_ino) + " pid " + std::to_string(getpid()) + "\n";
  for (std::string line; std::getline(in, line);) all += line + "\n";
  return all;
}

// "session holds|awaits MODE (lock_type)" per lock, with the session's label.
std::vector<std::string> Lines(const LockSnapshot& snap,
                               const std::map<int64_t, std::string>& who) {
  std::vector<std::string> out;
  for (const SessionLock& l : snap.locks) {
    out.push_back(who.at(l.session_id) + (l.granted ? " holds " : " awaits ") + l.mode + " " +
                  l.object + " (" + l.lock_type + ")");
  }
  return out;
}

class SqliteLocksTest : public SqliteWorkspaceTest {
 protected:
  void TearDown() override {
    monitor_.reset();
    a_.reset();
    b_.reset();
    SqliteWorkspaceTest::TearDown();
  }
  std::unique_ptr<SqliteSession> Open(const std::string& label, const std::string& journal) {
    auto s = engine_->OpenSession(kServerNode, label, In(1000), nullptr);
    EXPECT_TRUE(s.ok());
    std::unique_ptr<SqliteSession> out(static_cast<SqliteSession*>(s->release()));
    SessionStart start{.label = label,
                       .workspace = ws_,
                       .settings = {{"journal_mode", journal}, {"busy_timeout", "10000"}}};
    Status st = out->StartClean(start, In(1000), "test.yaml", nullptr);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
  }
  // Sessions a and b on one file in `journal` mode with table runs, watched by a monitor whose
  // listener keeps every observation.
  void Setup(const std::string& journal) {
    a_ = Open("a", journal);
    b_ = Open("b", journal);
    Ok(a_.get(),
       "CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT); "
       "INSERT INTO runs VALUES (1, 'queued'), (2, 'queued')");
    who_ = {{a_->session_id(), "a"}, {b_->session_id(), "b"}};
    monitor_ = std::make_unique<SqliteWaitMonitor>(engine_->busy_log());
    monitor_->SetWaitListener([this](const WaitObservation& o) {
      std::lock_guard<std::mutex> lock(mu_);
      heard_.push_back(o);
      cv_.notify_all();
    });
    monitor_->Begin({a_->connection_id(), b_->connection_id()}, Clock::now());
  }
  static QueryResult Run(SqliteSession* s, const std::string& sql) {
    return s->Exec(sql, In(10000), 10);
  }
  static void Ok(SqliteSession* s, const std::string& sql) {
    QueryResult r = Run(s, sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.error_code << " " << r.message;
  }
  // Waits (5 s at most) until the listener heard `session` waiting; that observation.
  std::optional<WaitObservation> AwaitHeard(int64_t session) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<WaitObservation> got;
    cv_.wait_until(lock, In(5000), [&] {
      for (const WaitObservation& o : heard_)
        if (o.session_id == session) got = o;
      return got.has_value();
    });
    return got;
  }
  std::vector<std::string> Locks() {
    Result<LockSnapshot> snap = monitor_->SnapshotLocks(In(1000));
    EXPECT_TRUE(snap.ok());
    EXPECT_EQ(snap->method, "sqlite3_txn_state");
    EXPECT_LE(snap->sent_us, snap->received_us);
    return Lines(*snap, who_);
  }
  size_t HeardCount() {
    std::lock_guard<std::mutex> lock(mu_);
    return heard_.size();
  }

  std::unique_ptr<SqliteSession> a_, b_;
  std::unique_ptr<SqliteWaitMonitor> monitor_;
  std::map<int64_t, std::string> who_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WaitObservation> heard_;  // guarded by mu_
};

// WAL (the sqlite-lock-hold-wait scenario's mode): a's write transaction holds the WAL write lock;
// b's UPDATE waits for it in its busy handler — heard live, while b waits — and awaits it in the
// lock view; after a's commit b holds it.
TEST_F(SqliteLocksTest, WalWriterHoldsTheWriteLockAndTheWaiterIsHeardWhileItWaits) {
  Setup("wal");
  const std::string file = engine_->WorkspaceFile(ws_);
  EXPECT_EQ(JournalOf(file), Journal::kWal);
  Ok(a_.get(), "BEGIN");
  EXPECT_THAT(Locks(), ::testing::IsEmpty()) << "a deferred BEGIN takes no lock";
  Ok(a_.get(), "UPDATE runs SET status = 'a' WHERE id = 1");
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds WAL_READ_LOCK main (wal-index)",
                                                  "a holds WAL_WRITE_LOCK main (wal-index)"}));
  EXPECT_TRUE(HoldsWriteLock(file + "-shm", kWalWriteLockByte)) << "the -shm write-lock byte";
  Ok(b_.get(), "BEGIN");
  auto b = std::async(std::launch::async,
                      [&] { return Run(b_.get(), "UPDATE runs SET status = 'b' WHERE id = 2"); });
  std::optional<WaitObservation> heard = AwaitHeard(b_->session_id());
  ASSERT_TRUE(heard.has_value()) << "no live observation of b's wait";
  EXPECT_EQ(b.wait_for(milliseconds(0)), std::future_status::timeout) << "heard after b's wait";
  EXPECT_EQ(heard->wait_event, "busy");
  EXPECT_EQ(heard->blocking, std::vector<int64_t>{a_->session_id()});
  EXPECT_EQ(heard->query, "UPDATE runs SET status = 'b' WHERE id = 2");
  // Between retries b's busy handler holds no read mark (btree.c drops it before each call).
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds WAL_READ_LOCK main (wal-index)",
                                                  "a holds WAL_WRITE_LOCK main (wal-index)",
                                                  "b awaits WAL_WRITE_LOCK main (wal-index)"}));
  Ok(a_.get(), "COMMIT");
  QueryResult r = b.get();
  ASSERT_TRUE(r.ok()) << r.error_code;
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"b holds WAL_READ_LOCK main (wal-index)",
                                                  "b holds WAL_WRITE_LOCK main (wal-index)"}));
  Ok(b_.get(), "COMMIT");
  EXPECT_THAT(Locks(), ::testing::IsEmpty());
  EXPECT_FALSE(HoldsWriteLock(file + "-shm", kWalWriteLockByte));
  // End() returns what the listener heard, in the same order; nothing is heard after it.
  const std::vector<WaitObservation> ended = monitor_->End();
  std::vector<WaitObservation> heard_all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    heard_all = heard_;
  }
  const size_t heard_n = heard_all.size();
  ASSERT_EQ(ended.size(), heard_n);
  for (size_t i = 0; i < ended.size(); ++i) {
    EXPECT_EQ(ended[i].poll_sent_us, heard_all[i].poll_sent_us) << i;
    EXPECT_EQ(ended[i].session_id, heard_all[i].session_id) << i;
  }
  Ok(a_.get(), "BEGIN IMMEDIATE");
  b_->set_busy_timeout_ms(30);
  EXPECT_EQ(Run(b_.get(), "BEGIN IMMEDIATE").error_code, "SQLITE_BUSY");
  EXPECT_EQ(HeardCount(), heard_n) << "a listener call after End()";
  Ok(a_.get(), "ROLLBACK");
}

// Rollback journal (lockingv3.html): a reader holds SHARED, a writer RESERVED, a writer waiting
// for b to leave at its COMMIT holds PENDING and awaits EXCLUSIVE; a second writer awaits
// RESERVED.
TEST_F(SqliteLocksTest, RollbackJournalLocksAreSharedReservedPendingExclusive) {
  Setup("delete");
  const std::string file = engine_->WorkspaceFile(ws_);
  EXPECT_EQ(JournalOf(file), Journal::kRollback);
  Ok(a_.get(), "BEGIN");
  Ok(a_.get(), "SELECT status FROM runs");
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds SHARED main (database file)"}));
  Ok(a_.get(), "UPDATE runs SET status = 'a' WHERE id = 1");
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds RESERVED main (database file)"}));
  EXPECT_TRUE(HoldsWriteLock(file, kPendingByte + 1)) << "the RESERVED byte" << Dump(file);
  EXPECT_FALSE(HoldsWriteLock(file, kPendingByte));
  auto b = std::async(std::launch::async,
                      [&] { return Run(b_.get(), "UPDATE runs SET status = 'b' WHERE id = 2"); });
  ASSERT_TRUE(AwaitHeard(b_->session_id()).has_value());
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds RESERVED main (database file)",
                                                  "b awaits RESERVED main (database file)"}));
  Ok(a_.get(), "COMMIT");
  ASSERT_TRUE(b.get().ok());  // autocommit: b's lock is gone with its statement
  EXPECT_THAT(Locks(), ::testing::IsEmpty());

  // a's COMMIT waits for reader b: PENDING held, EXCLUSIVE awaited.
  Ok(a_.get(), "BEGIN");
  Ok(a_.get(), "UPDATE runs SET status = 'a2' WHERE id = 1");
  Ok(b_.get(), "BEGIN");
  Ok(b_.get(), "SELECT status FROM runs");
  auto commit = std::async(std::launch::async, [&] { return Run(a_.get(), "COMMIT"); });
  ASSERT_TRUE(monitor_->AwaitBlocked({a_->connection_id()}, In(5000), nullptr));
  EXPECT_THAT(Locks(), UnorderedElementsAreArray({"a holds PENDING main (database file)",
                                                  "a awaits EXCLUSIVE main (database file)",
                                                  "b holds SHARED main (database file)"}));
  EXPECT_TRUE(HoldsWriteLock(file, kPendingByte)) << "the PENDING byte" << Dump(file);
  Ok(b_.get(), "ROLLBACK");
  ASSERT_TRUE(commit.get().ok());
  EXPECT_THAT(Locks(), ::testing::IsEmpty());
}

// --keep's file (docs/step.md): the workspace's database file, known before its first trial, and
// a sqlite3 command line for it.
TEST_F(SqliteLocksTest, TheClientCommandNamesTheWorkspacesFile) {
  const std::string ws = engine_->WorkspaceName(999);
  const std::string before = engine_->ClientConnectionString(ws);
  ASSERT_FALSE(before.empty());
  ASSERT_TRUE(engine_->ResetWorkspace(ws, In(5000), nullptr).ok());
  EXPECT_EQ(engine_->WorkspaceFile(ws), before);
  EXPECT_EQ(engine_->ClientConnectionString(ws), before);
  EXPECT_EQ(engine_->ClientCommand(ws), "sqlite3 " + before);
}

}  // namespace
}  // namespace racelab::sqlite
