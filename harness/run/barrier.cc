#include "harness/run/barrier.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#endif

namespace racelab {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kCountMask = 0xffffffffu;

// Spinning stops paying when the 1-minute load average reaches this many runnable tasks per online
// CPU. Fitted on racelab's 2-CPU development machine (docs/performance.md): spinning cut skew p95
// from 141–531 µs to 29–62 µs (2 of 3 runs) at load 9–11, and made p50 2–20× worse at load 18–23.
constexpr double kSpinLoadPerCpu = 6.0;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::this_thread::yield();
#endif
}

// Sleeps while *word == expected, until woken or `deadline` (steady_clock = CLOCK_MONOTONIC on
// Linux). Spurious returns are fine: the caller re-checks.
void FutexWaitUntil(std::atomic<uint32_t>* word, uint32_t expected, Clock::time_point deadline) {
#if defined(__linux__)
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  timespec abs{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
          expected, &abs, nullptr, FUTEX_BITSET_MATCH_ANY);
#else
  if (word->load(std::memory_order_acquire) == expected) {
    std::this_thread::sleep_for(
        std::min<Clock::duration>(deadline - Clock::now(), std::chrono::microseconds(50)));
  }
#endif
}

void FutexWakeAll(std::atomic<uint32_t>* word) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT32_MAX,
          nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

}  // namespace

int Barrier::OnlineCpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : static_cast<int>(n);
}

Barrier::Barrier(int parties) : Barrier(parties, Options{}) {}

bool Barrier::CpusToSpare(int parties) {
  const int cpus = OnlineCpus();
  double load = 0;
  return parties <= cpus && getloadavg(&load, 1) == 1 && load < kSpinLoadPerCpu * cpus;
}

Barrier::Barrier(int parties, Options options)
    : parties_(parties),
      spin_(CpusToSpare(parties) ? options.spin : std::chrono::microseconds(0)),
      align_(CpusToSpare(parties) ? options.align : std::chrono::microseconds(0)) {}

void Barrier::WakeAll() {
  wake_seq_.fetch_add(1, std::memory_order_release);
  FutexWakeAll(&wake_seq_);
}

Barrier::WaitResult Barrier::ArriveAndWait(Clock::time_point deadline,
                                           Clock::time_point* released_at) {
  if (aborted_.load(std::memory_order_acquire)) return WaitResult::kAborted;
  uint64_t s = state_.load(std::memory_order_acquire);
  uint64_t my_generation;
  for (;;) {
    my_generation = s >> 32;
    const uint64_t arrived = (s & kCountMask) + 1;
    if (arrived == static_cast<uint64_t>(parties_)) {
      // The last one: stamp the release, then open the next generation with nobody arrived.
      const auto now = Clock::now();
      release_ns_.store(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count(),
          std::memory_order_relaxed);
      if (state_.compare_exchange_weak(s, (my_generation + 1) << 32, std::memory_order_acq_rel)) {
        WakeAll();
        break;
      }
    } else if (state_.compare_exchange_weak(s, (my_generation << 32) | arrived,
                                            std::memory_order_acq_rel)) {
      // Phases 1 and 2: spin, then sleep, until the generation moves on, the deadline or Abort.
      const auto spin_until = spin_.count() > 0 ? Clock::now() + spin_ : Clock::time_point::min();
      bool released = false;
      for (uint32_t i = 0;; ++i) {
        const uint32_t seq = wake_seq_.load(std::memory_order_acquire);
        s = state_.load(std::memory_order_acquire);
        if ((s >> 32) != my_generation) {
          released = true;
          break;
        }
        if (aborted_.load(std::memory_order_acquire)) return WaitResult::kAborted;
        const bool check_clock = (i & 63) == 0;
        const auto now = check_clock ? Clock::now() : Clock::time_point::min();
        if (check_clock && now >= deadline) {
          // Leave, so a later arrival does not count us — unless the release won the race.
          if (state_.compare_exchange_strong(s, s - 1, std::memory_order_acq_rel))
            return WaitResult::kTimedOut;
          continue;  // the state moved: re-check (released, or another arrival)
        }
        if (check_clock && now >= spin_until) {
          FutexWaitUntil(&wake_seq_, seq, std::min(deadline, now + std::chrono::milliseconds(50)));
        } else {
          CpuRelax();
        }
      }
      if (released) break;
    }
  }
  const Clock::time_point release{std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(release_ns_.load(std::memory_order_relaxed)))};
  if (released_at != nullptr) *released_at = release;
  // Phase 3: leave together with the others of this generation (bounded).
  const uint64_t target = (my_generation + 1) * static_cast<uint64_t>(parties_);
  const uint64_t out = departed_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (out < target && align_.count() > 0) {
    const auto align_until = std::min(deadline, Clock::now() + align_);
    // No sched_yield here: under CFS a yielding thread with CPU-bound neighbours loses its CPU for
    // a whole slice (measured: skew p50 6.8 ms with yield vs 0.35–0.7 ms without, load average
    // 18–23).
    for (uint32_t i = 1; departed_.load(std::memory_order_acquire) < target; ++i) {
      if ((i & 63) == 0 &&
          (Clock::now() >= align_until || aborted_.load(std::memory_order_relaxed)))
        break;
      CpuRelax();
    }
  }
  return WaitResult::kReleased;
}

void Barrier::Abort() {
  aborted_.store(true, std::memory_order_release);
  WakeAll();
}

}  // namespace racelab
