// The workload model (workload_item.h).
#include "harness/workload/workload_item.h"

#include <map>
#include <set>

namespace racelab::workload {
namespace {

bool Dropped(const PlannedStep& step) {
  return step.kind == StepKind::kBarrier || step.kind == StepKind::kAwaitBlocked;
}

}  // namespace

Result<PlanItem> WorkloadItem(const PlanItem& item) {
  PlanItem out = item;
  out.order_entries.clear();
  out.permutation = 0;
  for (PlannedSession& s : out.sessions) {
    std::vector<PlannedStep> kept;
    for (PlannedStep& step : s.steps) {
      if (Dropped(step)) continue;
      step.order_entry = step.await_entry = -1;
      step.await_ended.clear();
      kept.push_back(std::move(step));
    }
    if (kept.empty()) {
      return Status::Usage(
          item.file + ": session " + s.label +
          " has only barriers and await_blocked steps: nothing to run as a workload");
    }
    s.steps = std::move(kept);
  }
  return out;
}

std::string DroppedSteps(const PlanItem& item) {
  std::set<std::string> barriers;
  bool await_blocked = false;
  for (const PlannedSession& s : item.sessions) {
    for (const PlannedStep& step : s.steps) {
      if (step.kind == StepKind::kBarrier) barriers.insert(step.barrier);
      if (step.kind == StepKind::kAwaitBlocked) await_blocked = true;
    }
  }
  std::string out;
  if (!barriers.empty()) {
    out = barriers.size() == 1 ? "barrier" : "barriers";
    bool first = true;
    for (const std::string& b : barriers) {
      out += (first ? " " : ", ") + b;
      first = false;
    }
  }
  if (await_blocked) out += std::string(out.empty() ? "" : "; ") + "await_blocked";
  if (!item.order_entries.empty()) out += std::string(out.empty() ? "" : "; ") + "order";
  return out.empty() ? "nothing" : out;
}

ClaimCheck CheckClaims(const PlanItem& item, const std::vector<SessionResult>& sessions) {
  ClaimCheck c;
  if (item.outcome.win_step.empty()) return c;
  c.applies = true;
  std::map<std::string, int> by_claim;
  for (const SessionResult& s : sessions) {
    if (!s.won) continue;
    ++c.winners;
    if (!item.outcome.claim_step.empty()) {
      // A winner whose claim was not read (NULL, no row) claims nothing the others could share.
      if (s.claim) ++by_claim[*s.claim];
    } else {
      ++by_claim[""];
    }
  }
  for (const auto& [claim, n] : by_claim) c.double_claims += n > 1 ? n - 1 : 0;
  return c;
}

}  // namespace racelab::workload
