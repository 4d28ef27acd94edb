// `order:` (issue 11 items 7 and 8): permutations of an ordered scenario — loaded with their errors
// (file:line:col and field), planned into one item per permutation and level with the hand-overs
// the runner waits on (harness/run/order_gate.h), and `order: all` expanded as isolationtester
// expands a spec without permutation lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/loader/order_planner.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kHead[] = R"(name: order-sample
title: Order sample
teaches: Two sessions in two orders.
isolation: [rc, rr]
setup: CREATE TABLE t (k int PRIMARY KEY, v int)
sessions:
  - name: a
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE t SET v = v + 1 WHERE k = 1", name: write }
      - { commit: , name: commit }
  - name: b
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE t SET v = v + 1 WHERE k = 1", name: write, on_error: continue }
      - { commit: , name: commit }
)";

constexpr char kOrder[] = R"(order:
  - [a.begin, a.write, a.commit, b.begin, b.write, b.commit]
  - steps: [a.begin, b.begin, a.write, b.write, a.commit, b.commit]
    expect:
      at:
        rr: { sqlstates: { "40001": 1 } }
expect:
  sqlstates: {}
  final: [ { sql: "SELECT v FROM t", equals: "2" } ]
)";

Result<Scenario> LoadWith(const std::string& order, const std::string& head = kHead) {
  return LoadScenarioText(head + order, "o.yaml");
}

std::string ErrorOf(const std::string& order, const std::string& head = kHead) {
  auto s = LoadWith(order, head);
  return s.ok() ? "(loaded)" : s.status().message();
}

TEST(OrderTest, EachPermutationIsAnItemWithItsHandOvers) {
  auto s = LoadWith(kOrder);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->order.has_value());
  ASSERT_EQ(s->order->permutations.size(), 2u);
  EXPECT_EQ(PermutationName(s->order->permutations[1]),
            "a.begin b.begin a.write b.write a.commit b.commit");
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 4u);  // 2 levels x 2 permutations
  const PlanItem& serial = (*items)[0];
  EXPECT_THAT(serial.params.back(),
              Pair("order", "a.begin a.write a.commit b.begin b.write b.commit"));
  ASSERT_EQ(serial.order_entries.size(), 6u);
  EXPECT_EQ(serial.order_entries[2].session, "a");
  EXPECT_EQ(serial.order_entries[2].step, "commit");
  EXPECT_EQ(serial.sessions[0].steps[2].order_entry, 2);
  EXPECT_EQ(serial.sessions[1].steps[0].order_entry, 3);
  EXPECT_EQ(serial.sessions[1].steps[0].await_entry,
            2);  // the one hand-over: a's three steps, then b's
  EXPECT_EQ(serial.sessions[1].steps[1].await_entry, -1);
  EXPECT_EQ(serial.sessions[0].steps[1].await_entry, -1);
  const PlanItem& interleaved = (*items)[1];
  for (const PlannedSession& s : interleaved.sessions) {
    for (const PlannedStep& st : s.steps) {
      if (st.order_entry > 0) {
        EXPECT_EQ(st.await_entry, st.order_entry - 1);  // every step hands over
      }
      EXPECT_TRUE(st.await_ended.empty());
    }
  }
  EXPECT_EQ(interleaved.sessions[1].steps[1].await_entry, 2);  // b.write waits for a.write
  // The permutation's expect overrides the file's, level by level, as at: does.
  EXPECT_EQ(interleaved.expect.sqlstates->size(), 0u);
  const PlanItem& interleaved_rr = (*items)[3];
  EXPECT_EQ(interleaved_rr.isolation, IsolationLevel::kRepeatableRead);
  EXPECT_EQ(interleaved_rr.expect.sqlstates->at("40001"), 1);
  EXPECT_EQ(interleaved_rr.expect.final.size(), 1u);
  EXPECT_EQ((*items)[2].expect.sqlstates->size(), 0u);  // the serial order at rr: the file's expect
}

TEST(OrderTest, AllIsEveryInterleavingInIsolationtestersOrder) {
  std::string head = kHead;
  auto s =
      LoadWith("order: all\nexpect: { final: [ { sql: \"SELECT 1\", equals: \"1\" } ] }\n", head);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->order->permutations.size(), 20u);  // 6! / (3! 3!)
  EXPECT_EQ(PermutationName(s->order->permutations[0]),
            "a.begin a.write a.commit b.begin b.write b.commit");
  EXPECT_EQ(PermutationName(s->order->permutations[1]),
            "a.begin a.write b.begin a.commit b.write b.commit");
  EXPECT_EQ(PermutationName(s->order->permutations[19]),
            "b.begin b.write b.commit a.begin a.write a.commit");
}

TEST(OrderTest, BadOrdersNameLineColumnAndField) {
  EXPECT_THAT(
      ErrorOf("order:\n  - [a.begin, a.wrte]\nexpect: { sqlstates: {} }\n"),
      HasSubstr(
          "o.yaml:18:15: order[0][1]: unknown step 'wrte' in session 'a' (did you mean 'write'?"));
  EXPECT_THAT(ErrorOf("order:\n  - [c.begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:18:6: order[0][0]: unknown session 'c' in 'c.begin'"));
  EXPECT_THAT(ErrorOf("order:\n  - [begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0][0]: 'begin' is not SESSION.STEP"));
  EXPECT_THAT(
      ErrorOf("order: some\nexpect: { sqlstates: {} }\n"),
      HasSubstr("o.yaml:17:8: order: order: expected all or a list of permutations, found 'some'"));
  EXPECT_THAT(ErrorOf("order: []\nexpect: { sqlstates: {} }\n"),
              HasSubstr("list at least one permutation"));
  EXPECT_THAT(ErrorOf("order:\n  - { steps: [a.begin], expct: {} }\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0]"));
}

// isolationtester's markers and a step listed twice (PostgreSQL's src/test/isolation/README: a
// permutation may repeat steps; `(*)` makes the next step start once this one started; `(other)`
// holds the session's next step until `other` ended).
TEST(OrderTest, MarkersAndARepeatedStepArePlanned) {
  auto s = LoadWith(
      "order:\n"
      "  - [a.begin, b.begin, a.write(*), b.write, a.commit, \"b.commit(a.commit)\", b.begin, "
      "b.write, b.commit]\n"
      "  - - a.begin\n    - a.write(*, b.write)\n    - b.begin\n    - b.write\n    - a.commit\n"
      "    - b.commit\n"
      "expect: { sqlstates: {} }\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->order->permutations.size(), 2u);
  EXPECT_EQ(
      PermutationName(s->order->permutations[0]),
      "a.begin b.begin a.write(*) b.write a.commit b.commit(a.commit) b.begin b.write b.commit");
  EXPECT_EQ(PermutationName(s->order->permutations[1]),
            "a.begin a.write(*, b.write) b.begin b.write a.commit b.commit");
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  const PlanItem& twice = (*items)[0];
  ASSERT_EQ(twice.order_entries.size(), 9u);
  EXPECT_TRUE(twice.order_entries[2].once);
  const auto& b = twice.sessions[1].steps;
  ASSERT_EQ(b.size(), 6u);  // b.begin, b.write, b.commit, then b.begin, b.write, b.commit again
  EXPECT_EQ(b[3].name, "begin");
  EXPECT_EQ(b[3].order_entry, 6);
  EXPECT_EQ(b[1].await_entry,
            2);  // b.write after a.write(*): started is enough (order_entries[2].once)
  EXPECT_EQ(b[3].await_entry, -1);  // b.commit(a.commit) then b.begin: the same session
  EXPECT_EQ(b[3].await_ended, std::vector<int>{4});  // ... once a.commit (entry 4) ended
  EXPECT_TRUE(b[4].await_ended.empty());
  const PlanItem& marked = (*items)[1];
  EXPECT_EQ(marked.sessions[0].steps[2].name, "commit");
  EXPECT_EQ(marked.sessions[0].steps[2].await_ended,
            std::vector<int>{3});  // a.commit once b.write ended
  EXPECT_EQ(marked.sessions[0].steps[2].await_entry, 3);
  EXPECT_EQ(marked.sessions[1].steps[0].await_entry,
            1);  // b.begin after a.write(*): once it started
}

TEST(OrderTest, BadMarkersNameLineColumnAndField) {
  EXPECT_THAT(
      ErrorOf("order:\n  - [a.begin, a.write(b.wrte), b.write]\nexpect: { sqlstates: {} }\n"),
      HasSubstr(
          "o.yaml:18:15: order[0][1]: unknown step 'wrte' in session 'b' (did you mean 'write'?"));
  EXPECT_THAT(
      ErrorOf("order:\n  - [a.begin, a.write(a.begin)]\nexpect: { sqlstates: {} }\n"),
      HasSubstr(
          "o.yaml:18:15: order[0][1]: marker 'a.begin' names a step of the entry's own session"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.write(b.write notices 1), b.write]\nexpect: { "
                      "sqlstates: {} }\n"),
              HasSubstr("order[0][1]: marker 'b.write notices 1': 'notices N' is not supported"));
  EXPECT_THAT(
      ErrorOf(
          "order:\n  - [a.begin, a.write(b.write, b.begin), b.write]\nexpect: { sqlstates: {} }\n"),
      HasSubstr(
          "o.yaml:18:15: order[0][1]: 'a.write(b.write': markers are (…) at the end of the entry; "
          "inside [ … ] quote an entry with several markers"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.write(b.commit)]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:18:15: order[0][1]: marker 'b.commit' names a step this "
                        "permutation does not run"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.write()]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0][1]: an empty marker"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.write(+)]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0][1]: '+' is not SESSION.STEP"));
}

// A timeout per step: `timeout_ms` on a statement step is its deadline (PlannedStep::timeout_ms); a
// barrier takes none.
TEST(OrderTest, AStatementStepTakesItsOwnTimeout) {
  std::string head = kHead;
  head.replace(head.find("name: write }"), 13, "name: write, timeout_ms: 250 }");
  auto s = LoadWith(kOrder, head);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  EXPECT_EQ((*items)[0].sessions[0].steps[1].timeout_ms, 250);
  EXPECT_EQ((*items)[0].sessions[0].steps[0].timeout_ms, 0);
  std::string bad = kHead;
  bad.replace(bad.find("name: write }"), 13, "name: write, timeout_ms: 0 }");
  EXPECT_THAT(
      ErrorOf(kOrder, bad),
      HasSubstr(
          "o.yaml:10:79: sessions[0].steps[1].timeout_ms: '0' must be a number of ms from 1"));
  auto barrier = LoadScenarioText(
      "name: b\ntitle: t\nteaches: t\nsessions:\n  - name: a\n    steps:\n"
      "      - { barrier: x, timeout_ms: 5 }\n  - name: b\n    steps: [ { barrier: x } ]\n"
      "expect: { sqlstates: {} }\n",
      "b.yaml");
  ASSERT_FALSE(barrier.ok());
  EXPECT_THAT(barrier.status().message(),
              HasSubstr("b.yaml:7:23: sessions[0].steps[0].timeout_ms: unknown key 'timeout_ms' "
                        "for a barrier step"));
}

// `racelab run X.yaml --permutation N|NAME`: one permutation by number or by name, at every level.
TEST(OrderTest, KeepPermutationsSelectsByNumberOrName) {
  auto s = LoadWith(kOrder);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  std::vector<PlanItem> by_number = *items;
  ASSERT_TRUE(KeepPermutations({"2"}, &by_number).ok());
  ASSERT_EQ(by_number.size(), 2u);  // rc and rr
  EXPECT_THAT(by_number[0].params.back(),
              Pair("order", "a.begin b.begin a.write b.write a.commit b.commit"));
  std::vector<PlanItem> by_name = *items;
  ASSERT_TRUE(
      KeepPermutations({"a.begin a.write a.commit b.begin b.write b.commit"}, &by_name).ok());
  ASSERT_EQ(by_name.size(), 2u);
  EXPECT_EQ(by_name[1].isolation, IsolationLevel::kRepeatableRead);
  // No match: exit 2 listing each permutation where it is written (file:line:col, field) and its
  // number.
  std::vector<PlanItem> none = *items;
  Status st = KeepPermutations({"3"}, &none);
  EXPECT_EQ(st.code(), StatusCode::kUsage);
  EXPECT_EQ(st.message(),
            "--permutation 3: no permutation matches (a number from 1, or the steps as the order "
            "param writes "
            "them); scenario order-sample's are:\n"
            "  o.yaml:18:5: order[0]: a.begin a.write a.commit b.begin b.write b.commit "
            "(--permutation 1)\n"
            "  o.yaml:19:5: order[1]: a.begin b.begin a.write b.write a.commit b.commit "
            "(--permutation 2)");
  EXPECT_EQ(none.size(), 4u);
  EXPECT_EQ(none[0].permutation, 1);  // left as they were
  EXPECT_EQ(none[1].permutation, 2);
  EXPECT_EQ(none[1].params.back().second, "a.begin b.begin a.write b.write a.commit b.commit");
  // Not a scenario with order: at all.
  auto plain = LoadScenarioText(
      "name: p\ntitle: t\nteaches: t\nsessions:\n  - name: a\n    steps: [begin, commit]\n"
      "expect: { sqlstates: {} }\n",
      "p.yaml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  auto plain_items = ExpandScenario(*plain, PlanOptions{});
  ASSERT_TRUE(plain_items.ok());
  EXPECT_EQ(KeepPermutations({"1"}, &*plain_items).message(),
            "--permutation: no selected scenario has order: (permutations)");
}

// Several ordered scenarios: --permutation says, per scenario, what runs and what it skips (a
// scenario none of whose permutations matches is skipped whole, said so), and that scenarios
// without order: run whole; nothing matching anywhere is exit 2 listing every ordered scenario's
// permutations.
TEST(OrderTest, KeepPermutationsSaysWhatItKeepsAndSkipsInEveryOrderedScenario) {
  auto two = LoadWith(kOrder);
  ASSERT_TRUE(two.ok()) << two.status().message();
  std::string one_head = kHead;
  one_head.replace(0, std::string("name: order-sample").size(), "name: one-order");
  auto one =
      LoadScenarioText(one_head +
                           "order:\n  - [b.begin, b.write, b.commit, a.begin, a.write, a.commit]\n"
                           "expect: { sqlstates: {} }\n",
                       "p.yaml");
  ASSERT_TRUE(one.ok()) << one.status().message();
  auto plain = LoadScenarioText(
      "name: plain\ntitle: t\nteaches: t\nsessions:\n  - name: a\n    steps: [begin, commit]\n"
      "expect: { sqlstates: {} }\n",
      "q.yaml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  std::vector<PlanItem> items;
  for (const Scenario* sc : {&*two, &*one, &*plain}) {
    auto expanded = ExpandScenario(*sc, PlanOptions{});
    ASSERT_TRUE(expanded.ok()) << expanded.status().message();
    items.insert(items.end(), expanded->begin(), expanded->end());
  }
  ASSERT_EQ(items.size(), 4u + 2u + 3u);  // 2 permutations x rc, rr; 1 x rc, rr; plain at 3 levels

  std::vector<PlanItem> kept = items;
  std::vector<std::string> notes;
  ASSERT_TRUE(KeepPermutations({"2"}, &kept, &notes).ok());
  EXPECT_EQ(kept.size(),
            2u + 3u);  // order-sample's 2nd at rc and rr; plain whole; one-order has no 2nd
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0],
            "--permutation 2: scenario order-sample runs 1 of its 2 permutations:\n"
            "  o.yaml:19:5: order[1]: a.begin b.begin a.write b.write a.commit b.commit "
            "(--permutation 2)\n"
            "skipped:\n"
            "  o.yaml:18:5: order[0]: a.begin a.write a.commit b.begin b.write b.commit "
            "(--permutation 1)");
  EXPECT_EQ(notes[1],
            "--permutation 2: scenario one-order skipped: none of its 1 permutation matches:\n"
            "  p.yaml:18:5: order[0]: b.begin b.write b.commit a.begin a.write a.commit "
            "(--permutation 1)");
  EXPECT_EQ(notes[2], "--permutation 2: scenario without order: runs whole: plain");

  std::vector<PlanItem> none = items;
  notes.clear();
  Status st = KeepPermutations({"3"}, &none, &notes);
  EXPECT_EQ(st.code(), StatusCode::kUsage);
  EXPECT_EQ(st.message(),
            "--permutation 3: no permutation matches (a number from 1, or the steps as the order "
            "param writes "
            "them); scenario order-sample's are:\n"
            "  o.yaml:18:5: order[0]: a.begin a.write a.commit b.begin b.write b.commit "
            "(--permutation 1)\n"
            "  o.yaml:19:5: order[1]: a.begin b.begin a.write b.write a.commit b.commit "
            "(--permutation 2)\n"
            "scenario one-order's are:\n"
            "  p.yaml:18:5: order[0]: b.begin b.write b.commit a.begin a.write a.commit "
            "(--permutation 1)");
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(none.size(), items.size()) << "left as they were";
}

// The same permutation twice would be two results with one name: refused where the second is
// written.
TEST(OrderTest, TheSamePermutationTwiceIsRefused) {
  EXPECT_THAT(
      ErrorOf("order:\n  - [a.begin, b.begin(*)]\n  - [a.begin, \"b.begin(*)\"]\nexpect: { "
              "sqlstates: {} }\n"),
      HasSubstr(
          "o.yaml:19:5: order[1]: the same permutation as order[0] (line 18): 'a.begin b.begin(*)' "
          "(list each order once; --trials runs it again)"));
  EXPECT_EQ(
      ErrorOf(
          "order:\n  - [a.begin, b.begin(*)]\n  - [a.begin, b.begin]\nexpect: { sqlstates: {} }\n"),
      "(loaded)");  // markers make another permutation
  // A permutation with a bad entry is not what the file says (it lacks that entry): its own error
  // only, never a false "same permutation" with one that lacks the step, before or after it; a real
  // duplicate after it still is one.
  const std::string wrte =
      "unknown step 'wrte' in session 'a' (did you mean 'write'? steps: begin, write, commit)";
  EXPECT_EQ(ErrorOf("order:\n  - [a.begin, a.wrte]\n  - [a.begin]\nexpect: { sqlstates: {} }\n"),
            "o.yaml:18:15: order[0][1]: " + wrte);
  EXPECT_EQ(
      ErrorOf(
          "order:\n  - [a.begin]\n  - { steps: [a.begin, a.wrte] }\nexpect: { sqlstates: {} }\n"),
      "o.yaml:19:24: order[1].steps[1]: " + wrte);
  EXPECT_EQ(ErrorOf("order:\n  - [a.begin, a.wrte]\n  - [a.begin]\n  - [a.begin]\nexpect: { "
                    "sqlstates: {} }\n"),
            "o.yaml:18:15: order[0][1]: " + wrte +
                "\no.yaml:20:5: order[2]: the same permutation as order[1] (line 19): 'a.begin' "
                "(list each order once; "
                "--trials runs it again)");
}

TEST(OrderTest, AnOrderedScenarioHasNoBarriersRetriesOrSeveralInstances) {
  std::string with_barrier = kHead;
  with_barrier.insert(with_barrier.find("      - { commit: , name: commit }"),
                      "      - barrier: x\n");
  EXPECT_THAT(
      ErrorOf(kOrder, with_barrier),
      HasSubstr("o.yaml:11:9: sessions[0].steps[2]: session 'a' step 'barrier3' is a barrier"));
  std::string with_count = kHead;
  with_count.insert(with_count.find("  - name: b\n") + 12, "    count: 2\n");
  EXPECT_THAT(ErrorOf(kOrder, with_count), HasSubstr("session 'b' has count 2"));
  std::string with_retry = kHead;
  with_retry.insert(with_retry.find("  - name: b\n") + 12, "    retry: { sqlstates: \"40001\" }\n");
  EXPECT_THAT(ErrorOf(kOrder, with_retry), HasSubstr("session 'b' has retry"));
}

TEST(OrderTest, StepRowsNameTheSqlstateOfOneStep) {
  std::string expect =
      "expect:\n  step_rows: [ { step: write, sqlstate: \"40001\", sessions: 1 } ]\n";
  auto s = LoadWith(expect);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ((*items)[0].expect.step_rows.size(), 1u);
  EXPECT_EQ((*items)[0].expect.step_rows[0].sqlstate, "40001");
  EXPECT_THAT(
      ErrorOf(
          "expect:\n  step_rows: [ { step: write, rows: 1, sqlstate: \"40001\", sessions: 1 } ]\n"),
      HasSubstr("o.yaml:18:16: expect.step_rows[0]: a step_rows entry has rows"));
  EXPECT_THAT(
      ErrorOf("expect:\n  step_rows: [ { step: write, sqlstate: \"4001\", sessions: 1 } ]\n"),
      HasSubstr("'4001' is not a SQLSTATE"));
}

}  // namespace
}  // namespace racelab
