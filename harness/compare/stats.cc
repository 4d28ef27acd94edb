#include "harness/compare/stats.h"

#include <algorithm>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/hypergeometric.hpp>

namespace racelab::compare {
namespace {

// Relative tolerance when comparing probabilities of tables (R's fisher.test uses 1 + 1e-7).
constexpr double kTieTolerance = 1 + 1e-7;

}  // namespace

double FisherExactTwoSided(int64_t a, int64_t b, int64_t c, int64_t d) {
  if (a < 0 || b < 0 || c < 0 || d < 0) return 1.0;
  const int64_t row1 = a + b, col1 = a + c, total = a + b + c + d;
  if (row1 == 0 || col1 == 0 || row1 == total || col1 == total) return 1.0;
  // X = the top-left cell: col1 "defective" items among `total`, a sample of row1 (Boost's
  // hypergeometric_distribution(r = defective, n = sample, N = total)).
  boost::math::hypergeometric_distribution<double> h(static_cast<unsigned>(col1), static_cast<unsigned>(row1),
                                                     static_cast<unsigned>(total));
  const int64_t lo = std::max<int64_t>(0, row1 + col1 - total), hi = std::min(row1, col1);
  const double observed = boost::math::pdf(h, static_cast<unsigned>(a));
  double p = 0;
  for (int64_t x = lo; x <= hi; ++x) {
    const double px = boost::math::pdf(h, static_cast<unsigned>(x));
    if (px <= observed * kTieTolerance) p += px;
  }
  return std::min(1.0, p);
}

double PoissonRatesTwoSided(int64_t count_a, int64_t exposure_a, int64_t count_b, int64_t exposure_b) {
  const int64_t n = count_a + count_b;
  if (n <= 0 || exposure_a <= 0 || exposure_b <= 0) return 1.0;
  const double share = static_cast<double>(exposure_a) / static_cast<double>(exposure_a + exposure_b);
  boost::math::binomial_distribution<double> bin(static_cast<double>(n), share);
  const double observed = boost::math::pdf(bin, static_cast<double>(count_a));
  double p = 0;
  for (int64_t x = 0; x <= n; ++x) {
    const double px = boost::math::pdf(bin, static_cast<double>(x));
    if (px <= observed * kTieTolerance) p += px;
  }
  return std::min(1.0, p);
}

bool Testable2x2(int64_t a, int64_t b, int64_t c, int64_t d) { return a + c > 0 && b + d > 0 && a + b > 0 && c + d > 0; }

std::vector<double> HolmAdjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t rank = 0; rank < m; ++rank) {
    const double value = std::min(1.0, static_cast<double>(m - rank) * p[order[rank]]);
    running = std::max(running, value);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace racelab::compare
