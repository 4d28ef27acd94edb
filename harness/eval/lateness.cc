#include "harness/eval/lateness.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace racelab {

std::string LatenessAllowance::Describe() const {
  return fmt::format("{:.3f} ms measured lateness (own {:.3f}, blockers' {:.3f})",
                     total_us() / 1000.0, own_us / 1000.0, blockers_us / 1000.0);
}

int64_t PathLatenessUs(const TrialResult& result, const std::string& session, int64_t start,
                       int64_t end) {
  int64_t late = 0;
  const StepEvent* prev = nullptr;  // the session's previous step (events are ordered by sent_us)
  for (const auto& ev : result.events) {
    if (ev.session != session) continue;
    if (prev != nullptr && ev.sent_us > start && ev.sent_us <= end) {
      late +=
          std::max<int64_t>(0, ev.sent_us - std::max(prev->completed_us, start));  // racelab's gap
    }
    prev = &ev;
    if (ev.skipped || ev.completed_us <= start || ev.sent_us >= end) continue;  // no overlap
    switch (ev.kind) {
      case StepKind::kAwaitBlocked:
        late += std::min(ev.completed_us, end) - std::max(ev.sent_us, start);
        break;
      case StepKind::kSleep:
      case StepKind::kBarrier:
      case StepKind::kAwaitEnded:  // late_us: from the last poll that saw the target connected
        if (ev.completed_us <= end) late += std::max<int64_t>(0, ev.late_us);  // woke late
        break;
      case StepKind::kSql:  // statements: how late the session's thread and backend ran them
      case StepKind::kBegin:
      case StepKind::kCommit:
      case StepKind::kRollback:
      case StepKind::kTerminate:
      case StepKind::kProbe:  // its thread's and the control connection's backend's run-queue delay
        late += std::max<int64_t>(0, ev.late_us);
        break;
      case StepKind::kProgram:  // a program's own lateness is not measured
        break;
    }
  }
  return late;
}

LatenessAllowance MeasuredLateness(const TrialResult& result, const StepEvent& waiter) {
  LatenessAllowance a;
  a.own_us = std::max<int64_t>(0, waiter.late_us);
  for (const auto& blocker : waiter.blocked_by) {
    if (blocker == waiter.session) continue;
    a.blockers_us += PathLatenessUs(result, blocker, waiter.sent_us, waiter.completed_us);
  }
  return a;
}

namespace {

bool IsStatement(StepKind kind) {
  switch (kind) {
    case StepKind::kSql:
    case StepKind::kBegin:
    case StepKind::kCommit:
    case StepKind::kRollback:
    case StepKind::kTerminate:
      return true;
    case StepKind::kProbe:
    case StepKind::kSleep:
    case StepKind::kBarrier:
    case StepKind::kAwaitBlocked:
    case StepKind::kAwaitEnded:
    case StepKind::kProgram:
      return false;
  }
  return false;
}

// A session of `waiter.blocked_by` sent a statement while `waiter` waited: the wait may have ended
// at it.
bool EndedByAnotherSession(const TrialResult& result, const StepEvent& waiter) {
  for (const auto& ev : result.events) {
    if (ev.skipped || &ev == &waiter || ev.session == waiter.session || !IsStatement(ev.kind))
      continue;
    if (ev.sent_us < waiter.sent_us || ev.sent_us > waiter.completed_us) continue;
    if (std::find(waiter.blocked_by.begin(), waiter.blocked_by.end(), ev.session) !=
        waiter.blocked_by.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

int64_t LateStartUs(const TrialResult& result, const StepEvent& waiter) {
  if (!waiter.lock_wait || !EndedByAnotherSession(result, waiter)) return 0;
  // The session's steps before the waiter, from its last barrier on (events are ordered by
  // sent_us).
  std::vector<const StepEvent*> path;
  for (const auto& ev : result.events) {
    if (&ev == &waiter) break;
    if (ev.session != waiter.session || ev.sent_us > waiter.sent_us) continue;
    if (ev.kind == StepKind::kBarrier && !ev.skipped) path.clear();
    path.push_back(&ev);
  }
  int64_t late = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    const StepEvent& ev = *path[i];
    const int64_t next_sent = i + 1 < path.size() ? path[i + 1]->sent_us : waiter.sent_us;
    late += std::max<int64_t>(0, next_sent - ev.completed_us);  // racelab's gap after it
    if (!ev.skipped) late += std::max<int64_t>(0, ev.late_us);  // woke late, ran late
  }
  return late;
}

}  // namespace racelab
