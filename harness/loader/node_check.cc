#include "harness/loader/node_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace racelab {

Status CheckNodes(const std::vector<PlanItem>& items, const std::string& engine,
                  const std::vector<std::string>& nodes) {
  for (const PlanItem& item : items) {
    for (const PlannedSession& s : item.sessions) {
      if (s.node.empty() || std::find(nodes.begin(), nodes.end(), s.node) != nodes.end()) continue;
      return Status::Usage(fmt::format("{}:{}:{}: {}: {} has no node '{}' (its nodes: {})",
                                       s.node_loc.file.empty() ? item.file : s.node_loc.file,
                                       s.node_loc.line, s.node_loc.column, s.node_field, engine,
                                       s.node, fmt::join(nodes, ", ")));
    }
  }
  return Status::Ok();
}

}  // namespace racelab
