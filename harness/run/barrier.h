// Barrier: the meeting point that forces an interleaving — every participant waits until all have
// arrived, then all are released together.
//
// racelab needs what std::barrier and boost::barrier lack: a deadline on every wait and a way to
// release stranded participants (Abort) when the trial fails — nothing waits without a deadline.
// And it needs the release to be tight: the participants' next sends should leave within
// microseconds of each other (the release skew the reports show), which a mutex + condition
// variable does not give (a sleeping waiter needs a scheduler wake-up and then the mutex: 40–600 µs
// on a loaded 2-core machine).
//
// How it waits (Linux; other systems sleep-poll in 50 µs slices):
//  1. Spin: poll an atomic for up to `spin` (default 200 µs) with the CPU's pause instruction, so a
//     participant that arrives shortly before the last one sees the release in well under 1 µs.
//     Short on purpose: Linux's CFS scheduler charges a spinning thread its CPU time, and a thread
//     that spun for milliseconds loses its wake-up preference and wakes late (measured on a loaded
//     2-core machine: spinning 2 ms gave skew p95 400–3000 µs, 200 µs gave 27–32 µs;
//     docs/performance.md). Spinning is skipped when the barrier has more parties than online CPUs,
//     or when the machine's 1-minute load average (getloadavg(3)) is 6 or more per online CPU:
//     there, a spinning thread only keeps the last participant (or a database backend) off a CPU
//     and uses up its own share (measured at load average 18–23 on 2 CPUs: spin+align gave skew p50
//     43–453 µs, futex only 18–26; at 9–11 spinning won). Phase 3 follows the same rule.
//  2. Sleep: a futex wait on the same word with an absolute CLOCK_MONOTONIC deadline
//     (FUTEX_WAIT_BITSET, futex(2)). Neither C++20 std::atomic::wait nor Boost.Atomic 1.74 (Debian
//     12) has a timed wait, and every racelab wait needs one.
//  3. Depart together: a released participant counts itself out and, while spinning is allowed,
//  spins
//     up to `align` (default 300 µs) for the others to be out too, so a waiter that slept (and woke
//     a few µs late) does not leave the others' sends ahead of its own. Past `align` it goes anyway
//     and the skew the runner records says so. Short and without sched_yield: on a machine whose
//     CPUs are all busy, a longer or yielding wait only made the releaser itself late
//     (docs/performance.md).
// Reusable: each release starts a new generation. A participant whose session has failed keeps
// arriving (without running SQL), so counts never change.
// Thread-safety: all members are safe from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace racelab {

class Barrier {
 public:
  enum class WaitResult { kReleased, kTimedOut, kAborted };

  struct Options {
    std::chrono::microseconds spin{200};   // phase 1 budget; 0 = never spin
    std::chrono::microseconds align{300};  // phase 3 budget; 0 = leave at once
  };

  // REQUIRES: parties >= 1.
  explicit Barrier(int parties);
  Barrier(int parties, Options options);

  // Arrives and waits for the others until `deadline`. On kReleased, *released_at (if given) is
  // when the last participant arrived (steady_clock), the same value for every participant. On
  // kTimedOut the caller is no longer counted as waiting.
  WaitResult ArriveAndWait(std::chrono::steady_clock::time_point deadline,
                           std::chrono::steady_clock::time_point* released_at = nullptr);

  // Wakes every current and future waiter with kAborted. Irreversible.
  void Abort();

  int parties() const { return parties_; }
  // Whether waiters spin (CpusToSpare(parties) when constructed and Options::spin > 0). When false,
  // a release wakes sleeping threads one by one and cannot be simultaneous to the microsecond.
  bool spins() const { return spin_.count() > 0; }

  // Online CPUs (sysconf(_SC_NPROCESSORS_ONLN)), at least 1.
  static int OnlineCpus();
  // parties <= OnlineCpus() and the 1-minute load average is below 6 per online CPU.
  static bool CpusToSpare(int parties);

 private:
  void WakeAll();

  const int parties_;
  const std::chrono::nanoseconds spin_;
  const std::chrono::nanoseconds align_;
  // generation << 32 | arrived: arrivals, releases and a timed-out leave are one CAS each, so a
  // leave can never undo an arrival that released the generation.
  std::atomic<uint64_t> state_{0};
  // The futex word: bumped by every release and by Abort, after state_/aborted_ changed.
  std::atomic<uint32_t> wake_seq_{0};
  std::atomic<bool> aborted_{false};
  std::atomic<int64_t> release_ns_{0};  // steady_clock of the last release (ns since epoch)
  std::atomic<uint64_t> departed_{0};   // participants out of all releases so far (phase 3)
};

}  // namespace racelab
