// The MariaDB wait monitor's held-lock view (MariaWaitMonitor::SnapshotLocks,
// harness/engines/mariadb/innodb_locks.h) on a real embedded MariaDB server: a lone holder's record
// lock (which INNODB_LOCKS does not list), then holder + waiter; and, for a monitor user that may
// not SET GLOBAL innodb_status_output_locks, the fallback that lists only the locks someone waits
// for and says so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "harness/engine/engine.h"
#include "harness/engines/mariadb/connection.h"
#include "harness/engines/mariadb/dsn.h"
#include "harness/engines/mariadb/engine.h"
#include "harness/engines/mariadb/wait_monitor.h"
#include "tests/integration/mariadb_fixture.h"
#include "tests/integration/mariadb_root.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using ::testing::HasSubstr;

class MariaDbLocksTest : public MariaDbWorkspaceTest {
 protected:
  void SetUp() override {
    MariaDbWorkspaceTest::SetUp();
    a_ = Open("a");
    b_ = Open("b");
    ASSERT_TRUE(Run(a_.get(),
                    "CREATE TABLE runs (id int PRIMARY KEY, status varchar(20)) "
                    "ENGINE=InnoDB; INSERT INTO runs VALUES (1, 'queued')")
                    .ok());
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    MariaDbWorkspaceTest::TearDown();
  }

  // The embedded server's root, as the engine reaches it (its redacted DSN names the socket).
  static mariadb::ConnectTarget Root() {
    Result<mariadb::ConnectTarget> t = mariadb::ParseMariaDbDsn(engine_->info().dsn_redacted);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? *t : mariadb::ConnectTarget{};
  }
  // "a holds X record lock (not gap) on runs PRIMARY id=1 (RECORD)" per lock, the workspace's name
  // left out; "?" for a session that is neither a nor b.
  std::vector<std::string> Lines(const LockSnapshot& snap) {
    std::vector<std::string> out;
    for (const SessionLock& l : snap.locks) {
      std::string object = l.object;
      const std::string prefix = ws_ + ".";
      for (size_t at; (at = object.find(prefix)) != std::string::npos;)
        object.erase(at, prefix.size());
      const std::string who = l.session_id == a_->session_id()   ? "a"
                              : l.session_id == b_->session_id() ? "b"
                                                                 : "?";
      out.push_back(who + (l.granted ? " holds " : " awaits ") + l.mode + " " + object + " (" +
                    l.lock_type + ")");
    }
    return out;
  }

  // a holds the row alone, then b waits for it: the snapshots of `monitor` at both moments.
  void HoldThenWait(WaitMonitor* monitor, LockSnapshot* alone, LockSnapshot* both) {
    monitor->Begin({a_->connection_id(), b_->connection_id()}, Clock::now());
    ASSERT_TRUE(
        Run(a_.get(), "START TRANSACTION; UPDATE runs SET status = 'running' WHERE id = 1").ok());
    Result<LockSnapshot> s1 = monitor->SnapshotLocks(In(10000));
    ASSERT_TRUE(s1.ok()) << s1.status().message();
    *alone = *s1;
    QueryResult rb;
    std::thread t([&] { rb = Run(b_.get(), "UPDATE runs SET status = 'b' WHERE id = 1"); });
    EXPECT_TRUE(monitor->AwaitBlocked({b_->connection_id()}, In(10000), nullptr))
        << monitor->error();
    Result<LockSnapshot> s2 = monitor->SnapshotLocks(In(10000));
    EXPECT_TRUE(s2.ok()) << s2.status().message();
    if (s2.ok()) *both = *s2;
    EXPECT_TRUE(Run(a_.get(), "COMMIT").ok());
    t.join();
    EXPECT_TRUE(rb.ok()) << rb.message;
    monitor->End();
  }

  std::unique_ptr<Session> a_, b_;
};

TEST_F(MariaDbLocksTest, ALoneHolderShowsItsRecordLockThenTheWaiterItsAwaitedOne) {
  Result<std::unique_ptr<WaitMonitor>> m =
      engine_->OpenMonitor(std::chrono::microseconds(2000), In(10000), nullptr);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE((*m)->CanSnapshotLocks());
  LockSnapshot alone, both;
  HoldThenWait(m->get(), &alone, &both);
  EXPECT_EQ(alone.method, "SHOW ENGINE INNODB STATUS");
  EXPECT_EQ(alone.note, "");
  EXPECT_EQ(alone.node, kServerNode);
  EXPECT_LE(alone.sent_us, alone.received_us);
  // Only a and b: neither the monitor's connections nor racelab's admin are listed.
  EXPECT_EQ(Lines(alone), (std::vector<std::string>{
                              "a holds IX table lock on runs (TABLE)",
                              "a holds X record lock (not gap) on runs PRIMARY id=1 (RECORD)",
                          }));
  EXPECT_EQ(Lines(both), (std::vector<std::string>{
                             "a holds IX table lock on runs (TABLE)",
                             "a holds X record lock (not gap) on runs PRIMARY id=1 (RECORD)",
                             "b holds IX table lock on runs (TABLE)",
                             "b awaits X record lock (not gap) on runs PRIMARY id=1 (RECORD)",
                         }));
}

// A monitor user with PROCESS (it reads INNODB_TRX) but not the right to SET GLOBAL, on a server
// whose innodb_status_output_locks is OFF: only what INNODB_LOCKS lists, and a note saying so.
TEST_F(MariaDbLocksTest, WithoutTheRightToSwitchLockOutputOnOnlyAwaitedAndBlockingLocks) {
  const mariadb::ConnectTarget root = Root();
  testing::RootQuery(root, "CREATE USER IF NOT EXISTS 'lockview'@'localhost' IDENTIFIED BY 'lv'");
  testing::RootQuery(root, "GRANT PROCESS ON *.* TO 'lockview'@'localhost'");
  testing::RootQuery(root, "SET GLOBAL innodb_status_output_locks = OFF");
  mariadb::ConnectTarget viewer = root;
  viewer.user = "lockview";
  viewer.password = "lv";
  {
    Result<std::unique_ptr<mariadb::MariaWaitMonitor>> m = mariadb::MariaWaitMonitor::Open(
        viewer, std::chrono::microseconds(2000), In(10000), nullptr);
    ASSERT_TRUE(m.ok()) << m.status().message();
    LockSnapshot alone, both;
    HoldThenWait(m->get(), &alone, &both);
    EXPECT_EQ(alone.method, "INNODB_LOCKS");
    EXPECT_THAT(alone.note, HasSubstr("only the locks someone waits for"));
    EXPECT_THAT(alone.note, HasSubstr("1227")) << "the server's refusal: access denied";
    EXPECT_TRUE(alone.locks.empty()) << "a lone holder's lock is not in INNODB_LOCKS";
    EXPECT_EQ(Lines(both), (std::vector<std::string>{
                               "a holds X record lock on runs PRIMARY 1 (RECORD)",
                               "b awaits X record lock on runs PRIMARY 1 (RECORD)",
                           }));
  }
  EXPECT_EQ(testing::RootQuery(root, "SELECT @@GLOBAL.innodb_status_output_locks"), "0")
      << "a monitor that did not switch it on leaves it as it was";
  testing::RootQuery(root, "SET GLOBAL innodb_status_output_locks = ON");
  testing::RootQuery(root, "DROP USER 'lockview'@'localhost'");
}

// A monitor that switched innodb_status_output_locks ON puts it back OFF when it closes.
TEST_F(MariaDbLocksTest, AMonitorThatSwitchedLockOutputOnPutsItBack) {
  const mariadb::ConnectTarget root = Root();
  testing::RootQuery(root, "SET GLOBAL innodb_status_output_locks = OFF");
  {
    Result<std::unique_ptr<WaitMonitor>> m =
        engine_->OpenMonitor(std::chrono::microseconds(2000), In(10000), nullptr);
    ASSERT_TRUE(m.ok()) << m.status().message();
    LockSnapshot alone, both;
    HoldThenWait(m->get(), &alone, &both);
    EXPECT_EQ(alone.method, "SHOW ENGINE INNODB STATUS");
    EXPECT_EQ(Lines(alone).size(), 2u);
    EXPECT_EQ(testing::RootQuery(root, "SELECT @@GLOBAL.innodb_status_output_locks"), "1");
  }
  EXPECT_EQ(testing::RootQuery(root, "SELECT @@GLOBAL.innodb_status_output_locks"), "0");
  testing::RootQuery(root, "SET GLOBAL innodb_status_output_locks = ON");
}

// --keep's command line (Engine::ClientCommand) connects as the embedded server's root, with no
// password, to the named database.
TEST_F(MariaDbLocksTest, TheClientCommandConnectsToTheWorkspace) {
  const std::string command = engine_->ClientCommand(ws_);
  EXPECT_EQ(command.find("password"), std::string::npos) << command;
  EXPECT_EQ(engine_->ClientConnectionString(ws_).find("password"), std::string::npos);
  FILE* p = popen((command + " -N -B -e 'SELECT status FROM runs' 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p) != nullptr) out += buf;
  EXPECT_EQ(pclose(p), 0) << command << ": " << out;
  EXPECT_EQ(out, "queued\n") << command;
}

}  // namespace
}  // namespace racelab
