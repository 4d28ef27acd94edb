// StateDifference (harness/run/workspace_reset.h): what a `reset:` did not restore, by object.
#include "harness/run/workspace_reset.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace racelab::internal {
namespace {

QueryResult State(const std::vector<std::pair<std::string, std::string>>& rows) {
  QueryResult r;
  for (const auto& [object, state] : rows) r.values.push_back({object, state});
  r.rows = static_cast<long>(rows.size());
  return r;
}

TEST(WorkspaceReset, SameObjectsAndStatesAreNoDifference) {
  QueryResult a = State({{"relation marks", "1a"}, {"relation tick", "2b"}});
  EXPECT_EQ(StateDifference(a, a), "");
}

TEST(WorkspaceReset, NamesWhatDiffersIsGoneAndIsNew) {
  QueryResult before =
      State({{"relation marks", "1a"}, {"relation tick", "2b"}, {"type marks", "3c"}});
  QueryResult after =
      State({{"relation extra", "9"}, {"relation marks", "1a"}, {"relation tick", "2c"}});
  EXPECT_EQ(StateDifference(before, after),
            "relation tick differs; type marks is gone; relation extra is new");
}

TEST(WorkspaceReset, NamesThreeThenCountsTheRest) {
  QueryResult before = State({{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}, {"e", "1"}});
  QueryResult after = State({{"a", "2"}, {"b", "2"}, {"c", "2"}, {"d", "2"}, {"e", "1"}});
  EXPECT_EQ(StateDifference(before, after), "a differs; b differs; c differs; and 1 more");
}

}  // namespace
}  // namespace racelab::internal
