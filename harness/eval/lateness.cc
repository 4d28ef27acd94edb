#include "harness/eval/lateness.h"

#include <algorithm>

#include <fmt/format.h>

namespace racelab {

std::string LatenessAllowance::Describe() const {
  return fmt::format("{:.3f} ms measured lateness (own {:.3f}, blockers' {:.3f})", total_us() / 1000.0,
                     own_us / 1000.0, blockers_us / 1000.0);
}

LatenessAllowance MeasuredLateness(const TrialResult& result, const StepEvent& waiter) {
  LatenessAllowance a;
  a.own_us = std::max<int64_t>(0, waiter.late_us);
  const int64_t start = waiter.sent_us, end = waiter.completed_us;
  for (const auto& blocker : waiter.blocked_by) {
    if (blocker == waiter.session) continue;
    const StepEvent* prev = nullptr;  // the blocker's previous step (events are ordered by sent_us)
    for (const auto& ev : result.events) {
      if (ev.session != blocker) continue;
      if (prev != nullptr && ev.sent_us > start && ev.sent_us <= end) {
        a.blockers_us += std::max<int64_t>(0, ev.sent_us - std::max(prev->completed_us, start));  // gap
      }
      prev = &ev;
      if (ev.skipped || ev.completed_us <= start || ev.sent_us >= end) continue;  // no overlap
      switch (ev.kind) {
        case StepKind::kAwaitBlocked:
          a.blockers_us += std::min(ev.completed_us, end) - std::max(ev.sent_us, start);
          break;
        case StepKind::kSleep:
        case StepKind::kBarrier:
          if (ev.completed_us <= end) a.blockers_us += std::max<int64_t>(0, ev.late_us);  // woke late
          break;
        case StepKind::kSql:  // statements: how late the blocker's own thread ran them
        case StepKind::kBegin:
        case StepKind::kCommit:
        case StepKind::kRollback:
        case StepKind::kTerminate:
          a.blockers_us += std::max<int64_t>(0, ev.late_us);
          break;
      }
    }
  }
  return a;
}

}  // namespace racelab
