#include "reports/trial_text.h"

#include <fmt/format.h>

#include "reports/format_util.h"

namespace racelab::internal {

std::string TrialStepsText(const TrialVerdict& t, int trials_in_result) {
  const TrialResult& trial = t.result;
  std::string out = fmt::format("trial {} of {}: {}, {} ms\n", trial.index + 1, trials_in_result,
                                VerdictName(t.verdict), FormatUsAsMs(trial.duration_us));
  if (!trial.error.empty()) out += "trial error: " + trial.error + "\n";
  for (const StepEvent& e : trial.events) {
    std::string step = e.attempt > 1 ? fmt::format("{} (attempt {})", e.step, e.attempt) : e.step;
    out += fmt::format("{:>10} ms  {}  {}: {}", FormatUsAsMs(e.sent_us), e.session, step,
                       StepOutcomeText(e));
    if (e.lock_wait) {
      out += fmt::format(" [blocked {} ms", FormatMs(e.blocked_ms()));
      const std::string by = BlockedByText(e);
      out += by.empty() ? "]" : " by " + by + "]";
    }
    out += '\n';
  }
  for (const BarrierRelease& b : trial.barriers) {
    out += fmt::format("barrier {} #{} released at {} ms, skew {} µs\n", b.barrier, b.occurrence,
                       FormatUsAsMs(b.released_us), b.skew_us);
  }
  for (const FinalValue& f : trial.finals) {
    out += fmt::format("final {} = {}\n", f.sql,
                       !f.error.empty() ? "error: " + f.error : f.value.value_or("NULL"));
  }
  for (const Check& c : t.checks) {
    if (!c.passed) out += fmt::format("failed: {}: {}\n", c.text, c.detail);
  }
  return out;
}

}  // namespace racelab::internal
