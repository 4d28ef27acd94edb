// `racelab convert`'s core (harness/loader/spec_convert.h): the team's spec files convert to one
// scenario whose `order:` holds every permutation — markers and repeated steps included — and that
// the loader accepts and the planner plans.
#include "harness/loader/spec_convert.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/loader/order_planner.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"

namespace racelab {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/" + name;
}

std::vector<NumberedOrder> All(const std::vector<StepOrder>& orders) {
  std::vector<NumberedOrder> all;
  for (size_t i = 0; i < orders.size(); ++i) all.push_back(NumberedOrder{i + 1, &orders[i]});
  return all;
}

// The converted scenario loads, and plans one item per permutation, named as the spec's.
void ExpectEveryPermutationLoads(const std::string& file) {
  auto spec = LoadSpecFile(Fixture(file));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  ConvertedScenario c = ConvertSpec(*spec, All(*orders));
  auto scenario = LoadScenarioText(c.yaml, c.name + ".yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message() << "\n" << c.yaml;
  auto plan = ExpandScenario(*scenario, PlanOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->size(), orders->size());
}

TEST(SpecConvertTest, EveryPermutationOfTheGrammarFileLoadsAndPlans) {
  ExpectEveryPermutationLoads("grammar.spec");
}

TEST(SpecConvertTest, EveryInterleavingLoadsAndPlans) {
  ExpectEveryPermutationLoads("interleavings.spec");
}

TEST(SpecConvertTest, PermutationsBecomeOrderWithTheirMarkersAndRepeatedSteps) {
  auto spec = ParseSpecText(
      "setup { CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0); }\n"
      "teardown { DROP TABLE t; }\n"
      "session a\nsetup { BEGIN; }\nstep a1 { UPDATE t SET v = 1 WHERE id = 1; }\nstep a2 { "
      "COMMIT; }\n"
      "session b\nstep b1 { UPDATE t SET v = 2 WHERE id = 1; }\nstep \"setup\" { SELECT 1; }\n"
      "teardown { SELECT 2; }\n"
      "permutation a1 b1 a2 \"setup\"\n"
      "permutation a1 b1(*) a2(b1) b1 \"setup\"(a1 notices 1)\n",
      "lock-handover.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok());
  ConvertedScenario c = ConvertSpec(*spec, All(*orders));
  EXPECT_EQ(c.name, "lock-handover");
  auto scenario = LoadScenarioText(c.yaml, "x.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message() << "\n" << c.yaml;
  ASSERT_EQ(scenario->sessions.size(), 2u);
  const auto& a = scenario->sessions[0].steps;
  ASSERT_EQ(a.size(), 3u) << c.yaml;
  EXPECT_EQ(a[0].name, "setup");
  EXPECT_EQ(a[0].sql, "BEGIN;");
  EXPECT_EQ(a[2].on_error, OnError::kContinue);
  const auto& b = scenario->sessions[1].steps;
  ASSERT_EQ(b.size(), 3u) << c.yaml;
  EXPECT_EQ(b[1].name, "setup");  // the spec's step keeps its name; b has no session setup
  EXPECT_EQ(b[2].name, "teardown");
  ASSERT_EQ(scenario->order->permutations.size(), 2u);
  EXPECT_EQ(PermutationName(scenario->order->permutations[0]),
            "a.setup a.a1 b.b1 a.a2 b.setup b.teardown");
  // (*) and (other) carried, b1 listed twice; `notices` dropped and said so at the top.
  EXPECT_EQ(PermutationName(scenario->order->permutations[1]),
            "a.setup a.a1 b.b1(*) a.a2(b.b1) b.b1 b.setup b.teardown");
  EXPECT_NE(c.yaml.find("the marker 'a1 notices 1' of step setup is dropped"), std::string::npos)
      << c.yaml;
  EXPECT_EQ(scenario->setup,
            "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);");
  EXPECT_NE(c.yaml.find("# Not carried over:"), std::string::npos);
}

// A permutation line listed twice (isolationtester runs it twice) is written once: the scenario's
// loader refuses the same order twice; the note at the top says which was dropped.
TEST(SpecConvertTest, APermutationListedTwiceIsWrittenOnce) {
  auto spec = ParseSpecText(
      "session a\nstep a1 { SELECT 1; }\nsession b\nstep b1 { SELECT 2; }\n"
      "permutation a1 b1\npermutation b1 a1\npermutation a1 b1\n",
      "twice.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok());
  ASSERT_EQ(orders->size(), 3u);
  ConvertedScenario c = ConvertSpec(*spec, All(*orders));
  auto scenario = LoadScenarioText(c.yaml, "twice.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message() << "\n" << c.yaml;
  ASSERT_EQ(scenario->order->permutations.size(), 2u);
  EXPECT_NE(c.yaml.find("permutation 3 is permutation 1 again: listed once"), std::string::npos)
      << c.yaml;
  EXPECT_NE(c.yaml.find(": 2 permutation(s) in order:"), std::string::npos) << c.yaml;
}

}  // namespace
}  // namespace racelab
