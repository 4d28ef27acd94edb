#include "harness/metrics/confidence.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace racelab::metrics {

std::optional<MeanInterval> MeanConfidenceInterval(const std::vector<double>& samples,
                                                   double level) {
  if (samples.size() < 2 || !(level > 0 && level < 1)) return std::nullopt;
  double sum = 0;
  for (double x : samples) {
    if (!std::isfinite(x)) return std::nullopt;
    sum += x;
  }
  const double n = static_cast<double>(samples.size());
  const double mean = sum / n;
  double squares = 0;
  for (double x : samples) squares += (x - mean) * (x - mean);
  const double sd = std::sqrt(squares / (n - 1));
  const boost::math::students_t_distribution<double> t(n - 1);
  const double quantile = boost::math::quantile(t, 1 - (1 - level) / 2);
  return MeanInterval{samples.size(), mean, quantile * sd / std::sqrt(n), level};
}

double HalfWidth95(const std::vector<double>& samples) {
  const auto interval = MeanConfidenceInterval(samples, 0.95);
  return interval ? interval->half_width : 0;
}

}  // namespace racelab::metrics
