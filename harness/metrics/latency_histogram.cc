#include "harness/metrics/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace racelab::metrics {
namespace {

constexpr int kSubBucketBits = 7;  // 128 buckets per power of two
constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;
constexpr uint64_t kLinearLimit = kSubBuckets * 2;    // below 256 ns, one bucket per ns
constexpr uint64_t kMaxNs = (uint64_t{1} << 63) - 1;  // the last value with a bucket of its own
constexpr int kTopExponent = 62;                      // floor(log2(kMaxNs))
constexpr size_t kBuckets = (kTopExponent - kSubBucketBits + 1) * kSubBuckets + kSubBuckets;

static_assert(kBuckets == 7296, "the header states the bucket count");

// The bucket of `ns`: ns itself below 256; above, (shift, top 8 bits) with shift = e − 7.
size_t BucketOf(uint64_t ns) {
  if (ns < kLinearLimit) return static_cast<size_t>(ns);
  const int exponent = 63 - std::countl_zero(ns);
  const int shift = exponent - kSubBucketBits;
  return static_cast<size_t>(static_cast<uint64_t>(shift) * kSubBuckets + (ns >> shift));
}

// The middle of bucket `i`, in ns: its value when it holds one, else the middle of its range.
double MiddleOf(size_t i) {
  if (i < kLinearLimit) return static_cast<double>(i);
  const uint64_t shift = i / kSubBuckets - 1;
  const uint64_t low = (i - shift * kSubBuckets) << shift;
  const uint64_t width = uint64_t{1} << shift;
  return static_cast<double>(low) + static_cast<double>(width - 1) / 2;
}

uint64_t ToNs(double us) {
  const double ns = std::round(us * 1000.0);
  if (ns >= static_cast<double>(kMaxNs)) return kMaxNs;  // 2^63 in double: past the last bucket
  return static_cast<uint64_t>(ns);
}

// The nearest rank of percentile p among n values: ⌈p/100 · n⌉, at least 1.
uint64_t RankOf(double p, uint64_t n) {
  p = std::clamp(std::isnan(p) ? 0.0 : p, 0.0, 100.0);
  const double r = std::ceil(p / 100.0 * static_cast<double>(n));
  return std::clamp<uint64_t>(static_cast<uint64_t>(r), 1, n);
}

}  // namespace

bool LatencyHistogram::Record(double us) {
  if (!std::isfinite(us) || us < 0) {
    ++rejected_;
    return false;
  }
  if (counts_.empty()) counts_.assign(kBuckets, 0);
  ++counts_[BucketOf(ToNs(us))];
  min_us_ = count_ == 0 ? us : std::min(min_us_, us);
  max_us_ = count_ == 0 ? us : std::max(max_us_, us);
  sum_us_ += us;
  ++count_;
  return true;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  rejected_ += other.rejected_;
  if (other.count_ == 0) return;
  if (counts_.empty()) counts_.assign(kBuckets, 0);
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  min_us_ = count_ == 0 ? other.min_us_ : std::min(min_us_, other.min_us_);
  max_us_ = count_ == 0 ? other.max_us_ : std::max(max_us_, other.max_us_);
  sum_us_ += other.sum_us_;
  count_ += other.count_;
}

void LatencyHistogram::Clear() { *this = LatencyHistogram(); }

double LatencyHistogram::Answer(size_t i, uint64_t rank) const {
  if (rank == count_) return max_us_;
  if (rank == 1) return min_us_;
  return std::clamp(MiddleOf(i) / 1000.0, min_us_, max_us_);
}

double LatencyHistogram::ValueAtPercentile(double p) const {
  if (count_ == 0) return 0;
  const uint64_t rank = RankOf(p, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return Answer(i, rank);
  }
  return max_us_;  // not reached: the counts add up to count_
}

LatencyPercentiles LatencyHistogram::Percentiles() const {
  LatencyPercentiles out;
  out.count = count_;
  if (count_ == 0) return out;
  const double ps[] = {50, 90, 99, 99.9};
  double* into[] = {&out.p50_us, &out.p90_us, &out.p99_us, &out.p999_us};
  size_t next = 0;
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets && next < 4; ++i) {
    seen += counts_[i];
    while (next < 4 && seen >= RankOf(ps[next], count_)) {
      *into[next] = Answer(i, RankOf(ps[next], count_));
      ++next;
    }
  }
  out.max_us = max_us_;
  return out;
}

}  // namespace racelab::metrics
