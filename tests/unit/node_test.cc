// A role's `node:` (docs/scenario-format.md "Nodes"): read by the loader, carried into the plan,
// checked against the engine's nodes when the plan meets the engine (harness/loader/node_check.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/loader/node_check.h"
#include "harness/loader/planner.h"
#include "harness/loader/scenario_loader.h"
#include "loader_text.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kLines = {
    "name: node-sample",                // 1
    "title: Node sample",               // 2
    "teaches: Roles placed on nodes.",  // 3
    "tags: [claim]",                    // 4
    "engines: [postgresql]",            // 5
    "sessions:",                        // 6
    "  - name: writer",                 // 7
    "    steps: [ sql: SELECT 1 ]",     // 8
    "  - name: reader",                 // 9
    "    count: 2",                     // 10
    "    node: standby1",               // 11
    "    steps: [ sql: SELECT 1 ]",     // 12
    "expect: { lock_waits: 0 }",        // 13
};

Scenario Load(const std::string& yaml) {
  Result<Scenario> r = LoadScenarioText(yaml, "t.yaml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Scenario{};
}

std::vector<PlanItem> Plan(const Scenario& s) {
  PlanOptions options;
  options.trials = 1;
  Result<std::vector<PlanItem>> items = ExpandScenario(s, options);
  EXPECT_TRUE(items.ok()) << items.status().message();
  return items.ok() ? *items : std::vector<PlanItem>{};
}

TEST(NodeTest, TheLoaderReadsARolesNodeWithWhereItIsWritten) {
  Scenario s = Load(testing::EditLines(kLines, {}));
  ASSERT_EQ(s.sessions.size(), 2u);
  EXPECT_EQ(s.sessions[0].node, "") << "no node: the engine's default";
  EXPECT_EQ(s.sessions[1].node, "standby1");
  EXPECT_EQ(s.sessions[1].node_loc.line, 11);
}

TEST(NodeTest, ThePlanCarriesTheNodeToEveryInstance) {
  std::vector<PlanItem> items = Plan(Load(testing::EditLines(kLines, {})));
  ASSERT_FALSE(items.empty());
  const std::vector<PlannedSession>& sessions = items[0].sessions;
  ASSERT_EQ(sessions.size(), 3u);
  EXPECT_EQ(sessions[0].label, "writer");
  EXPECT_EQ(sessions[0].node, "");
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(sessions[i].node, "standby1") << sessions[i].label;
    EXPECT_EQ(sessions[i].node_field, "sessions[1].node");
    EXPECT_EQ(sessions[i].node_loc.line, 11);
  }
}

TEST(NodeTest, ANodeTheEngineLacksIsAUsageErrorWithFileLineAndField) {
  std::vector<PlanItem> items = Plan(Load(testing::EditLines(kLines, {})));
  Status s = CheckNodes(items, "postgresql", {"server"});
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_EQ(
      s.message(),
      "t.yaml:11:11: sessions[1].node: postgresql has no node 'standby1' (its nodes: server)");
  EXPECT_TRUE(CheckNodes(items, "postgresql-replicas", {"primary", "standby1"}).ok());
}

TEST(NodeTest, NoNodeOrTheSingleServersNodeRunsOnASingleServer) {
  const std::vector<std::string> one = {"server"};
  EXPECT_TRUE(CheckNodes(Plan(Load(testing::EditLines(kLines, {{11, ""}}))), "sqlite", one).ok());
  EXPECT_TRUE(
      CheckNodes(Plan(Load(testing::EditLines(kLines, {{11, "    node: server"}}))), "sqlite", one)
          .ok());
}

TEST(NodeTest, ANodeNameIsCheckedWhereItIsWritten) {
  EXPECT_THAT(testing::ErrorOf(testing::EditLines(kLines, {{11, "    node: Standby-1"}})),
              HasSubstr("t.yaml:11:11: sessions[1].node: 'Standby-1' is not a node name"));
  EXPECT_THAT(testing::ErrorOf(testing::EditLines(kLines, {{11, "    node: [a, b]"}})),
              HasSubstr("t.yaml:11:"));
}

}  // namespace
}  // namespace racelab
