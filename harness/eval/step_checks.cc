// The helpers step_checks.h shares between the evaluator and the step checks.
#include "harness/eval/step_checks.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/eval/lateness.h"

namespace racelab::internal {

namespace {

// The last event of `step` in `label`'s last attempt; skipped ones only when `with_skipped`.
const StepEvent* LastOfLastAttempt(const TrialResult& r, const std::string& label,
                                   const std::string& step, bool with_skipped) {
  int last_attempt = 1;
  for (const auto& ev : r.events) {
    if (ev.session == label) last_attempt = std::max(last_attempt, ev.attempt);
  }
  const StepEvent* found = nullptr;
  for (const auto& ev : r.events) {
    if (ev.session == label && ev.attempt == last_attempt && ev.step == step &&
        (with_skipped || !ev.skipped)) {
      found = &ev;
    }
  }
  return found;
}

}  // namespace

const StepEvent* LastRun(const TrialResult& r, const std::string& label, const std::string& step) {
  return LastOfLastAttempt(r, label, step, /*with_skipped=*/false);
}

const StepEvent* LastEvent(const TrialResult& r, const std::string& label,
                           const std::string& step) {
  return LastOfLastAttempt(r, label, step, /*with_skipped=*/true);
}

std::string MsText(double ms) { return fmt::format("{:.3f}", ms); }

namespace {

int64_t LateStartOf(const PlanItem& item, const TrialResult& r, const StepEvent& ev) {
  return item.order_entries.empty() ? LateStartUs(r, ev) : 0;
}

}  // namespace

double LowerBoundMs(const PlanItem& item, double min_ms, const TrialResult& r,
                    const StepEvent& ev) {
  return min_ms - LateStartOf(item, r, ev) / 1000.0;
}

std::string LowerBoundText(const PlanItem& item, double min_ms, const TrialResult& r,
                           const StepEvent& ev) {
  const int64_t late = LateStartOf(item, r, ev);
  if (late == 0) return MsText(min_ms) + " ms";
  return fmt::format("{} ms - {} ms measured late start", MsText(min_ms), MsText(late / 1000.0));
}

void AddCheck(std::vector<Check>* checks, std::string text, bool passed, std::string detail) {
  checks->push_back(Check{std::move(text), passed, passed ? "" : std::move(detail)});
}

}  // namespace racelab::internal
