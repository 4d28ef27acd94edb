// LatencyHistogram (harness/metrics/latency_histogram.h) against the exact nearest-rank percentiles
// of the sorted samples, within the bound its header states; and MeanConfidenceInterval
// (harness/metrics/confidence.h) against Student-t values from the tables.
#include "harness/metrics/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "harness/metrics/confidence.h"

namespace racelab::metrics {
namespace {

// The exact nearest-rank percentile: the ⌈p/100 · n⌉-th smallest value (at least the first).
double Exact(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

double Bound(double exact) {
  return exact * (LatencyHistogram::kRelativeError + LatencyHistogram::kDoubleRounding) +
         LatencyHistogram::kAbsoluteErrorUs;
}

void ExpectMatchesSorted(const std::vector<double>& samples, const LatencyHistogram& h) {
  ASSERT_EQ(h.count(), samples.size());
  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double exact = Exact(samples, p);
    EXPECT_NEAR(h.ValueAtPercentile(p), exact, Bound(exact)) << "p" << p;
  }
  const LatencyPercentiles ps = h.Percentiles();
  EXPECT_EQ(ps.count, samples.size());
  EXPECT_NEAR(ps.p50_us, Exact(samples, 50), Bound(Exact(samples, 50)));
  EXPECT_NEAR(ps.p90_us, Exact(samples, 90), Bound(Exact(samples, 90)));
  EXPECT_NEAR(ps.p99_us, Exact(samples, 99), Bound(Exact(samples, 99)));
  EXPECT_NEAR(ps.p999_us, Exact(samples, 99.9), Bound(Exact(samples, 99.9)));
  EXPECT_EQ(ps.max_us, *std::max_element(samples.begin(), samples.end()));
  EXPECT_EQ(h.min_us(), *std::min_element(samples.begin(), samples.end()));
}

TEST(LatencyHistogram, EmptyAnswersZeroForEveryFigure) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.ValueAtPercentile(100), 0);
  EXPECT_EQ(h.min_us(), 0);
  EXPECT_EQ(h.max_us(), 0);
  EXPECT_EQ(h.mean_us(), 0);
  const LatencyPercentiles ps = h.Percentiles();
  EXPECT_EQ(ps.count, 0u);
  EXPECT_EQ(ps.p50_us, 0);
  EXPECT_EQ(ps.p999_us, 0);
  EXPECT_EQ(ps.max_us, 0);
}

TEST(LatencyHistogram, OneValueIsEveryPercentileExactly) {
  LatencyHistogram h;
  ASSERT_TRUE(h.Record(1234.567));
  for (double p : {0.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.ValueAtPercentile(p), 1234.567) << p;
  EXPECT_EQ(h.Percentiles().p50_us, 1234.567);
  EXPECT_EQ(h.mean_us(), 1234.567);
}

TEST(LatencyHistogram, SmallWholeNanosecondsAreExact) {
  LatencyHistogram h;
  std::vector<double> samples;
  for (int ns = 0; ns < 256; ++ns) samples.push_back(ns / 1000.0);
  for (double v : samples) h.Record(v);
  for (double p : {1.0, 33.0, 50.0, 77.7, 100.0})
    EXPECT_EQ(h.ValueAtPercentile(p), Exact(samples, p));
}

TEST(LatencyHistogram, LogNormalLatenciesMatchTheSortedSamples) {
  std::mt19937_64 rng(20261202);
  std::lognormal_distribution<double> latency(std::log(300.0),
                                              1.2);  // µs: 300 µs median, long tail
  std::vector<double> samples;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    samples.push_back(latency(rng));
    ASSERT_TRUE(h.Record(samples.back()));
  }
  ExpectMatchesSorted(samples, h);
}

TEST(LatencyHistogram, EveryPowerOfTwoBoundaryIsWithinTheBound) {
  // Bucket edges: 2^e − 1, 2^e and 2^e + 1 ns for every e, where a layout error would show first.
  std::vector<double> samples;
  LatencyHistogram h;
  for (int e = 0; e < 62; ++e) {
    const double edge = std::ldexp(1.0, e);
    for (double ns : {edge - 1, edge, edge + 1}) {
      samples.push_back(ns / 1000.0);
      h.Record(ns / 1000.0);
    }
  }
  for (double p = 0.5; p <= 100; p += 0.5) {
    const double exact = Exact(samples, p);
    EXPECT_NEAR(h.ValueAtPercentile(p), exact, Bound(exact)) << "p" << p;
  }
}

TEST(LatencyHistogram, HugeValuesKeepAnExactMaxAndTheirOrder) {
  LatencyHistogram h;
  const double year_us = 365.0 * 24 * 3600 * 1e6;
  const std::vector<double> samples = {1, 2, year_us, 100 * year_us, 1e300};  // 1e300: past 2^63 ns
  for (double v : samples) ASSERT_TRUE(h.Record(v));
  EXPECT_EQ(h.max_us(), 1e300);
  EXPECT_EQ(h.ValueAtPercentile(100), 1e300);
  EXPECT_NEAR(h.ValueAtPercentile(60), year_us, Bound(year_us));
  EXPECT_NEAR(h.ValueAtPercentile(80), 100 * year_us, Bound(100 * year_us));
  // Past the last bucket the answer is that bucket's, clamped: no better than 2^63 ns, never wrong
  // in order (at least the value below it).
  EXPECT_GE(h.ValueAtPercentile(90), 100 * year_us);
}

TEST(LatencyHistogram, RejectsWhatIsNotALatency) {
  LatencyHistogram h;
  EXPECT_FALSE(h.Record(-1));
  EXPECT_FALSE(h.Record(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(h.Record(std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(h.Record(0));
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.rejected(), 3u);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
}

TEST(LatencyHistogram, MergeIsTheHistogramOfAllValues) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> fast(1 / 80.0);  // µs
  std::exponential_distribution<double> slow(1 / 9000.0);
  LatencyHistogram a, b, empty, all;
  std::vector<double> samples;
  for (int i = 0; i < 20000; ++i) {
    const double x = fast(rng), y = slow(rng);
    a.Record(x);
    b.Record(y);
    all.Record(x);
    all.Record(y);
    samples.push_back(x);
    samples.push_back(y);
  }
  b.Record(-5);  // a rejected value travels too
  LatencyHistogram merged;
  merged.Merge(empty);
  EXPECT_EQ(merged.count(), 0u);
  merged.Merge(a);
  merged.Merge(empty);
  merged.Merge(b);
  ExpectMatchesSorted(samples, merged);
  EXPECT_EQ(merged.rejected(), 1u);
  for (double p : {50.0, 90.0, 99.0, 99.9})
    EXPECT_EQ(merged.ValueAtPercentile(p), all.ValueAtPercentile(p));
  EXPECT_NEAR(merged.mean_us(), all.mean_us(), 1e-9 * all.mean_us());
  empty.Merge(merged);  // into an empty one: the same histogram
  EXPECT_EQ(empty.Percentiles().p99_us, merged.Percentiles().p99_us);
  EXPECT_EQ(empty.min_us(), merged.min_us());
  merged.Clear();
  EXPECT_EQ(merged.count(), 0u);
  EXPECT_EQ(merged.ValueAtPercentile(50), 0);
}

TEST(MeanConfidenceInterval, MatchesStudentTTables) {
  // 1..5: mean 3, s = √2.5; t(0.975; 4) = 2.776445 (tables): half-width 1.963243.
  const auto five = MeanConfidenceInterval({1, 2, 3, 4, 5});
  ASSERT_TRUE(five.has_value());
  EXPECT_EQ(five->n, 5u);
  EXPECT_DOUBLE_EQ(five->mean, 3);
  EXPECT_NEAR(five->half_width, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
  // Two samples: t(0.975; 1) = 12.7062; s = |a − b| / √2.
  const auto two = MeanConfidenceInterval({10, 12});
  ASSERT_TRUE(two.has_value());
  EXPECT_NEAR(two->half_width, 12.7062 * std::sqrt(2.0) / std::sqrt(2.0), 1e-3);
  // 99 %: t(0.995; 4) = 4.604095.
  const auto wide = MeanConfidenceInterval({1, 2, 3, 4, 5}, 0.99);
  ASSERT_TRUE(wide.has_value());
  EXPECT_NEAR(wide->half_width, 4.604095 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
  EXPECT_EQ(MeanConfidenceInterval({7, 7, 7})->half_width, 0);
}

TEST(MeanConfidenceInterval, NoneWhereThereIsNoInterval) {
  EXPECT_FALSE(MeanConfidenceInterval({}).has_value());
  EXPECT_FALSE(MeanConfidenceInterval({3}).has_value());
  EXPECT_FALSE(MeanConfidenceInterval({1, std::numeric_limits<double>::quiet_NaN()}).has_value());
  EXPECT_FALSE(MeanConfidenceInterval({1, 2}, 1.0).has_value());
  EXPECT_FALSE(MeanConfidenceInterval({1, 2}, 0).has_value());
  EXPECT_EQ(HalfWidth95({3}), 0);
  EXPECT_NEAR(HalfWidth95({1, 2, 3, 4, 5}), 1.963243, 1e-5);
}

}  // namespace
}  // namespace racelab::metrics
