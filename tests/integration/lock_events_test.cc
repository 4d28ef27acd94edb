// The trial event stream on the embedded PostgreSQL (harness/run/trial_events.h): the monitor's
// waits arrive live — before the step that acts on having seen them starts — and the lock snapshots
// (RunOptions::lock_snapshots, pg_locks) show what the server holds and awaits: a's transaction
// lock held, b awaiting it, matching the wait the monitor saw.
#include <gtest/gtest.h>

#include <mutex>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/run/runner.h"
#include "tests/integration/pg_test_env.h"

namespace racelab::testing {
namespace {

using Kind = TrialEvent::Kind;

TEST(LockWaits, TheEventStreamShowsWaitsLiveAndTheLocksHeldAndAwaited) {
  auto scenario =
      LoadScenarioFile(std::string(RACELAB_SOURCE_DIR) + "/scenarios/lock-hold-wait.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  PlanOptions po;
  po.trials = 3;
  po.isolation = {IsolationLevel::kReadCommitted};
  po.set = {{"hold_ms", "50"}};
  auto items = ExpandScenario(*scenario, po);
  ASSERT_TRUE(items.ok()) << items.status().message();
  std::unique_ptr<Engine> engine = TestEngine();
  ASSERT_NE(engine, nullptr);
  std::mutex mu;
  std::vector<TrialEvent> seen;  // guarded by mu
  RunOptions ro;
  ro.engine = engine.get();
  ro.statement_timeout_ms = 20000;
  ro.trial_timeout_ms = 60000;
  ro.lock_snapshots = true;
  ro.subscriber = [&](const TrialEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(e);
  };
  Runner runner(ro);
  std::vector<TrialResult> trials;
  Status s = runner.RunItem(items->at(0), &trials);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(trials.size(), 3u);
  std::lock_guard<std::mutex> lock(mu);
  for (int t = 0; t < 3; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    EXPECT_EQ(trials[static_cast<size_t>(t)].error, "");
    int waiting = -1, hold = -1;
    const TrialEvent* after_await = nullptr;  // the snapshot after a saw b waiting
    for (size_t i = 0; i < seen.size(); ++i) {
      const TrialEvent& e = seen[i];
      if (e.trial != t) continue;
      if (e.kind == Kind::kWaiting && waiting < 0) waiting = static_cast<int>(i);
      if (e.kind == Kind::kStepStarted && e.session == "a" && e.step == "hold")
        hold = static_cast<int>(i);
      if (e.kind == Kind::kLockSnapshot && e.session == "a" &&
          e.step.rfind("await_blocked", 0) == 0)
        after_await = &e;
    }
    // Live: a holds only once the monitor saw b waiting, and the stream had that wait first.
    ASSERT_GE(waiting, 0);
    ASSERT_GE(hold, 0);
    EXPECT_LT(waiting, hold);
    const WaitObservation& w = *seen[static_cast<size_t>(waiting)].wait;
    EXPECT_EQ(w.wait_event, "transactionid");
    ASSERT_EQ(w.blocking.size(), 1u);
    // The locks: b (the waiter the monitor saw) awaits a transaction lock that a (its blocker)
    // holds — a's row lock, which pg_locks shows as a's transaction id.
    ASSERT_NE(after_await, nullptr);
    ASSERT_TRUE(after_await->locks.has_value()) << after_await->message;
    EXPECT_EQ(after_await->locks->method, "pg_locks");
    const SessionLock* awaited = nullptr;
    for (const SessionLock& l : after_await->locks->locks) {
      if (!l.granted) awaited = &l;
    }
    ASSERT_NE(awaited, nullptr);
    EXPECT_EQ(awaited->session_id, w.session_id);
    EXPECT_EQ(awaited->lock_type, "transactionid");
    EXPECT_EQ(awaited->mode, "ShareLock");
    bool held_by_blocker = false, table_lock = false;
    for (const SessionLock& l : after_await->locks->locks) {
      if (l.session_id != w.blocking[0] || !l.granted) continue;
      held_by_blocker =
          held_by_blocker || (l.object == awaited->object && l.mode == "ExclusiveLock");
      table_lock = table_lock || (l.lock_type == "relation" && l.mode == "RowExclusiveLock" &&
                                  l.object.find("runs") != std::string::npos);
    }
    EXPECT_TRUE(held_by_blocker) << awaited->object;
    EXPECT_TRUE(table_lock);  // the UPDATE's table lock, named, not an OID
  }
}

}  // namespace
}  // namespace racelab::testing
