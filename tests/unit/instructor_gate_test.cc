// The instructor's gate (harness/run/instructor_gate.h): nothing runs until the controller releases
// it, Next() follows the default order (file order of the held sessions) or a given order, NextOf()
// goes out of turn, a held trial is paused (its clock stands still), a hold has a deadline
// of its own, and a stop ends a held trial at once. On the scripted FakeEngine (tests/unit/fake/).
#include "harness/run/instructor_gate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "tests/unit/fake/fake_run.h"

namespace racelab {
namespace {

using fake::FakeEngine;
using fake::FakeScript;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Kind = TrialEvent::Kind;

// a claims, meets b, waits until b is seen blocked, then commits; b's claim waits for a's COMMIT.
constexpr char kHoldWait[] = R"(name: fake-hold-wait
title: Hold and wait
teaches: b waits for a.
setup: CREATE TABLE runs (id int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE runs SET id = 1", name: claim }
      - barrier: locked
      - await_blocked: b
      - { commit: , name: commit }
  - name: b
    steps:
      - barrier: locked
      - { begin: , name: begin }
      - { sql: "UPDATE runs SET id = 2", name: claim }
      - { commit: , name: commit }
)";

// A trial run on its own thread with the instructor's gate; the test is the controller.
class Walk {
 public:
  Walk(const PlanItem& item, std::vector<InstructorStep> order, RunOptions options = {})
      : engine_(Script()) {
    options.engine = &engine_;
    options.stop = &stop_;
    options.subscriber = [this](const TrialEvent& e) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(e);
      cv_.notify_all();
    };
    options.gate = [this, order](const GateSetup& setup) {
      auto gate = std::make_unique<InstructorGate>(setup, order);
      gate_ = gate.get();
      clock_ = setup.clock;
      return gate;
    };
    run_ = std::async(std::launch::async, [this, options, &item] {
      Runner runner(options);
      fake::FakeRun out;
      out.status = runner.RunItem(item, &out.trials);
      return out;
    });
  }
  ~Walk() {
    stop_.RequestStop();
    if (run_.valid()) run_.wait();
  }

  static FakeScript Script() {
    FakeScript script;
    script.On("b", "UPDATE").Blocks("a", "COMMIT");
    return script;
  }

  // Waits (5 s at most) until session/step is held at the gate.
  bool AwaitHeld(const std::string& session, const std::string& step) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] {
      for (size_t i = seen_; i < events_.size(); ++i) {
        if (events_[i].kind == Kind::kGateHeld && events_[i].session == session &&
            events_[i].step == step) {
          seen_ = i + 1;
          return true;
        }
      }
      return false;
    });
  }
  fake::FakeRun Result() { return run_.get(); }
  InstructorGate* gate() { return gate_.load(); }
  TrialClock* clock() { return clock_.load(); }
  FakeEngine& engine() { return engine_; }
  StopFlag& stop() { return stop_; }

 private:
  FakeEngine engine_;
  StopFlag stop_;
  std::atomic<InstructorGate*> gate_{nullptr};
  std::atomic<TrialClock*> clock_{nullptr};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<TrialEvent> events_;  // guarded by mu_
  size_t seen_ = 0;                 // guarded by mu_
  std::future<fake::FakeRun> run_;
};

TEST(InstructorGateTest, NothingRunsUntilReleasedAndNextFollowsTheHeldSessionsFileOrder) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  Walk walk(items[0], {});
  ASSERT_TRUE(walk.AwaitHeld("a", "begin"));
  EXPECT_TRUE(walk.clock()->paused());  // a hold on purpose pauses the trial
  for (const fake::FakeExec& e : walk.engine().log()) EXPECT_NE(e.session, "a") << e.sql;
  EXPECT_EQ(walk.gate()->NextInOrder(), 0);
  EXPECT_EQ(walk.gate()->Next(), 0);
  ASSERT_TRUE(walk.AwaitHeld("a", "claim"));
  walk.gate()->Next();
  ASSERT_TRUE(walk.AwaitHeld("b", "begin"));  // a passed the barrier with b, then awaits b's wait
  EXPECT_EQ(walk.gate()->NextInOrder(), 1);
  walk.gate()->Next();
  ASSERT_TRUE(walk.AwaitHeld("b", "claim"));
  walk.gate()->Next();                         // b blocks on a; a sees it and comes to its commit
  ASSERT_TRUE(walk.AwaitHeld("a", "commit"));  // only a is held: b waits on a's lock
  EXPECT_THAT(walk.engine().blocked(), ElementsAre("b"));
  walk.gate()->Next();
  ASSERT_TRUE(walk.AwaitHeld("b", "commit"));
  walk.gate()->Next();
  fake::FakeRun run = walk.Result();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  ASSERT_EQ(run.trials.size(), 1u);
  EXPECT_EQ(run.trials[0].error, "");
  EXPECT_FALSE(run.trials[0].deadline_exceeded);
  std::vector<std::string> steps;
  for (const StepEvent& ev : run.trials[0].events) {
    if (ev.kind != StepKind::kBarrier && ev.kind != StepKind::kAwaitBlocked)
      steps.push_back(ev.session + "." + ev.step);
  }
  EXPECT_THAT(steps,
              ElementsAre("a.begin", "a.claim", "b.begin", "b.claim", "a.commit", "b.commit"));
}

TEST(InstructorGateTest, AnOrderIsFollowedAndAStepRunOutOfTurnIsPassedOver) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  // a.begin, a.claim, b.begin, b.claim, a.commit, b.commit as (session, step index).
  Walk walk(items[0], {{0, 0}, {0, 1}, {1, 1}, {1, 2}, {0, 4}, {1, 3}});
  ASSERT_TRUE(walk.AwaitHeld("a", "begin"));
  walk.gate()->Next();
  ASSERT_TRUE(walk.AwaitHeld("a", "claim"));
  walk.gate()->NextOf(0);  // a's claim out of turn: the order's next entry passes over it
  ASSERT_TRUE(walk.AwaitHeld("b", "begin"));
  EXPECT_EQ(walk.gate()->NextInOrder(), 1);
  EXPECT_EQ(walk.gate()->Next(), 1);  // b.begin
  ASSERT_TRUE(walk.AwaitHeld("b", "claim"));
  // Next() before the step arrives: it goes when it gets there.
  EXPECT_EQ(walk.gate()->Next(), 1);  // b.claim
  EXPECT_EQ(walk.gate()->Next(), 0);  // a.commit, granted before a reached it
  ASSERT_TRUE(walk.AwaitHeld("b", "commit"));
  walk.gate()->Next();
  fake::FakeRun run = walk.Result();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_EQ(run.trials.at(0).error, "");
}

TEST(InstructorGateTest, AHoldEndsByItsDeadline) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  RunOptions o;
  o.gate_hold_timeout_ms = 50;
  Walk walk(items[0], {}, o);
  fake::FakeRun run = walk.Result();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_TRUE(run.trials.at(0).deadline_exceeded);
  EXPECT_THAT(run.trials.at(0).error, HasSubstr("held at the gate for longer than the hold"));
}

TEST(InstructorGateTest, AStopEndsAHeldTrialAtOnce) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  Walk walk(items[0], {});
  ASSERT_TRUE(walk.AwaitHeld("a", "begin"));
  const auto t0 = std::chrono::steady_clock::now();
  walk.stop().RequestStop();
  fake::FakeRun run = walk.Result();
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("interrupted"));
  EXPECT_LT(took, std::chrono::milliseconds(500));
}

TEST(InstructorGateTest, TheScenariosOwnWaitsAreNotHeld) {
  PlannedStep step;
  step.kind = StepKind::kBarrier;
  EXPECT_FALSE(InstructorGate::Holds(step));
  step.kind = StepKind::kAwaitBlocked;
  EXPECT_FALSE(InstructorGate::Holds(step));
  step.kind = StepKind::kSleep;
  EXPECT_FALSE(InstructorGate::Holds(step));
  for (StepKind k : {StepKind::kBegin, StepKind::kSql, StepKind::kCommit, StepKind::kRollback,
                     StepKind::kProbe, StepKind::kTerminate}) {
    step.kind = k;
    EXPECT_TRUE(InstructorGate::Holds(step));
  }
}

}  // namespace
}  // namespace racelab
