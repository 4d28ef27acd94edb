#include "harness/loader/order_planner.h"

#include <fmt/format.h>

#include <algorithm>

namespace racelab {

std::string PermutationName(const Permutation& perm) {
  std::string name;
  for (const OrderEntry& e : perm.steps) name += (name.empty() ? "" : " ") + e.session + "." + e.step;
  return name;
}

Status ApplyPermutation(const Permutation& perm, PlanItem* item) {
  std::vector<std::vector<PlannedStep>> steps(item->sessions.size());
  auto session_of = [&](const std::string& role) -> int {
    for (size_t i = 0; i < item->sessions.size(); ++i) {
      if (item->sessions[i].role == role) return static_cast<int>(i);
    }
    return -1;
  };
  int prev_session = -1;
  for (const OrderEntry& entry : perm.steps) {
    const int s = session_of(entry.session);
    if (s < 0 || std::count_if(item->sessions.begin(), item->sessions.end(),
                               [&](const PlannedSession& p) { return p.role == entry.session; }) != 1) {
      return Status::Usage(fmt::format("{}:{}:{}: order: session '{}' must have exactly one instance (count 1)",
                                       item->file, entry.loc.line, entry.loc.column, entry.session));
    }
    const auto& planned = item->sessions[static_cast<size_t>(s)].steps;
    auto it = std::find_if(planned.begin(), planned.end(), [&](const PlannedStep& p) { return p.name == entry.step; });
    if (it == planned.end()) {  // the loader checked the names: a broken invariant
      return Status::Internal(fmt::format("order: no step '{}' in session '{}'", entry.step, entry.session));
    }
    PlannedStep step = *it;
    if (prev_session >= 0 && prev_session != s) {
      // A hand-over: this step waits for the one before it, another session's, to end or wait.
      const int h = static_cast<int>(item->handovers.size());
      PlannedStep& before = steps[static_cast<size_t>(prev_session)].back();
      item->handovers.push_back(PlannedHandover{item->sessions[static_cast<size_t>(prev_session)].role, before.name});
      before.signal_handover = h;
      step.await_handover = h;
    }
    steps[static_cast<size_t>(s)].push_back(std::move(step));
    prev_session = s;
  }
  for (size_t i = 0; i < item->sessions.size(); ++i) item->sessions[i].steps = std::move(steps[i]);
  item->params.emplace_back(kOrderParam, PermutationName(perm));
  return Status::Ok();
}

}  // namespace racelab
