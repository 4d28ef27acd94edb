// Loader: a session's `settings` may not move it out of its schema or role (search_path, role,
// session_authorization): a load error with file:line:col and the field, before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/loader/scenario_loader.h"

namespace racelab {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Scenario(const std::string& settings) {
  return "name: t\ntitle: T\nteaches: L\nsessions:\n  - name: worker\n    count: 2\n    settings: "
         "{ " +
         settings +
         " }\n    steps:\n      - sql: SELECT 1\n        name: s\noutcome: { win: { step: s } "
         "}\nexpect: { winners: 2 }\n";
}

TEST(SettingsConfinement, SearchPathRoleAndSessionAuthorizationAreRefused) {
  for (const std::string key : {"search_path", "role", "session_authorization"}) {
    Result<racelab::Scenario> r = LoadScenarioText(Scenario(key + ": public"), "t.yaml");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.status().code(), StatusCode::kUsage);
    EXPECT_THAT(r.status().message(), StartsWith("t.yaml:7:17: sessions[0].settings." + key +
                                                 ": '" + key + "' may not be set"));
    EXPECT_THAT(r.status().message(), HasSubstr("qualify names instead"));
  }
}

TEST(SettingsConfinement, OtherSettingsLoad) {
  EXPECT_TRUE(LoadScenarioText(Scenario("lock_timeout: 100ms"), "t.yaml").ok());
}

}  // namespace
}  // namespace racelab
