// Step mode's questions, labels and filled-in SQL (harness/step/step_view.h) on the scripted
// FakeEngine: a step's `ask:` is shown before the step runs (StepView::ask_next) and, once it ran,
// with what happened (StepView::asked: the asked session's wait or result, and the other sessions'
// changes) until the next key; the transcript has an `ask` line before the step's line; a step
// without a `name:` is labelled by what it does (BEGIN, UPDATE runs) while the transcript keeps
// its name (--permutation's word); a ${capture} is shown filled in once captured.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/step/step_session.h"
#include "tests/unit/fake/fake_run.h"
#include "tests/unit/step_walk_support.h"

namespace racelab::step {
namespace {

using fake::FakeEngine;
using fake::FakeScript;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using walk_testing::In;
using walk_testing::Of;
using walk_testing::Step;

constexpr char kAsked[] = R"(name: fake-ask
title: Questions
teaches: b waits for a.
setup: CREATE TABLE runs (id int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - begin
      - { sql: "SELECT 30 AS total", name: read, capture: [total] }
      - { sql: "UPDATE runs SET id = ${total}", ask: "Will a's UPDATE wait?" }
      - barrier: locked
      - await_blocked: b
      - { commit: , ask: "a commits: does b go on?" }
  - name: b
    steps:
      - barrier: locked
      - begin
      - { sql: "UPDATE runs SET id = 2 RETURNING id", name: claim, ask: "Will b wait for a?" }
      - commit
)";

TEST(StepAskTest, TheQuestionComesBeforeTheStepAndWhatHappenedAfter) {
  auto items = fake::PlanText(kAsked);
  ASSERT_EQ(items.size(), 1u);
  FakeScript script;
  script.On("a", "SELECT").Returns({"total"}, {{"30"}});
  script.On("b", "UPDATE").Blocks("a", "COMMIT").Returns({"id"}, {{"2"}});
  FakeEngine engine(std::move(script));
  StepOptions o;
  o.engine = &engine;
  o.item = items[0];
  StepSession s(std::move(o));
  ASSERT_TRUE(s.AwaitQuiet(-1, In(5000)));
  StepView v = s.view();
  // Labels: the scenario's name, else what the step does; the name stays the step's identity.
  EXPECT_EQ(Of(v, "a").next_step, "begin1");
  EXPECT_EQ(Of(v, "a").next_label, "BEGIN");
  EXPECT_TRUE(v.ask_next.session.empty());
  Step(&s);  // a.begin1
  EXPECT_EQ(Of(s.view(), "a").last_label, "BEGIN");
  EXPECT_EQ(Of(s.view(), "a").next_label, "read");
  Step(&s);  // a.read: captures total = 30
  v = s.view();
  EXPECT_EQ(Of(v, "a").next_step, "sql3");
  EXPECT_EQ(Of(v, "a").next_label, "UPDATE runs");
  EXPECT_EQ(Of(v, "a").next_sql, "UPDATE runs SET id = 30");  // the capture filled in
  EXPECT_EQ(Of(v, "a").next_ask, "Will a's UPDATE wait?");
  EXPECT_EQ(v.ask_next.session, "a");
  EXPECT_EQ(v.ask_next.step, "sql3");
  EXPECT_EQ(v.ask_next.step_label, "UPDATE runs");
  EXPECT_EQ(v.ask_next.question, "Will a's UPDATE wait?");
  EXPECT_TRUE(v.asked.session.empty());
  Step(&s);  // a.sql3
  v = s.view();
  EXPECT_EQ(v.asked.step, "sql3");
  EXPECT_THAT(v.asked.answer, ElementsAre("a: UPDATE runs → 0 rows"));
  const auto ask_line =
      std::find(v.transcript.begin(), v.transcript.end(), "ask a.sql3: Will a's UPDATE wait?");
  ASSERT_NE(ask_line, v.transcript.end());
  ASSERT_NE(ask_line + 1, v.transcript.end());
  EXPECT_EQ(*(ask_line + 1), "step a.sql3: UPDATE runs SET id = 30");  // the SQL as sent
  EXPECT_TRUE(v.ask_next.session.empty());  // b.begin2 is next: it asks nothing
  Step(&s);                                 // b.begin2: the next key closes a's question
  v = s.view();
  EXPECT_TRUE(v.asked.session.empty());
  EXPECT_EQ(v.ask_next.session, "b");
  EXPECT_EQ(v.ask_next.question, "Will b wait for a?");
  Step(&s);  // b.claim: waits for a
  v = s.view();
  EXPECT_EQ(v.asked.session, "b");
  EXPECT_THAT(v.asked.answer, ElementsAre("b is waiting for a (fake)"));
  EXPECT_EQ(v.ask_next.step, "commit6");  // a's next, at the gate after its await_blocked
  EXPECT_EQ(v.ask_next.step_label, "COMMIT");
  Step(&s);  // a.commit6: b's claim ends
  v = s.view();
  EXPECT_EQ(v.asked.step, "commit6");
  EXPECT_THAT(v.asked.answer,
              ElementsAre("a: COMMIT", "b: claim → 1 row: 2 (after waiting for a)"));
  EXPECT_TRUE(v.ask_next.session.empty());  // b's commit asks nothing
  Step(&s);                                 // b.commit4
  for (uint64_t seen = 0; s.view().phase == StepView::Phase::kRunning;)
    seen = s.AwaitChange(seen, In(5000));
  v = s.view();
  EXPECT_EQ(v.phase, StepView::Phase::kFinished) << v.message;
  EXPECT_THAT(v.asked.answer, IsEmpty());
  EXPECT_EQ(Of(v, "b").last_label, "COMMIT");
  EXPECT_EQ(Of(v, "b").last_step, "commit4");
}

}  // namespace
}  // namespace racelab::step
