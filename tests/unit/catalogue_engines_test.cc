// Every scenario of the catalogue plans for every engine it lists, at each of its levels, and the
// scenarios that run on MariaDB include the core, lock-lease, execution-token, versioned-CAS,
// create-or-reject and fingerprint families (issue 8).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/loader/catalogue.h"
#include "harness/loader/planner.h"

namespace racelab {
namespace {

TEST(CatalogueEnginesTest, EveryScenarioPlansForEachOfItsEngines) {
  Result<std::vector<Scenario>> all =
      LoadScenarios({}, std::string(RACELAB_SOURCE_DIR) + "/scenarios");
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::set<std::string> on_mariadb;
  for (const Scenario& s : *all) {
    for (const std::string& engine : s.engines) {
      PlanOptions options;
      options.engine = engine;
      Result<std::vector<PlanItem>> items = ExpandScenario(s, options);
      ASSERT_TRUE(items.ok()) << s.name << " on " << engine << ": " << items.status().message();
      ASSERT_FALSE(items->empty()) << s.name << " on " << engine;
      for (const PlanItem& item : *items) EXPECT_EQ(item.engine, engine) << s.name;
      if (engine == "mariadb") on_mariadb.insert(s.name);
    }
  }
  for (const char* name : {"naive-select-then-update",
                           "guarded-cas-claim",
                           "lock-hold-wait",
                           "skip-locked-pull",
                           "lock-lease",
                           "lock-lease-fixed",
                           "lock-lease-lock-timeout",
                           "lock-lease-statement-timeout",
                           "execution-token-approve",
                           "execution-token-consume",
                           "versioned-cas",
                           "versioned-cas-edge-guard",
                           "versioned-cas-version-only",
                           "create-or-reject",
                           "create-or-reject-advisory",
                           "create-or-reject-unique-index",
                           "create-or-reject-serializable",
                           "fingerprint-deadlock",
                           "fingerprint-lock-timeout",
                           "fingerprint-slow-query"}) {
    EXPECT_EQ(on_mariadb.count(name), 1u) << name << " should run on mariadb";
  }
}

}  // namespace
}  // namespace racelab
