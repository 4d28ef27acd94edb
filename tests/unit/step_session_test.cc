// Step mode's driver (harness/step/step_session.h) on the scripted FakeEngine (tests/unit/fake/):
// the view's states come from the event stream (b waiting for a while its statement is in flight,
// from the monitor's event, not from the step's end), the transcript follows isolationtester's
// form, Next(label) goes out of turn, and Reset() starts a new walk. What a real server shows (its
// locks, its lock types) is tested against embedded PostgreSQL
// (tests/integration/step_cli_test.cc).
#include "harness/step/step_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/fake/fake_run.h"
#include "tests/unit/step_walk_support.h"

namespace racelab::step {
namespace {

using fake::FakeEngine;
using fake::FakeScript;
using ::testing::Contains;
using ::testing::HasSubstr;
using walk_testing::In;
using walk_testing::Of;
using walk_testing::Step;

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
      - { sql: "UPDATE runs SET id = 2 RETURNING id", name: claim }
      - { commit: , name: commit }
)";

FakeScript Script() {
  FakeScript script;
  script.On("b", "UPDATE").Blocks("a", "COMMIT").Returns({"id"}, {{"2"}});
  return script;
}

StepOptions Options(FakeEngine* engine, const PlanItem& item) {
  StepOptions o;
  o.engine = engine;
  o.item = item;
  return o;
}

TEST(StepSessionTest, AWalkShowsTheWaitLiveAndTheResultAfterTheCommit) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  FakeEngine engine(Script());
  StepSession s(Options(&engine, items[0]));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  StepView v = s.view();
  EXPECT_EQ(v.next_session, "a");
  EXPECT_TRUE(Of(v, "a").at_gate);
  EXPECT_EQ(Of(v, "a").next_step, "begin");
  EXPECT_EQ(Of(v, "b").state, SessionState::kRunning);  // at its barrier, waiting for a
  EXPECT_EQ(Of(v, "b").running_what, "barrier locked");
  EXPECT_EQ(Of(v, "b").next_step, "begin");
  EXPECT_THAT(v.locks_note, HasSubstr("not available on this engine (fake)"));
  Step(&s);  // a.begin
  EXPECT_EQ(Of(s.view(), "a").state, SessionState::kInTransaction);
  Step(&s);  // a.claim
  v = s.view();
  EXPECT_EQ(Of(v, "a").last_result, "0 rows");
  EXPECT_EQ(v.next_session, "b");
  Step(&s);  // b.begin
  Step(&s);  // b.claim: waits for a
  v = s.view();
  EXPECT_EQ(Of(v, "b").state, SessionState::kWaiting);
  EXPECT_EQ(Of(v, "b").waiting_for, "a");
  EXPECT_EQ(Of(v, "b").wait_type, "fake");
  EXPECT_EQ(Of(v, "b").running_step, "claim");
  ASSERT_EQ(v.waits.size(), 1u);
  EXPECT_EQ(v.waits[0].waiter, "b");
  EXPECT_EQ(v.waits[0].holder, "a");
  EXPECT_EQ(v.next_session, "a");
  EXPECT_THAT(v.transcript, Contains("step b.claim: <waiting for a (fake)>"));
  Step(&s);  // a.commit: b's claim ends
  v = s.view();
  EXPECT_EQ(Of(v, "b").state, SessionState::kInTransaction);
  EXPECT_EQ(Of(v, "b").last_result, "1 row: 2");
  EXPECT_EQ(Of(v, "a").state, SessionState::kDone);
  EXPECT_TRUE(v.waits.empty());
  EXPECT_THAT(v.transcript, Contains("step b.claim: <... completed>"));
  Step(&s);  // b.commit
  for (uint64_t seen = 0; s.view().phase == StepView::Phase::kRunning;)
    seen = s.AwaitChange(seen, In(5000));
  v = s.view();
  EXPECT_EQ(v.phase, StepView::Phase::kFinished) << v.message;
  EXPECT_FALSE(s.Next().ok());  // the walk is over
  // a's COMMIT result and b's claim end race each other (b wakes on a's COMMIT): the lines of
  // each session in their order, the wait before a's commit and b's end after it.
  const std::vector<std::string> want = {"step a.begin: BEGIN",
                                         "  BEGIN",
                                         "step a.claim: UPDATE runs SET id = 1",
                                         "  0 rows",
                                         "step b.begin: BEGIN",
                                         "  BEGIN",
                                         "step b.claim: UPDATE runs SET id = 2 RETURNING id",
                                         "step b.claim: <waiting for a (fake)>",
                                         "step a.commit: COMMIT"};
  ASSERT_GE(v.transcript.size(), want.size() + 5);
  EXPECT_EQ(std::vector<std::string>(v.transcript.begin(), v.transcript.begin() + 9), want);
  const std::vector<std::string> rest(v.transcript.begin() + 9, v.transcript.end());
  EXPECT_THAT(rest, Contains("  COMMIT"));
  const std::vector<std::string> tail = {"step b.claim: <... completed>", "  1 row: 2"};
  EXPECT_THAT(rest, ::testing::IsSupersetOf(tail));
  EXPECT_EQ(v.transcript.back(), "  COMMIT");
  EXPECT_EQ(v.transcript[v.transcript.size() - 2], "step b.commit: COMMIT");
}

TEST(StepSessionTest, ASessionsKeyRunsItOutOfTurnAndResetStartsAgain) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  FakeEngine engine(Script());
  StepSession s(Options(&engine, items[0]));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  EXPECT_FALSE(s.Next("nobody").ok());
  int before = s.releases();
  ASSERT_TRUE(s.Next("a").ok());
  ASSERT_TRUE(s.AwaitQuiet(before, In(5000)));
  EXPECT_EQ(Of(s.view(), "a").last_step, "begin");
  ASSERT_TRUE(s.Reset().ok());
  const StepView v = s.view();
  EXPECT_EQ(v.walk, 2);
  EXPECT_EQ(Of(v, "a").next_step, "begin");
  EXPECT_EQ(Of(v, "a").last_step, "");
  EXPECT_GE(v.reset_ms, 0);
  EXPECT_LT(v.reset_ms, 1000);
}

TEST(StepSessionTest, APermutationNamesHeldStepsOnly) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  auto order = ParsePermutation(items[0], "a.begin b.begin a.claim");
  ASSERT_TRUE(order.ok()) << order.status().message();
  EXPECT_EQ(order.value().size(), 3u);
  EXPECT_EQ(order.value()[1].session_index, 1);
  EXPECT_EQ(order.value()[1].step_index, 1u);
  EXPECT_THAT(ParsePermutation(items[0], "c.begin").status().message(),
              HasSubstr("no session 'c'"));
  EXPECT_THAT(ParsePermutation(items[0], "a.locked").status().message(),
              HasSubstr("its steps: begin, claim, commit"));
  EXPECT_THAT(ParsePermutation(items[0], "a.begin a.begin").status().message(), HasSubstr("twice"));
}

// Waits until the typed statement has ended.
void AwaitTyped(StepSession* s) {
  for (uint64_t seen = 0; s->view().typed.running;) seen = s->AwaitChange(seen, In(5000));
}

TEST(StepSessionTest, TypedSqlRunsOnTheTeachersConnectionOrInsideAHeldSession) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  FakeScript script = Script();
  script.On("teacher", "SELECT v").Returns({"v"}, {{"7"}});
  script.On("a", "SELECT w").Returns({"w", "x"}, {{"8", std::nullopt}});
  script.On("teacher", "SELEC 1").Fails("42601", "syntax error at or near \"SELEC\"");
  FakeEngine engine(std::move(script));
  StepSession s(Options(&engine, items[0]));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  ASSERT_TRUE(s.RunTyped("", "  SELECT v FROM t ").ok());
  AwaitTyped(&s);
  EXPECT_EQ(s.view().typed.who, "teacher");
  EXPECT_EQ(s.view().typed.result, "1 row (v): 7");
  ASSERT_TRUE(s.RunTyped("", "SELEC 1").ok());
  AwaitTyped(&s);
  EXPECT_THAT(s.view().typed.result, HasSubstr("ERROR 42601"));
  Step(&s);  // a.begin: a waits at the gate for its claim
  ASSERT_TRUE(s.RunTyped("a", "SELECT w, x").ok());
  AwaitTyped(&s);
  StepView v = s.view();
  EXPECT_EQ(v.typed.who, "a.typed");
  EXPECT_EQ(v.typed.result, "1 row (w|x): 8|NULL");
  EXPECT_THAT(v.transcript, Contains("step a.typed: SELECT w, x"));
  EXPECT_THAT(v.transcript, Contains("  1 row (w|x): 8|NULL"));
  EXPECT_TRUE(Of(v, "a").at_gate);  // still held: the typed statement is no step
  EXPECT_EQ(Of(v, "a").next_step, "claim");
  // b waits at its barrier, not at the gate; a's own steps end its transaction; no session c.
  EXPECT_THAT(s.RunTyped("b", "SELECT 1").message(), HasSubstr("not waiting at the gate"));
  EXPECT_THAT(s.RunTyped("a", "commit").message(), HasSubstr("a's own steps"));
  EXPECT_THAT(s.RunTyped("c", "SELECT 1").message(), HasSubstr("no session 'c'"));
  EXPECT_THAT(s.RunTyped("", " ").message(), HasSubstr("type a statement"));
  Step(&s);  // the walk goes on: a.claim
  EXPECT_EQ(Of(s.view(), "a").last_step, "claim");
}

TEST(StepSessionTest, ATypedStatementThatWaitsShowsTheWaitEndsByItsDeadlineOrIsCancelled) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  FakeScript script = Script();
  script.On("teacher", "UPDATE").Blocks("a", "COMMIT");  // waits for a's transaction
  FakeEngine engine(std::move(script));
  StepOptions o = Options(&engine, items[0]);
  o.typed_timeout_ms = 300;
  StepSession s(std::move(o));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  ASSERT_TRUE(s.RunTyped("", "UPDATE runs SET id = 3").ok());
  // Seen waiting by the teacher's own monitor, for a: the walk is quiet again.
  for (uint64_t seen = 0; !s.TypedQuiet();) seen = s.AwaitChange(seen, In(5000));
  StepView v = s.view();
  EXPECT_TRUE(v.typed.running);
  EXPECT_EQ(v.typed.waiting_for, "a");
  EXPECT_THAT(v.transcript, Contains("step teacher: <waiting for a (fake)>"));
  EXPECT_THAT(s.RunTyped("", "SELECT 1").message(), HasSubstr("runs already"));
  AwaitTyped(&s);  // its deadline: cancelled
  v = s.view();
  EXPECT_EQ(v.typed.result,
            "ERROR 57014: canceling statement due to statement timeout (cancelled at the typed "
            "statement's deadline, 300 ms)");  // (the fake engine has no SQLSTATE names)
  EXPECT_THAT(v.transcript, Contains("step teacher: <... completed>"));
  // Cancelled by the teacher (Esc): at once.
  ASSERT_TRUE(s.RunTyped("", "UPDATE runs SET id = 4").ok());
  for (uint64_t seen = 0; !s.TypedQuiet();) seen = s.AwaitChange(seen, In(5000));
  EXPECT_TRUE(s.CancelTyped());
  // (A cancel that reaches the fake before it counts the statement as blocked is lost, as one
  // that reaches a server before the statement does: Esc again.)
  for (uint64_t seen = 0; s.view().typed.running;) {
    s.CancelTyped();
    seen = s.AwaitChange(seen, In(10));
  }
  EXPECT_EQ(s.view().typed.result, "ERROR 57014: canceling statement due to user request");
  EXPECT_FALSE(s.CancelTyped());  // nothing runs now
  // The trial's own waits are still seen live (the teacher's monitor is one of its own).
  Step(&s);  // a.begin
  Step(&s);  // a.claim
  Step(&s);  // b.begin
  Step(&s);  // b.claim: waits for a
  EXPECT_EQ(Of(s.view(), "b").waiting_for, "a");
  Step(&s);  // a.commit: b's claim ends (the fake's statements do not see the walk's stop)
}

TEST(StepSessionTest, SwitchLevelStartsANewWalkAtTheNextLevel) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  PlanItem rr = items[0];
  rr.isolation = IsolationLevel::kRepeatableRead;
  FakeEngine engine(Script());
  StepOptions o = Options(&engine, items[0]);
  o.levels = {items[0], rr};
  StepSession s(std::move(o));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  EXPECT_EQ(s.view().isolation, "read committed");
  EXPECT_EQ(s.level_names(), (std::vector<std::string>{"read committed", "repeatable read"}));
  Step(&s);
  ASSERT_TRUE(s.SwitchLevel("").ok());
  StepView v = s.view();
  EXPECT_EQ(v.isolation, "repeatable read");
  EXPECT_EQ(v.walk, 2);
  EXPECT_EQ(Of(v, "a").next_step, "begin");  // from the start
  ASSERT_TRUE(s.SwitchLevel("").ok());       // round to the first
  EXPECT_EQ(s.view().isolation, "read committed");
  ASSERT_TRUE(s.SwitchLevel("rr").ok());
  EXPECT_EQ(s.view().isolation, "repeatable read");
  ASSERT_TRUE(s.Reset().ok());  // b stays at the level
  EXPECT_EQ(s.view().isolation, "repeatable read");
  EXPECT_THAT(s.SwitchLevel("ser").message(),
              HasSubstr("runs at read committed, repeatable read on fake here, not at 'ser'"));
}

TEST(TypedResultTextTest, RowsTagsErrorsAndRefusals) {
  QueryResult rows;
  rows.rows = 7;
  rows.columns = {"id"};
  rows.values = {{"1"}, {"2"}};
  EXPECT_EQ(TypedResultText("postgresql", rows, 60000), "7 rows (id): 1; 2; …");
  QueryResult tag;
  tag.rows = 1;
  tag.command_tag = "UPDATE 1";
  EXPECT_EQ(TypedResultText("postgresql", tag, 60000), "UPDATE 1");
  tag.command_tag = "UPDATE";  // an engine whose tag is the verb
  EXPECT_EQ(TypedResultText("mariadb", tag, 60000), "UPDATE 1");
  QueryResult err;
  err.sqlstate = "57014";
  err.message = "canceling statement due to user request";
  err.cancelled_by_deadline = true;
  EXPECT_EQ(TypedResultText("postgresql", err, 60000),
            "ERROR 57014 query_canceled: canceling statement due to user request (cancelled at "
            "the typed statement's deadline, 60 s)");
  QueryResult refused;
  refused.refused = true;
  refused.message = "not run";
  EXPECT_EQ(TypedResultText("postgresql", refused, 60000), "not run");
}

TEST(StepViewModelTest, LocksAreADiffFromTheLookBefore) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  StepViewModel model(items[0], "postgresql", {{"", "", "", "", ""}, {"", "", "", ""}}, 1);
  model.SetConnections({{{kServerNode, 11}, "a"}, {{kServerNode, 12}, "b"}}, {kServerNode, 13}, "");
  LockSnapshot one;
  one.locks = {{11, "transactionid", "ExclusiveLock", "transaction 7", true},
               {11, "relation", "RowExclusiveLock", "runs", true},
               {13, "relation", "AccessShareLock", "pg_locks", true},  // the monitor's own look
               {11, "virtualxid", "ExclusiveLock", "1/2", true}};
  model.FoldLocks(one, "after a.claim");
  std::vector<std::string> lines;
  for (const LockLine& l : model.view().locks)
    lines.push_back(std::string(1, l.change) + " " + l.session + " " + l.mode);
  EXPECT_EQ(lines, (std::vector<std::string>{"+ a ExclusiveLock", "+ a RowExclusiveLock"}));
  LockSnapshot two;
  two.locks = {{11, "transactionid", "ExclusiveLock", "transaction 7", true},
               {12, "transactionid", "ShareLock", "transaction 7", false}};
  model.FoldLocks(two, "while b waits");
  lines.clear();
  for (const LockLine& l : model.view().locks)
    lines.push_back(std::string(1, l.change) + " " + l.session + " " + l.mode);
  EXPECT_EQ(lines, (std::vector<std::string>{"  a ExclusiveLock", "- a RowExclusiveLock",
                                             "+ b ShareLock"}));
  EXPECT_EQ(model.view().locks_after, "while b waits");
  EXPECT_THAT(model.view().transcript,
              Contains("  + b awaits ShareLock transaction 7 (transactionid)"));
}

// A poll can see b still waiting after a's COMMIT released it, with no blocker left (PostgreSQL's
// pg_blocking_pids is empty by then; stop 30's CI showed "after waiting for ?"): the holder seen
// before stays.
TEST(StepViewModelTest, AWaitSeenWithoutItsBlockerKeepsTheHolderSeenBefore) {
  auto items = fake::PlanText(kHoldWait);
  ASSERT_EQ(items.size(), 1u);
  StepViewModel model(items[0], "postgresql", {{"", "", "", "", ""}, {"", "", "", ""}}, 1);
  model.SetConnections({{{kServerNode, 11}, "a"}, {{kServerNode, 12}, "b"}}, {kServerNode, 13}, "");
  TrialEvent started;
  started.kind = TrialEvent::Kind::kStepStarted;
  started.session_index = 1;
  started.session = "b";
  started.step = "claim";
  started.at_us = 100;
  model.Fold(started);
  auto waiting = [](std::vector<int64_t> blocking, int64_t at_us) {
    TrialEvent e;
    e.kind = TrialEvent::Kind::kWaiting;
    e.at_us = at_us;
    e.wait = WaitObservation{};
    e.wait->poll_sent_us = at_us;
    e.wait->node = kServerNode;
    e.wait->session_id = 12;
    e.wait->wait_event = "transactionid";
    e.wait->blocking = std::move(blocking);
    return e;
  };
  EXPECT_TRUE(model.Fold(waiting({11}, 200)));
  EXPECT_EQ(Of(model.view(), "b").waiting_for, "a");
  EXPECT_FALSE(model.Fold(waiting({}, 300)));  // nothing new
  EXPECT_EQ(Of(model.view(), "b").waiting_for, "a");
  ASSERT_EQ(model.view().waits.size(), 1u);
  EXPECT_EQ(model.view().waits[0].holder, "a");
}

}  // namespace
}  // namespace racelab::step
