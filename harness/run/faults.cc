#include "harness/run/faults.h"

#include <fmt/format.h>

#include <algorithm>

namespace racelab::internal {

std::string OutsideFault(const std::vector<StepEvent>& events,
                         const std::map<std::string, ConnectionId>& label_pids,
                         const std::vector<OwnTermination>& own,
                         const SessionLostFn& session_lost) {
  for (const StepEvent& ev : events) {
    if (!session_lost(ev)) continue;
    auto pid = label_pids.find(ev.session);
    bool ours = pid != label_pids.end() &&
                std::any_of(own.begin(), own.end(), [&](const OwnTermination& t) {
                  return t.pid == pid->second && t.at_us <= ev.completed_us;
                });
    if (ours) continue;
    return fmt::format(
        "infrastructure fault, not a race outcome: session '{}' lost its backend in step '{}' "
        "({} {}), and no terminate step of the scenario ended it — an operator, a connection "
        "pooler or the server did",
        ev.session, ev.step, ev.sqlstate, ev.message);
  }
  return "";
}

std::string MachineFault(const std::vector<StepEvent>& events, const SessionLostFn& is_fault) {
  for (const StepEvent& ev : events) {
    if (ev.sqlstate.empty() || !is_fault(ev)) continue;
    return fmt::format(
        "infrastructure fault, not a race outcome: session '{}' step '{}' failed with {} ({}): the "
        "disk, memory or files under the database failed",
        ev.session, ev.step, ev.error_code.empty() ? ev.sqlstate : ev.error_code, ev.message);
  }
  return "";
}

}  // namespace racelab::internal
