// `racelab convert`'s core (harness/loader/spec_convert.h): every permutation of the team's spec files
// converts to a scenario that the loader accepts and the planner plans, with the hand-over barriers
// and await_blocked where the order needs them.
#include <gtest/gtest.h>

#include <string>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "harness/loader/spec_convert.h"
#include "harness/loader/spec_parser.h"
#include "harness/loader/spec_permutations.h"

namespace racelab {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(RACELAB_SOURCE_DIR) + "/tests/fixtures/spec/" + name;
}

void ExpectEveryPermutationLoads(const std::string& file) {
  auto spec = LoadSpecFile(Fixture(file));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok()) << orders.status().message();
  for (size_t i = 0; i < orders->size(); ++i) {
    ConvertedScenario c = ConvertSpecPermutation(*spec, (*orders)[i], i + 1, {});
    auto scenario = LoadScenarioText(c.yaml, c.name + ".yaml");
    ASSERT_TRUE(scenario.ok()) << scenario.status().message() << "\n" << c.yaml;
    auto plan = ExpandScenario(*scenario, PlanOptions{});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
  }
}

TEST(SpecConvertTest, EveryPermutationOfTheGrammarFileLoadsAndPlans) { ExpectEveryPermutationLoads("grammar.spec"); }

TEST(SpecConvertTest, EveryInterleavingLoadsAndPlans) { ExpectEveryPermutationLoads("interleavings.spec"); }

TEST(SpecConvertTest, HandOversBecomeBarriersAndABlockingStepAnAwaitBlocked) {
  auto spec = ParseSpecText(
      "setup { CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0); }\n"
      "teardown { DROP TABLE t; }\n"
      "session a\nstep a1 { BEGIN; UPDATE t SET v = 1 WHERE id = 1; }\nstep a2 { COMMIT; }\n"
      "session b\nstep b1 { UPDATE t SET v = 2 WHERE id = 1; }\n"
      "permutation a1 b1 a2\n",
      "lock-handover.spec");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok());
  ConvertedScenario c = ConvertSpecPermutation(*spec, (*orders)[0], 1, {"b1"});
  EXPECT_EQ(c.name, "lock-handover-1");
  auto scenario = LoadScenarioText(c.yaml, "x.yaml");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message() << "\n" << c.yaml;
  ASSERT_EQ(scenario->sessions.size(), 2u);
  const auto& a = scenario->sessions[0].steps;
  const auto& b = scenario->sessions[1].steps;
  // a: a1, h1 (after a1), h2 (b1 started), await_blocked b, a2
  ASSERT_EQ(a.size(), 5u) << c.yaml;
  EXPECT_EQ(a[0].name, "a1");
  EXPECT_EQ(a[1].barrier, "h1");
  EXPECT_EQ(a[2].barrier, "h2");
  EXPECT_EQ(a[3].kind, StepKind::kAwaitBlocked);
  EXPECT_EQ(a[3].target, "b");
  EXPECT_EQ(a[4].name, "a2");
  EXPECT_EQ(a[4].on_error, OnError::kContinue);
  // b: h1 (before b1), h2 (met before the blocking b1), b1
  ASSERT_EQ(b.size(), 3u) << c.yaml;
  EXPECT_EQ(b[0].barrier, "h1");
  EXPECT_EQ(b[1].barrier, "h2");
  EXPECT_EQ(b[2].name, "b1");
  EXPECT_EQ(scenario->setup, "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);");
  EXPECT_NE(c.yaml.find("# Not carried over:"), std::string::npos);
}

TEST(SpecConvertTest, BlockingStepsAreReadFromAnExpectedOutput) {
  auto spec = ParseSpecText("session a\nstep a1 { SELECT 1; }\nsession b\nstep b1 {\n  SELECT 2;\n}\n", "x.spec");
  ASSERT_TRUE(spec.ok());
  auto orders = ExpandSpecPermutations(*spec);
  ASSERT_TRUE(orders.ok());
  std::string expected =
      "Parsed test spec with 2 sessions\n\nstarting permutation: a1 b1\nstep a1: SELECT 1; <waiting ...>\n"
      "step b1: \n  SELECT 2;\n\nstep a1: <... completed>\n\nstarting permutation: b1 a1\n"
      "step b1: \n  SELECT 2;\n <waiting ...>\nstep a1: SELECT 1;\n";
  auto blocking = BlockingStepsFromExpected(*spec, *orders, expected, "x.out");
  ASSERT_TRUE(blocking.ok()) << blocking.status().message();
  ASSERT_EQ(blocking->size(), 2u);
  EXPECT_EQ((*blocking)[0], std::set<std::string>{"a1"});
  EXPECT_EQ((*blocking)[1], std::set<std::string>{"b1"});
  auto wrong = BlockingStepsFromExpected(*spec, *orders, "\nstarting permutation: b1 a1\n", "y.out");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "y.out: permutation 1 is 'b1 a1', not 'a1 b1' of the spec: the output of another spec, or of another "
            "version of it");
}

}  // namespace
}  // namespace racelab
