// The server's own lock-wait records: parsing jsonlog (harness/engines/postgresql/server_log.cc)
// and placing them on statements (harness/run/lock_waits.cc). The lines are PostgreSQL 15's, as
// written by the embedded cluster (log_lock_waits = on, deadlock_timeout = 1ms, log_timezone =
// UTC).
#include "harness/engines/postgresql/server_log.h"

#include <gtest/gtest.h>

#include <random>

#include "harness/run/lock_waits.h"

namespace racelab {
namespace {

using pg::ParseServerLog;

// 2026-11-30 15:54:41 UTC in µs since the epoch.
constexpr int64_t kSecond = 1796054081LL * 1000000;

const std::vector<std::string> kNaiveWait{
    R"({"timestamp":"2026-11-30 15:54:41.609 UTC","pid":21012,"ps":"UPDATE waiting","error_severity":"LOG",)"
    R"("message":"process 21012 still waiting for ShareLock on transaction 725 after 3.131 ms",)"
    R"("detail":"Process holding the lock: 21011. Wait queue: 21012.","statement":"UPDATE t SET v = 2",)"
    R"("application_name":"racelab:worker.2","backend_type":"client backend"})",
    R"({"timestamp":"2026-11-30 15:54:41.621 UTC","pid":21012,"error_severity":"LOG",)"
    R"("message":"process 21012 acquired ShareLock on transaction 725 after 15.112 ms",)"
    R"("statement":"UPDATE t SET v = 2","backend_type":"client backend"})",
    R"({"timestamp":"2026-11-30 15:54:41.700 UTC","pid":31000,"error_severity":"ERROR",)"
    R"("message":"canceling autovacuum task","backend_type":"autovacuum worker"})",
    "not json at all"};

TEST(ServerLog, ParsesAWaitWithItsStartDurationModeAndHolder) {
  ServerWaitBatch b = ParseServerLog(kNaiveWait);
  ASSERT_EQ(b.waits.size(), 1u);
  const ServerLockWait& w = b.waits[0];
  EXPECT_EQ(w.session_id, 21012);
  EXPECT_EQ(w.mode, "ShareLock");
  EXPECT_EQ(w.object, "transaction 725");
  EXPECT_EQ(w.wait_event, "transactionid");
  EXPECT_EQ(w.statement, "UPDATE t SET v = 2");
  ASSERT_TRUE(w.duration_us.has_value());
  EXPECT_EQ(*w.duration_us, 15112);
  EXPECT_EQ(w.holders, std::vector<int64_t>{21011});
  // Each record bounds the start: [logged − elapsed, logged + 1 ms − elapsed] (ms timestamps). The
  // "still waiting" record gives [41.605869, 41.606869] s, "acquired" [41.605888, 41.606888] s.
  EXPECT_EQ(w.start_lo_us, kSecond + 605888);
  EXPECT_EQ(w.start_hi_us, kSecond + 606869);
  EXPECT_EQ(b.session_kinds.at(31000), "autovacuum worker");
}

TEST(ServerLog, ADeadlockVictimAndAnUnendedWait) {
  std::vector<std::string> lines{
      R"({"timestamp":"2026-11-30 15:54:41.100 UTC","pid":7,"message":"process 7 detected deadlock while waiting for ShareLock on transaction 9 after 100.250 ms","detail":"Process holding the lock: 8. Wait queue: 7."})",
      R"({"timestamp":"2026-11-30 15:54:41.200 UTC","pid":8,"message":"process 8 still waiting for ExclusiveLock on advisory lock [5,0,1,1] after 1.001 ms","detail":"Processes holding the lock: 6, 7. Wait queue: 8."})"};
  ServerWaitBatch b = ParseServerLog(lines);
  ASSERT_EQ(b.waits.size(), 2u);
  EXPECT_TRUE(b.waits[0].deadlock);
  EXPECT_EQ(b.waits[0].duration_us, 100250);
  EXPECT_EQ(b.waits[1].wait_event, "advisory");
  EXPECT_FALSE(b.waits[1].duration_us.has_value()) << "lock_timeout or a cancel logs no end";
  EXPECT_EQ(b.waits[1].holders, (std::vector<int64_t>{6, 7}));
}

StepEvent Ev(const std::string& step, int64_t sent, int64_t completed, const std::string& sql) {
  StepEvent ev;
  ev.session = "worker.2";
  ev.step = step;
  ev.kind = StepKind::kSql;
  ev.sent_us = sent;
  ev.completed_us = completed;
  ev.sql = sql;
  return ev;
}

ConnectionId On(int64_t pid) { return {kServerNode, pid}; }

const internal::BackendNames kNames{
    {{On(21012), "worker.2"}, {On(21011), "worker.1"}, {On(5), "racelab:control"}},
    {{"worker.2", On(21012)}, {"worker.1", On(21011)}},
    {{On(31000), "autovacuum worker"}}};

// Item 3 of issue 6: a 0.44 ms SELECT, then the UPDATE that waits. A slow poll straddles both and
// pg_stat_activity's (older) text names the SELECT. The server's record puts the wait on the
// UPDATE, with the server's duration, and the poll joins it there — nothing is pinned on the
// SELECT.
TEST(ServerLockWaits, TheServersRecordPlacesTheWaitAndThePollFollows) {
  ServerWaitBatch b = ParseServerLog(kNaiveWait);
  const int64_t origin = kSecond + 600000;  // trial t = 0 at 41.600 s
  std::vector<StepEvent> events{Ev("read", 5000, 5440, "SELECT v FROM t"),
                                Ev("execute", 5500, 21900, "UPDATE t SET v = 2")};
  internal::AttributeServerLockWaits(b.waits, kServerNode, origin, kNames, &events);
  WaitObservation o;
  o.node = kServerNode;
  o.poll_sent_us = 4900;
  o.poll_received_us = 7000;
  o.session_id = 21012;
  o.wait_event = "transactionid";
  o.query = "SELECT v FROM t";
  internal::AttributeLockWaits({o}, kNames, &events);
  EXPECT_FALSE(events[0].lock_wait);
  ASSERT_TRUE(events[1].lock_wait);
  EXPECT_EQ(events[1].lock_wait_source, "server_log");
  EXPECT_EQ(events[1].lock_wait_us, 15112);
  EXPECT_DOUBLE_EQ(events[1].blocked_ms(), 15.112);
  EXPECT_GE(events[1].lock_wait_start_us, 5888);
  EXPECT_LE(events[1].lock_wait_start_us, 6869);
  EXPECT_LE(events[1].lock_wait_start_us + events[1].lock_wait_us, events[1].completed_us);
  EXPECT_EQ(events[1].blocked_by, std::vector<std::string>{"worker.1"});
  EXPECT_EQ(events[1].lock_mode, "ShareLock");
  EXPECT_EQ(events[1].lock_wait_first_seen_us, 5500) << "the poll's sample, clipped to the UPDATE";
}

// A wait the server logged while no statement of the session was in flight is nobody's.
TEST(ServerLockWaits, NeverOnAStatementThatWasNotInFlight) {
  ServerWaitBatch b = ParseServerLog(kNaiveWait);
  const int64_t origin = kSecond + 600000;
  std::vector<StepEvent> events{Ev("read", 0, 2000, "SELECT v FROM t"),
                                Ev("execute", 30000, 31000, "UPDATE t SET v = 2")};
  internal::AttributeServerLockWaits(b.waits, kServerNode, origin, kNames, &events);
  EXPECT_FALSE(events[0].lock_wait);
  EXPECT_FALSE(events[1].lock_wait) << "sent 23 ms after the server's wait began";
}

// Holders outside the scenario are named by their backend type.
TEST(ServerLockWaits, AnAutovacuumHolderIsNamed) {
  std::vector<std::string> lines{
      R"({"timestamp":"2026-11-30 15:54:41.610 UTC","pid":21012,"message":"process 21012 still waiting for AccessShareLock on relation 2606 of database 5 after 1.095 ms","detail":"Process holding the lock: 31000. Wait queue: 21012.","statement":"UPDATE t SET v = 2"})",
      R"({"timestamp":"2026-11-30 15:54:41.612 UTC","pid":21012,"message":"process 21012 acquired AccessShareLock on relation 2606 of database 5 after 2.856 ms"})"};
  internal::BackendNames names = kNames;
  std::vector<StepEvent> events{Ev("execute", 5500, 21900, "UPDATE t SET v = 2")};
  internal::AttributeServerLockWaits(ParseServerLog(lines).waits, kServerNode, kSecond + 600000,
                                     names, &events);
  ASSERT_TRUE(events[0].lock_wait);
  EXPECT_EQ(events[0].wait_event, "relation");
  EXPECT_EQ(events[0].blocked_by, std::vector<std::string>{"(autovacuum worker)"});
}

// Whatever the polls' timing, no statement is marked with a wait seen before it was sent or after
// it completed (item 3 of issue 6: lock_wait_first_seen_us < sent_us must be impossible).
TEST(PollLockWaits, FirstAndLastSeenStayInsideTheStatement) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<StepEvent> events;
    int64_t t = std::uniform_int_distribution<int64_t>(0, 3000)(rng);
    for (int i = 0; i < 3; ++i) {
      int64_t len = std::uniform_int_distribution<int64_t>(100, 5000)(rng);
      events.push_back(Ev("s" + std::to_string(i), t, t + len, "SELECT " + std::to_string(i)));
      t += len + std::uniform_int_distribution<int64_t>(10, 500)(rng);
    }
    std::vector<WaitObservation> obs;
    for (int i = 0; i < 3; ++i) {
      WaitObservation o;
      o.node = kServerNode;
      o.session_id = 21012;
      o.poll_sent_us = std::uniform_int_distribution<int64_t>(0, t)(rng);
      o.poll_received_us = o.poll_sent_us + std::uniform_int_distribution<int64_t>(50, 4000)(rng);
      o.query = "SELECT " + std::to_string(std::uniform_int_distribution<int>(0, 2)(rng));
      obs.push_back(o);
    }
    internal::AttributeLockWaits(obs, kNames, &events);
    for (const StepEvent& e : events) {
      if (!e.lock_wait) continue;
      EXPECT_GE(e.lock_wait_first_seen_us, e.sent_us) << "round " << round;
      EXPECT_LE(e.lock_wait_last_seen_us, e.completed_us) << "round " << round;
      EXPECT_GE(e.lock_wait_start_us, e.sent_us) << "round " << round;
      EXPECT_EQ(e.lock_wait_source, "poll");
    }
  }
}

}  // namespace
}  // namespace racelab
