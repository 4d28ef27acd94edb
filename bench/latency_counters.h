// Latency percentiles as Google Benchmark counters, from one LatencyHistogram
// (harness/metrics/latency_histogram.h) that every thread of a benchmark adds to.
//
// Use: thread 0 calls Clear() before its timing loop (Google Benchmark starts the threads' loops
// together, at a barrier, after that); inside the loop body each thread Record()s each value, or —
// in a benchmark of one iteration — fills a histogram of its own and Merge()s it at the end of the
// body; thread 0 calls SetCounters() after its loop. The loop's end is a barrier too
// (State::FinishKeepRunning, reached when the loop's condition fails), so every value recorded in
// a loop body is in by then; a value added after a thread's loop would not be. The counters are set
// on thread 0 only: Google Benchmark sums a counter over threads, so the sum is its value.
// Counters: <prefix>_p50_us, _p90_us, _p99_us, _p999_us (p99.9), _max_us.
// Thread-safety: Clear, Record, Merge and SetCounters may be called from any benchmark thread (one
// mutex).
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <mutex>
#include <string>

#include "harness/metrics/latency_histogram.h"

namespace racelab::bench {

class SharedLatencies {
 public:
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    all_.Clear();
  }
  void Record(double us) {
    std::lock_guard<std::mutex> lock(mu_);
    all_.Record(us);
  }
  void Merge(const metrics::LatencyHistogram& mine) {
    std::lock_guard<std::mutex> lock(mu_);
    all_.Merge(mine);
  }
  void SetCounters(benchmark::State& state, const std::string& prefix) {
    if (state.thread_index() != 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    const metrics::LatencyPercentiles p = all_.Percentiles();
    state.counters[prefix + "_p50_us"] = p.p50_us;
    state.counters[prefix + "_p90_us"] = p.p90_us;
    state.counters[prefix + "_p99_us"] = p.p99_us;
    state.counters[prefix + "_p999_us"] = p.p999_us;
    state.counters[prefix + "_max_us"] = p.max_us;
  }

 private:
  std::mutex mu_;
  metrics::LatencyHistogram all_;  // guarded by mu_
};

// µs from `start` to now, on the steady clock.
inline double MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace racelab::bench
