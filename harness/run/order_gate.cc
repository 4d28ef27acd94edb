#include "harness/run/order_gate.h"

#include <algorithm>

namespace racelab {
namespace {

// How long one look at the hand-over waits before asking the monitor again, and how long one
// question to the monitor may wait for a poll that sees the session waiting. The monitor polls
// every few ms (RunOptions' poll interval), so a blocked step is seen within a poll or two.
constexpr std::chrono::milliseconds kLatchSlice{5};
constexpr std::chrono::milliseconds kMonitorSlice{25};

}  // namespace

void OrderGates::Started(int i) {
  std::lock_guard<std::mutex> lock(mu_);
  gates_.at(static_cast<size_t>(i)).started = true;
  cv_.notify_all();
}

void OrderGates::Done(int i) {
  std::lock_guard<std::mutex> lock(mu_);
  Gate& g = gates_.at(static_cast<size_t>(i));
  g.started = true;
  g.done = true;
  cv_.notify_all();
}

void OrderGates::Abandon() {
  std::lock_guard<std::mutex> lock(mu_);
  abandoned_ = true;
  cv_.notify_all();
}

OrderGates::Result OrderGates::AwaitEnded(const std::vector<int>& entries, SteadyTime deadline,
                                          const StopFlag* stop, int* late) {
  std::unique_lock<std::mutex> lock(mu_);
  auto first_not_done = [&] {
    for (int e : entries) {
      if (!gates_.at(static_cast<size_t>(e)).done) return e;
    }
    return -1;
  };
  for (;;) {
    // Slices, so that a stop request is seen within one.
    cv_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + kMonitorSlice),
                   [&] { return abandoned_ || first_not_done() < 0; });
    *late = first_not_done();
    if (abandoned_) return Result::kAbandoned;
    if (*late < 0) return Result::kDone;
    if (stop != nullptr && stop->stop_requested()) return Result::kAbandoned;
    if (std::chrono::steady_clock::now() >= deadline) return Result::kTimedOut;
  }
}

int OrderGates::StillRunningBefore(int i, const std::vector<PlannedOrderEntry>& entries) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t index = static_cast<size_t>(i);
  if (gates_.at(index).started) return -1;
  for (size_t e = 0; e < index && e < entries.size(); ++e) {
    if (entries[e].session == entries.at(index).session && gates_[e].started && !gates_[e].done) {
      return static_cast<int>(e);
    }
  }
  return -1;
}

OrderGates::Result OrderGates::AwaitHandover(int i, bool once, const ConnectionId& session_id,
                                             WaitMonitor* monitor, SteadyTime deadline,
                                             const StopFlag* stop) {
  const size_t index = static_cast<size_t>(i);
  for (;;) {
    bool started = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // First the cheap case: the step before ends in well under a slice.
      cv_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + kLatchSlice), [&] {
        return gates_[index].done || abandoned_ || (once && gates_[index].started);
      });
      if (abandoned_) return Result::kAbandoned;
      if (gates_[index].done) return Result::kDone;
      started = gates_[index].started;
      if (started && once) return Result::kWaiting;  // `(*)`: deemed waiting once it started
    }
    if (stop != nullptr && stop->stop_requested()) return Result::kAbandoned;
    if (std::chrono::steady_clock::now() >= deadline) return Result::kTimedOut;
    if (!started || monitor == nullptr) continue;
    // Started and not done: is its session waiting? A poll that began after this call saw it, so
    // the wait is the started step's own (its session runs nothing else meanwhile).
    if (monitor->AwaitBlocked({session_id},
                              std::min(deadline, std::chrono::steady_clock::now() + kMonitorSlice),
                              stop)) {
      std::lock_guard<std::mutex> lock(mu_);
      return gates_[index].done ? Result::kDone : Result::kWaiting;
    }
    if (!monitor->error().empty()) return Result::kMonitorFailed;
  }
}

}  // namespace racelab
