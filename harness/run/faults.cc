#include "harness/run/faults.h"

#include <fmt/format.h>

#include <algorithm>

namespace racelab::internal {

bool IsSessionLost(const std::string& sqlstate) {
  return sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "57P04" ||
         sqlstate.rfind("08", 0) == 0;
}

std::string OutsideFault(const std::vector<StepEvent>& events,
                         const std::map<std::string, int>& label_pids,
                         const std::vector<OwnTermination>& own) {
  for (const StepEvent& ev : events) {
    if (!IsSessionLost(ev.sqlstate)) continue;
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

}  // namespace racelab::internal
