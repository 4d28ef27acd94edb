// `order:` (issue 11 items 7 and 8): permutations of an ordered scenario — loaded with their errors
// (file:line:col and field), planned into one item per permutation and level with the hand-overs the
// runner waits on (harness/run/order_gate.h), and `order: all` expanded as isolationtester expands a
// spec without permutation lines.
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
  EXPECT_EQ(PermutationName(s->order->permutations[1]), "a.begin b.begin a.write b.write a.commit b.commit");
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 4u);  // 2 levels x 2 permutations
  const PlanItem& serial = (*items)[0];
  EXPECT_THAT(serial.params.back(), Pair("order", "a.begin a.write a.commit b.begin b.write b.commit"));
  ASSERT_EQ(serial.handovers.size(), 1u);  // a's three steps, then b's
  EXPECT_EQ(serial.handovers[0].session, "a");
  EXPECT_EQ(serial.handovers[0].step, "commit");
  EXPECT_EQ(serial.sessions[0].steps[2].signal_handover, 0);
  EXPECT_EQ(serial.sessions[1].steps[0].await_handover, 0);
  EXPECT_EQ(serial.sessions[1].steps[1].await_handover, -1);
  const PlanItem& interleaved = (*items)[1];
  EXPECT_EQ(interleaved.handovers.size(), 5u);  // every step hands over to the other session
  EXPECT_EQ(interleaved.sessions[1].steps[1].await_handover, 2);  // b.write waits for a.write
  EXPECT_EQ(interleaved.sessions[0].steps[1].signal_handover, 2);
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
  auto s = LoadWith("order: all\nexpect: { final: [ { sql: \"SELECT 1\", equals: \"1\" } ] }\n", head);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->order->permutations.size(), 20u);  // 6! / (3! 3!)
  EXPECT_EQ(PermutationName(s->order->permutations[0]), "a.begin a.write a.commit b.begin b.write b.commit");
  EXPECT_EQ(PermutationName(s->order->permutations[1]), "a.begin a.write b.begin a.commit b.write b.commit");
  EXPECT_EQ(PermutationName(s->order->permutations[19]), "b.begin b.write b.commit a.begin a.write a.commit");
}

TEST(OrderTest, BadOrdersNameLineColumnAndField) {
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.wrte]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:18:15: order[0][1]: unknown step 'wrte' in session 'a' (did you mean 'write'?"));
  EXPECT_THAT(ErrorOf("order:\n  - [c.begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:18:6: order[0][0]: unknown session 'c' in 'c.begin'"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.write, a.begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:18:15: order[0][1]: 'a.begin' comes after 'a.write'"));
  EXPECT_THAT(ErrorOf("order:\n  - [a.begin, a.begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("'a.begin' repeats 'a.begin'"));
  EXPECT_THAT(ErrorOf("order:\n  - [begin]\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0][0]: 'begin' is not SESSION.STEP"));
  EXPECT_THAT(ErrorOf("order: some\nexpect: { sqlstates: {} }\n"),
              HasSubstr("o.yaml:17:8: order: order: expected all or a list of permutations, found 'some'"));
  EXPECT_THAT(ErrorOf("order: []\nexpect: { sqlstates: {} }\n"), HasSubstr("list at least one permutation"));
  EXPECT_THAT(ErrorOf("order:\n  - { steps: [a.begin], expct: {} }\nexpect: { sqlstates: {} }\n"),
              HasSubstr("order[0]"));
}

TEST(OrderTest, AnOrderedScenarioHasNoBarriersRetriesOrSeveralInstances) {
  std::string with_barrier = kHead;
  with_barrier.insert(with_barrier.find("      - { commit: , name: commit }"), "      - barrier: x\n");
  EXPECT_THAT(ErrorOf(kOrder, with_barrier), HasSubstr("session 'a' step 'barrier3' is a barrier"));
  std::string with_count = kHead;
  with_count.insert(with_count.find("  - name: b\n") + 12, "    count: 2\n");
  EXPECT_THAT(ErrorOf(kOrder, with_count), HasSubstr("session 'b' has count 2"));
  std::string with_retry = kHead;
  with_retry.insert(with_retry.find("  - name: b\n") + 12, "    retry: { on: \"40001\" }\n");
  EXPECT_THAT(ErrorOf(kOrder, with_retry), HasSubstr("session 'b' has retry"));
}

TEST(OrderTest, StepRowsNameTheSqlstateOfOneStep) {
  std::string expect = "expect:\n  step_rows: [ { step: write, sqlstate: \"40001\", sessions: 1 } ]\n";
  auto s = LoadWith(expect);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto items = ExpandScenario(*s, PlanOptions{});
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ((*items)[0].expect.step_rows.size(), 1u);
  EXPECT_EQ((*items)[0].expect.step_rows[0].sqlstate, "40001");
  EXPECT_THAT(ErrorOf("expect:\n  step_rows: [ { step: write, rows: 1, sqlstate: \"40001\", sessions: 1 } ]\n"),
              HasSubstr("o.yaml:18:16: expect.step_rows[0]: a step_rows entry has rows"));
  EXPECT_THAT(ErrorOf("expect:\n  step_rows: [ { step: write, sqlstate: \"4001\", sessions: 1 } ]\n"),
              HasSubstr("'4001' is not a SQLSTATE"));
}

}  // namespace
}  // namespace racelab
