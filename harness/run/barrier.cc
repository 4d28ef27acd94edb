#include "harness/run/barrier.h"

#include <boost/chrono.hpp>

namespace racelab {

Barrier::Barrier(int parties) : parties_(parties) {}

Barrier::WaitResult Barrier::ArriveAndWait(std::chrono::steady_clock::time_point deadline,
                                           std::chrono::steady_clock::time_point* released_at) {
  boost::unique_lock<boost::mutex> lock(mu_);
  if (aborted_) return WaitResult::kAborted;
  const uint64_t my_generation = generation_;
  if (++waiting_ == parties_) {
    waiting_ = 0;
    ++generation_;
    last_release_ = std::chrono::steady_clock::now();
    if (released_at != nullptr) *released_at = last_release_;
    cv_.notify_all();
    return WaitResult::kReleased;
  }
  for (;;) {
    if (aborted_) return WaitResult::kAborted;
    if (generation_ != my_generation) {
      if (released_at != nullptr) *released_at = last_release_;
      return WaitResult::kReleased;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      --waiting_;  // leave, so a later arrival does not count us
      return WaitResult::kTimedOut;
    }
    auto slice = std::min<std::chrono::steady_clock::duration>(deadline - now,
                                                               std::chrono::milliseconds(50));
    cv_.wait_for(lock, boost::chrono::nanoseconds(
                           std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count()));
  }
}

void Barrier::Abort() {
  boost::lock_guard<boost::mutex> lock(mu_);
  aborted_ = true;
  cv_.notify_all();
}

}  // namespace racelab
