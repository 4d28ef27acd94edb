// An ordered scenario's permutations are results of one scenario at one level told apart only by
// their `order` param: the console report names each one as the Markdown does (`order=a.one
// b.one`), in a params column and after a problem's label; a run whose results are told apart by
// scenario and level keeps its table as it was (the golden console.txt).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "reports/reporter.h"
#include "reports/reporters.h"
#include "tests/unit/render_report.h"
#include "tests/unit/sample_report.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::Render;

// The sample run made one ordered scenario: two permutations at read committed, the second failing.
std::unique_ptr<testing::SampleRun> TwoPermutations() {
  auto run = testing::MakeSampleRun();
  for (PlanItem& item : run->plan.items) {
    item.scenario = "two-orders";
    item.isolation = IsolationLevel::kReadCommitted;
  }
  run->plan.items[0].params = {{"order", "a.one b.one"}};
  run->plan.items[1].params = {{"order", "b.one(*) a.one"}};
  return run;
}

TEST(PermutationNamesTest, TheConsoleNamesEachPermutationAsTheMarkdownDoes) {
  auto run = TwoPermutations();
  const std::string md = Render("md", run->report);
  ASSERT_THAT(md, HasSubstr("Params: `order=a.one b.one`"));
  ASSERT_THAT(md, HasSubstr("Params: `order=b.one(*) a.one`"));
  const std::string console = Render("console", run->report);
  std::istringstream lines(console);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_THAT(header, ::testing::EndsWith("skew p95 µs  params")) << console;
  EXPECT_THAT(first, ::testing::EndsWith("  order=a.one b.one")) << console;
  EXPECT_THAT(second, ::testing::EndsWith("  order=b.one(*) a.one")) << console;
  EXPECT_THAT(console, HasSubstr("\nfail: two-orders [read committed] with order=b.one(*) a.one\n"))
      << console;
}

TEST(PermutationNamesTest, ResultsToldApartByScenarioAndLevelHaveNoParamsColumn) {
  auto run = testing::MakeSampleRun();  // two scenarios, params of their own
  const std::string console = Render("console", run->report);
  EXPECT_THAT(console, Not(HasSubstr("params"))) << console;
  EXPECT_THAT(console, HasSubstr("\nfail: naive-select-then-update [serializable]\n")) << console;
}

}  // namespace
}  // namespace racelab
