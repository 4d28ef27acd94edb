// StopFlag: a run-wide "stop now" request (SIGINT/SIGTERM, or a fatal error), polled by every wait.
//
// Waits in racelab poll in slices of at most kStopPollSlice so that a stop request ends them
// quickly. Thread-safety: all members are safe from any thread. RequestStop() is async-signal-safe,
// so it may be called from a signal handler.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>

namespace racelab {

inline constexpr std::chrono::milliseconds kStopPollSlice{50};

class StopFlag {
 public:
  void RequestStop(int signal_number = 0) noexcept {
    signal_.store(signal_number, std::memory_order_relaxed);
    stop_.store(true, std::memory_order_release);
  }
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_acquire); }
  int signal_number() const noexcept { return signal_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> signal_{0};
};

// Blocks SIGINT and SIGTERM in the calling thread (call from main before starting any thread, so
// every thread inherits the mask) and starts a thread that turns either signal into
// flag->RequestStop(sig). REQUIRES: called once; `flag` outlives the process's use of it.
void InstallStopSignalHandler(StopFlag* flag);

// Sleeps until `deadline` or until stop is requested; returns false when stopped early.
bool SleepUntil(std::chrono::steady_clock::time_point deadline, const StopFlag* flag);

}  // namespace racelab
