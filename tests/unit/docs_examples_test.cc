// Every complete scenario in docs/scenario-format.md (a ```yaml block starting with "name:") loads
// and plans at every isolation level, and every bad example (a block whose first lines are
// "# error: FILE:LINE:COL: FIELD: …", then the scenario) fails to load with exactly those error
// lines, so the reference cannot drift from the loader.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

std::vector<std::string> YamlBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line;
  std::string block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

TEST(DocsExamplesTest, EveryCompleteScenarioLoadsAndPlans) {
  std::string path = std::string(RACELAB_SOURCE_DIR) + "/docs/scenario-format.md";
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::stringstream text;
  text << file.rdbuf();
  int complete = 0;
  for (const std::string& block : YamlBlocks(text.str())) {
    if (block.rfind("name:", 0) != 0) continue;  // a fragment
    ++complete;
    std::string name = block.substr(6, block.find('\n') - 6);
    Result<Scenario> scenario = LoadScenarioText(block, "docs/" + name + ".yaml");
    ASSERT_TRUE(scenario.ok()) << scenario.status().message();
    for (const std::string& engine : scenario->engines) {  // each engine at its own levels
      PlanOptions options;
      options.engine = engine;
      if (scenario->engines.size() == 1) options.isolation = AllIsolationLevels();
      Result<std::vector<PlanItem>> items = ExpandScenario(*scenario, options);
      ASSERT_TRUE(items.ok()) << engine << ": " << items.status().message();
      const size_t permutations = scenario->order ? scenario->order->permutations.size() : 1;
      EXPECT_EQ(items->size(), permutations * (options.isolation.empty()
                                                   ? scenario->ForEngine(engine)->isolation.size()
                                                   : options.isolation.size()))
          << engine;
    }
  }
  EXPECT_GE(complete, 8);
}

TEST(DocsExamplesTest, EveryBadExampleFailsWithTheErrorsItShows) {
  std::string path = std::string(RACELAB_SOURCE_DIR) + "/docs/scenario-format.md";
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::stringstream text;
  text << file.rdbuf();
  int bad = 0;
  for (const std::string& block : YamlBlocks(text.str())) {
    if (block.rfind("# error: ", 0) != 0) continue;
    ++bad;
    std::vector<std::string> shown;  // the "# error:" lines, in order
    size_t at = 0;
    while (block.compare(at, 9, "# error: ") == 0) {
      const size_t end = block.find('\n', at);
      shown.push_back(block.substr(at + 9, end - at - 9));
      at = end + 1;
    }
    // The file name the errors show is the scenario's name + ".yaml"; the line numbers count the
    // "# error:" lines too (they are comments of the file).
    ASSERT_EQ(block.compare(at, 6, "name: "), 0) << block;
    const std::string name = block.substr(at + 6, block.find('\n', at) - at - 6);
    Result<Scenario> scenario = LoadScenarioText(block, name + ".yaml");
    ASSERT_FALSE(scenario.ok()) << name << " loaded";
    std::vector<std::string> got;
    std::istringstream lines(scenario.status().message());
    for (std::string line; std::getline(lines, line);) got.push_back(line);
    EXPECT_EQ(got, shown) << name;
  }
  EXPECT_GE(bad, 2);
}

}  // namespace
}  // namespace racelab
