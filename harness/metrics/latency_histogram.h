// LatencyHistogram: a full latency histogram of one measurement, for benchmark percentiles —
// racelab-bench's latency counters today, the workload figures of issue 24 tomorrow. Debian 12
// packages no HdrHistogram for C or C++, so this is a log-linear histogram of its own, with
// HdrHistogram's layout (Gil Tene, hdrhistogram.org): values are kept as whole nanoseconds, exactly
// below 256 ns; above, each power of two [2^e, 2^(e+1)) is cut into 128 buckets of equal width.
// 7,296 buckets cover 0 ns to 2^63 − 1 ns (about 292 years), 57 KiB, allocated on the first value.
//
// Shapes and units: values go in as microseconds (double), the unit of every racelab latency
// counter, and come out as microseconds. Percentiles are nearest-rank (the smallest recorded value
// with at least ⌈p/100 · count⌉ values at or below it, p in [0, 100]), like the exact percentile of
// the sorted samples, and answer with the middle of that value's bucket, clamped to [min, max]:
//   |ValueAtPercentile(p) − exact| ≤ exact / 256 + 0.0005 µs   (0.4 %, plus the rounding to 1 ns)
// in exact arithmetic; the answer is a double, whose own rounding adds up to 2^-52 of the value
// (it shows past 2^53 ns, about 104 days). min, max, count and mean are exact (mean: of the values
// as given); a percentile whose rank is the first or the last value is the minimum or the maximum
// exactly. An empty histogram answers 0 for every figure.
//
// Errors: a value that is not a latency (negative, NaN, infinite) is not recorded: Record returns
// false and rejected() counts it. A value past 2^63 − 1 ns falls in the last bucket; max is still
// exact.
// Thread-safety: none; one histogram per thread, Merge() them after the threads have joined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace racelab::metrics {

// The percentiles a latency figure reports (benchmark counters, and issue 24's table), µs.
struct LatencyPercentiles {
  uint64_t count = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double p999_us = 0;  // p99.9
  double max_us = 0;
};

class LatencyHistogram {
 public:
  // The bound on a percentile's error stated above: relative part and absolute part.
  static constexpr double kRelativeError = 1.0 / 256;
  static constexpr double kDoubleRounding = 0x1p-52;
  static constexpr double kAbsoluteErrorUs = 0.0005;

  // Adds one value (µs); false, recording nothing, when it is negative, NaN or infinite.
  bool Record(double us);
  // Adds every value of `other` (its rejected count too), as if recorded here.
  void Merge(const LatencyHistogram& other);
  // Forgets every value: as new.
  void Clear();

  uint64_t count() const { return count_; }
  uint64_t rejected() const { return rejected_; }
  double min_us() const { return count_ == 0 ? 0 : min_us_; }
  double max_us() const { return count_ == 0 ? 0 : max_us_; }
  double mean_us() const { return count_ == 0 ? 0 : sum_us_ / static_cast<double>(count_); }

  // The nearest-rank percentile (p in [0, 100]; outside, clamped to it), within the bound above.
  double ValueAtPercentile(double p) const;
  // count, p50, p90, p99, p99.9 and max in one walk.
  LatencyPercentiles Percentiles() const;

 private:
  std::vector<uint64_t> counts_;  // empty until the first value; then kBuckets long
  // The value of the rank-th smallest value, which falls in bucket i.
  double Answer(size_t i, uint64_t rank) const;

  uint64_t count_ = 0;
  uint64_t rejected_ = 0;
  double min_us_ = 0;
  double max_us_ = 0;
  double sum_us_ = 0;
};

}  // namespace racelab::metrics
