#include "harness/run/trial_clock.h"

#include <algorithm>
#include <stdexcept>

namespace racelab {

using Clock = std::chrono::steady_clock;

void TrialClock::Start(SteadyTime origin, std::chrono::milliseconds budget) {
  std::lock_guard<std::mutex> lock(mu_);
  origin_ = origin;
  budget_ = budget;
  paused_ = {};
  holds_ = 0;
}

SteadyTime TrialClock::origin() const {
  std::lock_guard<std::mutex> lock(mu_);
  return origin_;
}

SteadyTime TrialClock::DeadlineLocked(SteadyTime now) const {
  const SteadyTime fixed = origin_ + budget_ + paused_;
  if (holds_ == 0) return fixed;
  // Paused: the budget left when the pause began, counted from now.
  return fixed + (now - pause_began_);
}

SteadyTime TrialClock::deadline() const {
  const SteadyTime now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  return DeadlineLocked(now);
}

SteadyTime TrialClock::DeadlineIn(long ms) const {
  const SteadyTime now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  return std::min(DeadlineLocked(now), now + std::chrono::milliseconds(ms));
}

void TrialClock::Pause() {
  const SteadyTime now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (holds_++ == 0) pause_began_ = now;
}

void TrialClock::Resume() {
  const SteadyTime now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (holds_ <= 0) throw std::logic_error("TrialClock::Resume without a Pause");
  if (--holds_ == 0) paused_ += now - pause_began_;
}

bool TrialClock::paused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holds_ > 0;
}

std::chrono::microseconds TrialClock::paused_for() const {
  const SteadyTime now = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  auto total = paused_ + (holds_ > 0 ? now - pause_began_ : Clock::duration{});
  return std::chrono::duration_cast<std::chrono::microseconds>(total);
}

}  // namespace racelab
