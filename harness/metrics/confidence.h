// MeanInterval: the mean of repeated measurements with a Student-t confidence interval — what a
// benchmark's repeats (racelab-bench --benchmark_repetitions=K, issue 24's --repeats K) report as
// "mean ± half_width", and what the plots draw as error bars.
//
// For n samples x with mean m and sample standard deviation s (n − 1 in the denominator), the
// interval at `level` is m ± t(1 − (1 − level)/2; n − 1) · s / √n (Student, 1908; Boost.Math's
// students_t_distribution quantile). It assumes the repeats are independent and roughly normal; on
// a shared machine neither holds exactly, so read it as "how much the repeats disagreed", not as a
// guarantee. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace racelab::metrics {

struct MeanInterval {
  size_t n = 0;
  double mean = 0;
  double half_width = 0;  // the interval is [mean − half_width, mean + half_width]
  double level = 0.95;
};

// The interval of `samples` at `level`, or nullopt when there is none: fewer than 2 samples, a
// sample that is NaN or infinite, or a level outside (0, 1).
std::optional<MeanInterval> MeanConfidenceInterval(const std::vector<double>& samples,
                                                   double level = 0.95);

// The half-width alone at 95 %, 0 when MeanConfidenceInterval has none: the shape of a Google
// Benchmark statistic (racelab-bench's "ci95" aggregate), which is only ever given 2 or more runs.
double HalfWidth95(const std::vector<double>& samples);

}  // namespace racelab::metrics
