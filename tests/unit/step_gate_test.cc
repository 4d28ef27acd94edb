// Step gates (harness/run/step_gate.h): the ordered gate's hand-overs and its "cannot go on", and a
// gate that holds a step on purpose — a paused trial, which does not pass its deadline, while every
// statement keeps its own. On the scripted FakeEngine (tests/unit/fake/), no server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "harness/run/ordered_gate.h"
#include "harness/run/trial_events.h"
#include "tests/unit/fake/fake_run.h"

namespace racelab {
namespace {

using fake::EventLog;
using fake::FakeEngine;
using fake::FakeScript;
using ::testing::HasSubstr;
using Kind = TrialEvent::Kind;

constexpr char kTwo[] = R"(name: fake-order
title: Two sessions in an order
teaches: b waits for a.
setup: CREATE TABLE t (k int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE t SET k = 1", name: write }
      - { commit: , name: commit, timeout_ms: 200 }
  - name: b
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE t SET k = 2", name: write }
      - { commit: , name: commit }
)";

std::string WithOrder(const std::string& steps) {
  return std::string(kTwo) + "order:\n  - [" + steps + "]\n";
}

FakeScript BWaitsForACommit() {
  FakeScript script;
  script.On("b", "UPDATE").Blocks("a", "COMMIT");
  return script;
}

// The order index of each step's start, in the stream.
std::vector<std::string> StartOrder(const std::vector<TrialEvent>& events) {
  std::vector<std::string> out;
  for (const TrialEvent& e : events) {
    if (e.kind == Kind::kStepStarted) out.push_back(e.session + "." + e.step);
  }
  return out;
}

TEST(OrderedGateTest, TheItemOfAnOrderGetsTheOrderedGateOthersTheFreeOne) {
  auto ordered =
      fake::PlanText(WithOrder("a.begin, a.write, b.begin, b.write, a.commit, b.commit"));
  auto free = fake::PlanText(kTwo);
  ASSERT_EQ(ordered.size(), 1u);
  ASSERT_EQ(free.size(), 1u);
  std::map<std::string, std::vector<ConnectionId>> pids{{"a", {{kServerNode, 1}}},
                                                        {"b", {{kServerNode, 2}}}};
  GateSetup setup{&ordered[0], 0, &pids, nullptr, nullptr, nullptr};
  EXPECT_EQ(MakeDefaultGate(setup)->name(), "ordered");
  setup.item = &free[0];
  EXPECT_EQ(MakeDefaultGate(setup)->name(), "free");
}

TEST(OrderedGateTest, AStepBlockedOnALockHandsOverOnceTheMonitorSeesItWaiting) {
  auto items =
      fake::PlanText(WithOrder("a.begin, a.write, b.begin, b.write, a.commit, b.commit"), 3);
  ASSERT_EQ(items.size(), 1u);
  FakeEngine engine(BWaitsForACommit());
  EventLog log;
  fake::FakeRun run = fake::RunOn(&engine, items[0], &log);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  ASSERT_EQ(run.trials.size(), 3u);
  for (const TrialResult& t : run.trials) {
    EXPECT_EQ(t.error, "");
    EXPECT_FALSE(t.deadline_exceeded);
  }
  std::vector<TrialEvent> first;
  for (const TrialEvent& e : log.events()) {
    if (e.trial == 0) first.push_back(e);
  }
  // The permutation's starts, in its order: b.write started (and waits) before a.commit.
  EXPECT_EQ(StartOrder(first), (std::vector<std::string>{"a.begin", "a.write", "b.begin", "b.write",
                                                         "a.commit", "b.commit"}));
}

TEST(OrderedGateTest, AnOrderThatCannotGoOnEndsTheTrialAndSaysWhy) {
  // b.commit waits for b.write, which waits for a.commit, which the order puts after b.commit: a's
  // commit gives up on b.commit after its own 200 ms, before b's write passes its 300 ms.
  auto items = fake::PlanText(WithOrder("a.begin, a.write, b.begin, b.write, b.commit, a.commit"));
  ASSERT_EQ(items.size(), 1u);
  FakeEngine engine(BWaitsForACommit());
  RunOptions options;
  options.statement_timeout_ms = 300;
  fake::FakeRun run = fake::RunOn(&engine, items[0], nullptr, options);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  ASSERT_EQ(run.trials.size(), 1u);
  const TrialResult& t = run.trials[0];
  EXPECT_THAT(t.error, HasSubstr("order: b/commit never started within 200 ms: b/write before it "
                                 "in session b is still waiting (seen waiting on a lock)"));
  EXPECT_TRUE(t.deadline_exceeded);
  EXPECT_TRUE(engine.blocked().empty());  // b's statement was cancelled when the trial ended
}

// Holds one step of one session on purpose for `hold` past the trial's original deadline — the
// instructor's gate in miniature; `pause` false holds it without pausing the trial (what a race's
// own wait is).
class HoldingGate final : public StepGate {
 public:
  HoldingGate(const GateSetup& setup, std::string session, std::string step, bool pause,
              std::chrono::milliseconds past_deadline)
      : setup_(setup),
        session_(std::move(session)),
        step_(std::move(step)),
        pause_(pause),
        past_(past_deadline) {}
  std::string name() const override { return "holding"; }
  GateAnswer AwaitTurn(const GateTurn& turn, const GateLimits& limits) override {
    if (turn.session->label != session_ || turn.step->name != step_) return {};
    // Held until this much past the trial's deadline as it stood when the hold began: without a
    // pause that instant is past the trial's deadline by construction.
    const SteadyTime until = limits.clock->deadline() + past_;
    Publish(Kind::kGateHeld, turn);
    {
      std::optional<TrialClock::PauseScope> paused;
      if (pause_) paused.emplace(limits.clock);
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, std::min(until, limits.hold_deadline), [&] { return abandoned_; });
    }
    Publish(Kind::kGateReleased, turn);
    return {};
  }
  void Started(const GateTurn&) override {}
  void Ended(const GateTurn&) override {}
  void Abandon() override {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_ = true;
    cv_.notify_all();
  }

 private:
  void Publish(Kind kind, const GateTurn& turn) {
    TrialEvent e;
    e.kind = kind;
    e.session_index = turn.session_index;
    e.session = turn.session->label;
    e.step = turn.step->name;
    setup_.events->Publish(std::move(e));
  }
  const GateSetup setup_;
  const std::string session_, step_;
  const bool pause_;
  const std::chrono::milliseconds past_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool abandoned_ = false;
};

RunOptions Holding(const std::string& session, const std::string& step, bool pause) {
  RunOptions o;
  o.trial_timeout_ms = 300;
  o.statement_timeout_ms = 5000;
  o.gate = [=](const GateSetup& setup) {
    return std::make_unique<HoldingGate>(setup, session, step, pause,
                                         std::chrono::milliseconds(100));
  };
  return o;
}

TEST(PausedTrialTest, AGateHoldingAStepPausesTheTrialInsteadOfPassingItsDeadline) {
  auto items = fake::PlanText(kTwo);
  FakeEngine engine(FakeScript{});
  EventLog log;
  fake::FakeRun run = fake::RunOn(&engine, items[0], &log, Holding("a", "commit", true));
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  const TrialResult& t = run.trials.at(0);
  EXPECT_EQ(t.error, "");
  EXPECT_FALSE(t.deadline_exceeded);
  EXPECT_GT(t.duration_us, 300 * 1000);  // longer than the trial's budget, paused in between
  const int held = log.Find(Kind::kGateHeld, "a", "commit");
  const int released = log.Find(Kind::kGateReleased, "a", "commit");
  ASSERT_GE(held, 0);
  EXPECT_GT(released, held);
  EXPECT_GT(log.Find(Kind::kStepStarted, "a", "commit"), released);
}

TEST(PausedTrialTest, TheSameHoldWithoutAPauseIsATrialPastItsDeadline) {
  auto items = fake::PlanText(kTwo);
  FakeEngine engine(FakeScript{});
  fake::FakeRun run = fake::RunOn(&engine, items[0], nullptr, Holding("a", "commit", false));
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  const TrialResult& t = run.trials.at(0);
  EXPECT_TRUE(t.deadline_exceeded);
  EXPECT_THAT(t.error, HasSubstr("the trial passed its deadline (300 ms) before step 'commit'"));
}

TEST(PausedTrialTest, AStatementWaitingDuringAPauseStillHasItsOwnDeadline) {
  // b's write waits for a's COMMIT while the gate holds a's commit, paused, far longer than b's
  // statement deadline: b's statement is cancelled at its own deadline, not the trial's.
  auto items = fake::PlanText(kTwo);
  FakeEngine engine(BWaitsForACommit());
  RunOptions o = Holding("a", "commit", true);
  o.statement_timeout_ms = 150;
  o.gate = [](const GateSetup& setup) {
    return std::make_unique<HoldingGate>(setup, "a", "commit", true,
                                         std::chrono::milliseconds(400));
  };
  fake::FakeRun run = fake::RunOn(&engine, items[0], nullptr, o);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  const TrialResult& t = run.trials.at(0);
  EXPECT_TRUE(t.deadline_exceeded);
  EXPECT_THAT(t.error, HasSubstr("b: step 'write' passed its deadline (150 ms) and was cancelled"));
  bool cancelled = false;
  for (const StepEvent& ev : t.events) {
    if (ev.session == "b" && ev.step == "write") cancelled = ev.cancelled_by_deadline;
  }
  EXPECT_TRUE(cancelled);
}

}  // namespace
}  // namespace racelab
