// Barrier: the meeting point that forces an interleaving — every participant waits until all have
// arrived, then all are released together.
//
// Built on Boost.Thread (boost::mutex, boost::condition_variable) rather than boost::barrier because
// racelab needs what boost::barrier::wait() lacks: a deadline on every wait and a way to release
// stranded participants (Abort) when the trial fails — nothing waits without a deadline, the same reason
// google/benchmark's Barrier can drop a failed thread. Reusable: each release starts a new generation.
// A participant whose session has failed keeps arriving (without running SQL), so counts never change.
// Thread-safety: all members are safe from any thread.
#pragma once

#include <boost/thread/condition_variable.hpp>
#include <boost/thread/lock_guard.hpp>
#include <boost/thread/mutex.hpp>
#include <chrono>
#include <cstdint>

namespace racelab {

class Barrier {
 public:
  enum class WaitResult { kReleased, kTimedOut, kAborted };

  // REQUIRES: parties >= 1.
  explicit Barrier(int parties);

  // Arrives and waits for the others until `deadline`. On kReleased, *released_at (if given) is when
  // the last participant arrived (steady_clock), the same value for every participant. On kTimedOut
  // the caller is no longer counted as waiting.
  WaitResult ArriveAndWait(std::chrono::steady_clock::time_point deadline,
                           std::chrono::steady_clock::time_point* released_at = nullptr);

  // Wakes every current and future waiter with kAborted. Irreversible.
  void Abort();

  int parties() const { return parties_; }

 private:
  const int parties_;
  boost::mutex mu_;
  boost::condition_variable cv_;
  int waiting_ = 0;                               // guarded by mu_
  uint64_t generation_ = 0;                       // guarded by mu_
  bool aborted_ = false;                          // guarded by mu_
  std::chrono::steady_clock::time_point last_release_;  // guarded by mu_
};

}  // namespace racelab
