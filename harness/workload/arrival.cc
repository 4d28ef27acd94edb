// The arrival schedule and its gate (arrival.h).
#include "harness/workload/arrival.h"

#include <algorithm>

namespace racelab::workload {

SteadyTime ArrivalSchedule::Intended(int round, int session) const {
  if (!open()) return origin_;
  const double k = static_cast<double>(round) * clients_ + session;
  return origin_ +
         std::chrono::duration_cast<SteadyTime::duration>(std::chrono::duration<double>(k / rate_));
}

GateAnswer ArrivalGate::AwaitTurn(const GateTurn& turn, const GateLimits& limits) {
  GateAnswer answer;
  if (turn.step_index != 0 || turn.attempt != 1 || turn.session_failed) return answer;
  const SteadyTime due = schedule_->Intended(round_, turn.session_index);
  const SteadyTime until = std::min(due, limits.race_deadline);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (abandoned_ || (limits.stop != nullptr && limits.stop->stop_requested())) {
      answer.result = GateAnswer::Result::kStopped;
      return answer;
    }
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now >= due) return answer;
    if (now >= until) break;
    cv_.wait_until(lock, std::min(until, now + kStopPollSlice));
  }
  answer.result = GateAnswer::Result::kTimedOut;
  answer.deadline_exceeded = true;
  answer.message = "its arrival was due after the step's deadline (" +
                   std::to_string(limits.race_ms) + " ms): the rate is too low";
  return answer;
}

void ArrivalGate::Abandon() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_ = true;
  }
  cv_.notify_all();
}

GateFactory ArrivalGates(const ArrivalSchedule* schedule) {
  return [schedule](const GateSetup& setup) -> std::unique_ptr<StepGate> {
    return std::make_unique<ArrivalGate>(schedule, setup.trial);
  };
}

}  // namespace racelab::workload
