// Probe steps: what racelab's control connection read between a session's steps (step_checks.h;
// issue 11 item 10a; docs/scenario-format.md "`probe`: what another transaction sees,
// mid-history").
#include <fmt/format.h>

#include <algorithm>

#include "harness/eval/step_checks.h"

namespace racelab::internal {

void CheckProbes(const PlanItem& item, const TrialResult& r, std::vector<Check>* checks) {
  std::vector<std::string> roles_done;
  for (const PlannedSession& first : item.sessions) {
    if (std::find(roles_done.begin(), roles_done.end(), first.role) != roles_done.end()) continue;
    roles_done.push_back(first.role);
    for (const PlannedStep& step : first.steps) {
      if (step.kind != StepKind::kProbe) continue;
      int ran = 0;
      std::vector<std::string> wrong;
      for (const PlannedSession& s : item.sessions) {
        if (s.role != first.role) continue;
        const StepEvent* ev = LastRun(r, s.label, step.name);
        if (ev == nullptr) continue;
        ++ran;
        if (!ev->read) {
          wrong.push_back(fmt::format("{} got no rows: {}", s.label,
                                      ev->message.empty() ? "failed" : ev->message));
        } else if (*ev->read != step.equals) {
          wrong.push_back(fmt::format("{} read [{}]", s.label, fmt::join(*ev->read, ", ")));
        }
      }
      AddCheck(checks,
               fmt::format("probe {}/{} reads [{}]", first.role, step.name,
                           fmt::join(step.equals, ", ")),
               ran > 0 && wrong.empty(),
               ran == 0 ? fmt::format("probe {}/{} did not run", first.role, step.name)
                        : fmt::format("{}", fmt::join(wrong, "; ")));
    }
  }
}

}  // namespace racelab::internal
