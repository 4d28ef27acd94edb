#include "harness/run/workspace_reset.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace racelab::internal {
namespace {

std::map<std::string, std::string> ByObject(const QueryResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& row : r.values) {
    if (row.empty() || !row[0]) continue;
    out[*row[0]] = row.size() > 1 && row[1] ? *row[1] : "";
  }
  return out;
}

}  // namespace

std::string StateDifference(const QueryResult& baseline, const QueryResult& now) {
  const std::map<std::string, std::string> before = ByObject(baseline);
  const std::map<std::string, std::string> after = ByObject(now);
  std::vector<std::string> found;
  for (const auto& [object, state] : before) {
    auto it = after.find(object);
    if (it == after.end()) {
      found.push_back(object + " is gone");
    } else if (it->second != state) {
      found.push_back(object + " differs");
    }
  }
  for (const auto& [object, state] : after) {
    if (before.count(object) == 0) found.push_back(object + " is new");
  }
  std::string out;
  for (size_t i = 0; i < found.size() && i < 3; ++i) out += (i == 0 ? "" : "; ") + found[i];
  if (found.size() > 3) out += fmt::format("; and {} more", found.size() - 3);
  return out;
}

}  // namespace racelab::internal
