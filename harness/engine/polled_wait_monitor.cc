#include "harness/engine/polled_wait_monitor.h"

#include <algorithm>
#include <set>
#include <utility>

namespace racelab {

using Clock = std::chrono::steady_clock;

PolledWaitMonitor::PolledWaitMonitor(std::chrono::microseconds interval, const StopFlag* stop,
                                     std::string node)
    : interval_(interval), stop_(stop), node_(std::move(node)) {}

std::vector<int64_t> PolledWaitMonitor::IdsOnNode(const std::vector<ConnectionId>& sessions) const {
  std::vector<int64_t> ids;
  for (const ConnectionId& c : sessions) {
    if (c.node == node_) ids.push_back(c.id);
  }
  return ids;
}

PolledWaitMonitor::~PolledWaitMonitor() { End(); }

void PolledWaitMonitor::Begin(std::vector<ConnectionId> sessions, SteadyTime origin) {
  End();
  std::lock_guard<std::mutex> lock(mu_);
  sessions_ = IdsOnNode(sessions);
  origin_ = origin;
  observations_.clear();
  last_seen_poll_.clear();
  error_.clear();
  running_ = true;
  thread_ = std::thread([this] { Loop(); });
}

std::vector<WaitObservation> PolledWaitMonitor::End() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<WaitObservation> out = std::move(observations_);
  observations_.clear();
  return out;
}

void PolledWaitMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (running_ && error_.empty() && !(stop_ != nullptr && stop_->stop_requested())) {
    if (cv_.wait_until(lock, last_poll_end_ + interval_, [&] { return !running_; })) break;
    const uint64_t number = ++poll_number_;
    const SteadyTime origin = origin_;
    const std::vector<int64_t> sessions = sessions_;
    lock.unlock();
    PollResult seen = Poll(sessions, origin);
    lock.lock();
    last_poll_end_ = Clock::now();
    if (!seen.error.empty()) {
      if (error_.empty()) error_ = std::move(seen.error);
      break;
    }
    const std::set<int64_t> watched(sessions.begin(), sessions.end());
    const size_t first = observations_.size();
    for (WaitObservation& o : seen.waits) {
      if (watched.count(o.session_id) == 0) continue;
      last_seen_poll_[o.session_id] = number;
      o.node = node_;
      observations_.push_back(std::move(o));
    }
    if (listener_ && observations_.size() > first) {
      // Live waits, told outside the lock (a listener may ask this monitor again) and before the
      // waiters wake: a wait is told before anyone acts on having seen it.
      const std::vector<WaitObservation> fresh(observations_.begin() + first, observations_.end());
      lock.unlock();
      for (const WaitObservation& o : fresh) listener_(o);
      lock.lock();
    }
    cv_.notify_all();
  }
  cv_.notify_all();
}

bool PolledWaitMonitor::AwaitBlocked(const std::vector<ConnectionId>& sessions, SteadyTime deadline,
                                     const StopFlag* stop) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t asked_at = poll_number_;  // a poll numbered higher started after this call
  for (;;) {
    bool all = true;
    for (const ConnectionId& c : sessions) {
      auto it = last_seen_poll_.find(c.id);
      all = all && c.node == node_ && it != last_seen_poll_.end() && it->second > asked_at;
    }
    if (all) return true;
    if (!error_.empty() || !running_) return false;
    if (stop != nullptr && stop->stop_requested()) return false;
    if (Clock::now() >= deadline) return false;
    cv_.wait_until(lock, std::min(deadline, Clock::now() + kStopPollSlice));
  }
}

void PolledWaitMonitor::SetWaitListener(std::function<void(const WaitObservation&)> listener) {
  // REQUIRES (wait_monitor.h): not between Begin() and End(), so no polling thread reads it now.
  listener_ = std::move(listener);
}

std::string PolledWaitMonitor::error() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace racelab
