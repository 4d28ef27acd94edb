// The trial as a stream of events (harness/run/trial_events.h) and its clock
// (harness/run/trial_clock.h): the stream folded is the runner's record, waits arrive live, and a
// pause moves the trial's deadline by exactly the time paused. Runs on the scripted FakeEngine
// (tests/unit/fake/), no server.
#include <gtest/gtest.h>

#include <thread>

#include "harness/run/trial_clock.h"
#include "harness/run/trial_events.h"
#include "tests/unit/fake/fake_run.h"

namespace racelab {
namespace {

using fake::EventLog;
using fake::FakeEngine;
using fake::FakeScript;
using Kind = TrialEvent::Kind;

TEST(TrialClockTest, WithoutAPauseTheDeadlineIsFixed) {
  TrialClock clock;
  const SteadyTime origin = std::chrono::steady_clock::now();
  clock.Start(origin, std::chrono::milliseconds(500));
  EXPECT_EQ(clock.deadline(), origin + std::chrono::milliseconds(500));
  const SteadyTime before = std::chrono::steady_clock::now();
  const SteadyTime in100 = clock.DeadlineIn(100);
  EXPECT_GE(in100, before + std::chrono::milliseconds(100));
  EXPECT_LE(in100, std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
  EXPECT_EQ(clock.DeadlineIn(100000), origin + std::chrono::milliseconds(500));
  EXPECT_FALSE(clock.paused());
  EXPECT_EQ(clock.paused_for().count(), 0);
}

TEST(TrialClockTest, APauseMovesTheDeadlineByTheTimePaused) {
  TrialClock clock;
  const SteadyTime origin = std::chrono::steady_clock::now() - std::chrono::milliseconds(400);
  clock.Start(origin, std::chrono::milliseconds(500));  // 100 ms left
  {
    TrialClock::PauseScope outer(&clock);
    TrialClock::PauseScope inner(&clock);  // a second session held at the same time
    EXPECT_TRUE(clock.paused());
    // However long the pause lasts, it never runs out: the budget left is counted from now.
    EXPECT_GT(clock.deadline(), std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a pause µs can measure
  }
  EXPECT_FALSE(clock.paused());
  const auto paused = clock.paused_for();
  EXPECT_GT(paused.count(), 0);
  const auto moved = clock.deadline() - (origin + std::chrono::milliseconds(500));
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(moved), paused);
  EXPECT_THROW(clock.Resume(), std::logic_error);
}

StepEvent Step(const std::string& session, const std::string& step, int64_t sent_us) {
  StepEvent ev;
  ev.session = session;
  ev.step = step;
  ev.sent_us = sent_us;
  return ev;
}

TrialEvent Ended(int session_index, StepEvent ev) {
  TrialEvent e;
  e.kind = Kind::kStepEnded;
  e.session_index = session_index;
  e.session = ev.session;
  e.step = ev.step;
  e.ended = std::move(ev);
  return e;
}

TEST(TrialEventsTest, FoldOrdersStepsBySendTimeThenSessionThenTheirOwnOrder) {
  TrialEvents events;
  // Published as they ended; b's step and a's second step were sent at the same µs.
  events.Publish(Ended(1, Step("b", "x", 10)));
  events.Publish(Ended(0, Step("a", "one", 5)));
  TrialEvent waiting;
  waiting.kind = Kind::kWaiting;
  events.Publish(waiting);  // no step: not in the fold
  events.Publish(Ended(0, Step("a", "two", 10)));
  events.Publish(Ended(0, Step("a", "three", 10)));
  std::vector<StepEvent> steps = FoldSteps(events.events());
  std::vector<std::string> names;
  for (const auto& s : steps) names.push_back(s.session + "." + s.step);
  EXPECT_EQ(names, (std::vector<std::string>{"a.one", "a.two", "a.three", "b.x"}));
}

TEST(TrialEventsTest, SubscribersSeeEveryEventOnceInPublishOrder) {
  TrialEvents events;
  std::vector<int> seen;  // written by the subscriber, under the stream's delivery lock
  events.Subscribe([&seen](const TrialEvent& e) { seen.push_back(e.attempt); });
  auto publish = [&events](int session) {
    for (int i = 0; i < 200; ++i) {
      TrialEvent e;
      e.session_index = session;
      e.attempt = session * 1000 + i;
      events.Publish(std::move(e));
    }
  };
  std::thread t1(publish, 1), t2(publish, 2);
  t1.join();
  t2.join();
  const std::vector<TrialEvent> all = events.events();
  ASSERT_EQ(all.size(), 400u);
  ASSERT_EQ(seen.size(), 400u);
  int last[3] = {-1, -1, -1};
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(seen[i], all[i].attempt);  // the subscriber saw the record's order
    const int s = all[i].session_index;
    EXPECT_GT(all[i].attempt, last[s]);  // each publisher's events in its own order
    last[s] = all[i].attempt;
  }
}

// a claims, meets b, waits until the monitor sees b blocked on it, then commits; b's claim waits
// for a's COMMIT (the fake's script).
constexpr char kHoldWait[] = R"(name: fake-hold-wait
title: Hold and wait
teaches: b waits for a.
setup: CREATE TABLE runs (id int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - begin
      - { sql: "UPDATE runs SET id = 1", name: claim }
      - barrier: locked
      - await_blocked: b
      - { commit: , name: commit }
  - name: b
    steps:
      - barrier: locked
      - begin
      - { sql: "UPDATE runs SET id = 2", name: claim }
      - { commit: , name: commit }
)";

FakeScript HoldWaitScript() {
  FakeScript script;
  script.On("b", "UPDATE").Blocks("a", "COMMIT");
  return script;
}

TEST(RunnerStreamTest, TheRecordIsTheStreamFoldedAndWaitsArriveLive) {
  auto items = fake::PlanText(kHoldWait, 2);
  ASSERT_EQ(items.size(), 1u);
  FakeEngine engine(HoldWaitScript());
  EventLog log;
  fake::FakeRun run = fake::RunOn(&engine, items[0], &log);
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  ASSERT_EQ(run.trials.size(), 2u);
  const std::vector<TrialEvent> all = log.events();
  for (int t = 0; t < 2; ++t) {
    const TrialResult& trial = run.trials[static_cast<size_t>(t)];
    EXPECT_EQ(trial.error, "");
    EXPECT_FALSE(trial.deadline_exceeded);
    std::vector<TrialEvent> mine;
    for (const TrialEvent& e : all) {
      if (e.trial == t) mine.push_back(e);
    }
    ASSERT_FALSE(mine.empty());
    EXPECT_EQ(mine.front().kind, Kind::kTrialStarted);
    EXPECT_EQ(mine.back().kind, Kind::kTrialEnded);
    // The runner's record agrees with the stream folded, step for step.
    std::vector<StepEvent> folded = FoldSteps(mine);
    ASSERT_EQ(folded.size(), trial.events.size());
    for (size_t i = 0; i < folded.size(); ++i) {
      EXPECT_EQ(folded[i].session + "." + folded[i].step,
                trial.events[i].session + "." + trial.events[i].step);
      EXPECT_EQ(folded[i].sent_us, trial.events[i].sent_us);
      EXPECT_EQ(folded[i].completed_us, trial.events[i].completed_us);
    }
    // Every step that ended had started, in the same session, before it ended.
    int started = 0, ended = 0;
    for (const TrialEvent& e : mine) {
      started += e.kind == Kind::kStepStarted;
      ended += e.kind == Kind::kStepEnded;
    }
    EXPECT_EQ(started, ended);
    EXPECT_EQ(ended,
              9);  // a: begin claim barrier await_blocked commit; b: barrier begin claim commit
  }
  // Live: b's wait was published before a's commit started (a commits only after seeing it), and
  // b's claim ended after a's commit started.
  auto index = [&](Kind kind, const std::string& session, const std::string& step) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].trial == 0 && all[i].kind == kind && all[i].session == session &&
          all[i].step == step)
        return static_cast<int>(i);
    }
    return -1;
  };
  int waiting = -1;
  for (size_t i = 0; i < all.size() && waiting < 0; ++i) {
    if (all[i].trial == 0 && all[i].kind == Kind::kWaiting) waiting = static_cast<int>(i);
  }
  const int commit = index(Kind::kStepStarted, "a", "commit");
  const int claimed = index(Kind::kStepEnded, "b", "claim");
  ASSERT_GE(waiting, 0);
  ASSERT_GE(commit, 0);
  EXPECT_LT(waiting, commit);
  EXPECT_LT(commit, claimed);
  ASSERT_TRUE(all[static_cast<size_t>(waiting)].wait.has_value());
  EXPECT_EQ(all[static_cast<size_t>(waiting)].wait->wait_event, "fake");
  // The record attributes the wait to b's claim (harness/run/lock_waits.h).
  bool b_waited = false;
  for (const StepEvent& ev : run.trials[0].events) {
    if (ev.session == "b" && ev.step == "claim") b_waited = ev.lock_wait;
  }
  EXPECT_TRUE(b_waited);
}

}  // namespace
}  // namespace racelab
