// racelab-barrier-bench: how simultaneous a barrier release is, without a database.
//
// Each iteration, N threads meet at a barrier; thread 0 arrives `stagger_us` after the others (so
// the others are already waiting, as workers that ran their pre-barrier SQL faster are), and every
// thread stamps steady_clock the moment it is released. skew = last stamp - first stamp, the same
// measure as the reports' skew_us (first-to-last send after the release) minus the SQL. Counters:
// skew_p50_us, skew_p95_us, skew_max_us over the iterations.
//
//   barrier/racelab/stagger_us:S/threads:N  — harness/run/barrier.h (spin, futex, depart together;
//                                             with more threads than CPUs: futex only)
//   barrier/condvar/stagger_us:S/threads:N  — the mutex + condition variable barrier racelab used
//   before
//                                             (same deadline and generation logic), for comparison
// The machine's load decides the tail: state it with the figures. Two spinning threads and a
// spinning timer thread on a 2-core machine measure the scheduler as much as the barrier; the
// figure that counts is the reports' skew_us of a real run (docs/performance.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "harness/run/barrier.h"

namespace racelab {
namespace {

using Clock = std::chrono::steady_clock;

// The previous implementation, kept here only as the baseline.
class CondvarBarrier {
 public:
  explicit CondvarBarrier(int parties) : parties_(parties) {}
  void ArriveAndWait(Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t gen = generation_;
    if (++waiting_ == parties_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait_until(lock, deadline, [&] { return generation_ != gen; });
  }

 private:
  const int parties_;
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  uint64_t generation_ = 0;
};

// Shared by the threads of one benchmark run; set up by thread 0 before the loop (Google Benchmark
// starts the threads' loops together).
struct Shared {
  std::unique_ptr<Barrier> racelab;
  std::unique_ptr<CondvarBarrier> condvar;
  std::vector<std::atomic<int64_t>> stamps;  // [iteration % 2][thread], ns
  std::vector<double> skews_us;
};
Shared g_shared;

void Spin(std::chrono::microseconds d) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
  }
}

template <bool kRacelab>
void BarrierRelease(benchmark::State& state) {
  const int n = state.threads();
  const auto stagger = std::chrono::microseconds(state.range(0));
  // Two barriers per iteration: `meet` is the one measured, `settle` keeps iterations apart so a
  // stamp is read only after every thread wrote it.
  static std::unique_ptr<Barrier> settle;
  if (state.thread_index() == 0) {
    g_shared.racelab = std::make_unique<Barrier>(n);
    g_shared.condvar = std::make_unique<CondvarBarrier>(n);
    g_shared.stamps = std::vector<std::atomic<int64_t>>(n);
    g_shared.skews_us.clear();
    settle = std::make_unique<Barrier>(
        n, Barrier::Options{std::chrono::microseconds(0), std::chrono::microseconds(0)});
  }
  for (auto _ : state) {
    if (state.thread_index() == 0) Spin(stagger);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    if constexpr (kRacelab) {
      g_shared.racelab->ArriveAndWait(deadline);
    } else {
      g_shared.condvar->ArriveAndWait(deadline);
    }
    g_shared.stamps[state.thread_index()].store(Clock::now().time_since_epoch().count());
    settle->ArriveAndWait(Clock::now() + std::chrono::seconds(10));
    if (state.thread_index() == 0) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (auto& s : g_shared.stamps) {
        lo = std::min<int64_t>(lo, s.load());
        hi = std::max<int64_t>(hi, s.load());
      }
      g_shared.skews_us.push_back(static_cast<double>(hi - lo) / 1000.0);
    }
    settle->ArriveAndWait(Clock::now() + std::chrono::seconds(10));
  }
  if (state.thread_index() == 0) {
    auto& v = g_shared.skews_us;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
      return v.empty() ? 0.0 : v[static_cast<size_t>(q * (v.size() - 1))];
    };
    state.counters["skew_p50_us"] = at(0.50);
    state.counters["skew_p95_us"] = at(0.95);
    state.counters["skew_max_us"] = v.empty() ? 0.0 : v.back();
  }
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgName("stagger_us")->Arg(0)->Arg(500)->Arg(5000);
  b->Threads(2)->Threads(4)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK_TEMPLATE(BarrierRelease, true)->Name("barrier/racelab")->Apply(Args);
BENCHMARK_TEMPLATE(BarrierRelease, false)->Name("barrier/condvar")->Apply(Args);

}  // namespace
}  // namespace racelab

BENCHMARK_MAIN();
