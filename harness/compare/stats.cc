#include "harness/compare/stats.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace racelab::compare {
namespace {

// Relative tolerance when comparing probabilities of tables (R's fisher.test uses 1 + 1e-7).
constexpr double kTieTolerance = 1 + 1e-7;

// The two-sided p-value of `observed` under a unimodal discrete distribution on [lo, hi]: the total
// probability of every value whose probability is at most the observed one's (within the
// tolerance), the convention of R and SciPy. Those values are the two tails [lo, x1] and [x2, hi];
// each end is found by binary search on its side of the mode (the pmf rises to the mode and falls
// after it).
template <typename Dist>
double TwoSided(const Dist& dist, int64_t lo, int64_t hi, int64_t observed, int64_t mode) {
  using boost::math::cdf;
  using boost::math::complement;
  using boost::math::pdf;
  const auto at = [&](int64_t x) { return pdf(dist, static_cast<double>(x)); };
  const double limit = at(observed) * kTieTolerance;
  int64_t m = std::clamp(mode, lo, hi);
  // Boost's mode is a formula; step to the true maximum should rounding put it one off.
  for (int i = 0; i < 4 && m < hi && at(m + 1) > at(m); ++i) ++m;
  for (int i = 0; i < 4 && m > lo && at(m - 1) > at(m); ++i) --m;
  if (at(m) <= limit)
    return 1.0;  // the most likely value is as unlikely as the observed: every value
  double p = 0;
  if (at(lo) <= limit) {  // largest x1 in [lo, m) with pmf(x1) <= limit
    int64_t a = lo, b = m - 1;
    while (a < b) {
      const int64_t mid = a + (b - a + 1) / 2;
      if (at(mid) <= limit)
        a = mid;
      else
        b = mid - 1;
    }
    p += cdf(dist, static_cast<double>(a));
  }
  if (at(hi) <= limit) {  // smallest x2 in (m, hi] with pmf(x2) <= limit
    int64_t a = m + 1, b = hi;
    while (a < b) {
      const int64_t mid = a + (b - a) / 2;
      if (at(mid) <= limit)
        b = mid;
      else
        a = mid + 1;
    }
    p += cdf(complement(dist, static_cast<double>(a - 1)));
  }
  return std::min(1.0, p);
}

// The hypergeometric law of the top-left cell of a 2x2 table with margins row1 (the sample), col1
// (the "seen" items) and total. Its pmf is computed here rather than with Boost.Math, whose
// hypergeometric pdf takes seconds near the mode once total is in the hundreds of millions
// (measured with Boost 1.74: 10 s at x = 5e8 + 1 of N = 2e9): the log-pmf from lgamma, and tails
// summed outward from their inner end by the ratio of consecutive terms, which stops when a term no
// longer changes the sum (at most ~8 standard deviations, ~10^5 terms at total = 2e9).
class Hypergeometric {
 public:
  Hypergeometric(int64_t row1, int64_t col1, int64_t total)
      : n_(row1), k_(col1), total_(total), log_norm_(LogChoose(total, row1)) {}
  int64_t lo() const { return std::max<int64_t>(0, n_ + k_ - total_); }
  int64_t hi() const { return std::min(n_, k_); }
  int64_t mode() const {
    return static_cast<int64_t>(
        std::floor((static_cast<double>(n_) + 1) * (static_cast<double>(k_) + 1) /
                   (static_cast<double>(total_) + 2)));
  }
  double LogPmf(int64_t x) const {
    return LogChoose(k_, x) + LogChoose(total_ - k_, n_ - x) - log_norm_;
  }
  // Sum of the pmf from `from` to `to` inclusive, where `from` is the end nearer the mode.
  double TailSum(int64_t from, int64_t to) const {
    const int64_t step = to >= from ? 1 : -1;
    double term = std::exp(LogPmf(from)), sum = term;
    for (int64_t x = from; x != to && term > sum * 1e-17;) {
      const double xd = static_cast<double>(x), n = static_cast<double>(n_),
                   k = static_cast<double>(k_), rest = static_cast<double>(total_ - k_ - n_);
      term *= step > 0 ? (k - xd) * (n - xd) / ((xd + 1) * (rest + xd + 1))
                       : xd * (rest + xd) / ((k - xd + 1) * (n - xd + 1));
      x += step;
      sum += term;
    }
    return sum;
  }

 private:
  static double LogChoose(int64_t a, int64_t b) {
    return std::lgamma(static_cast<double>(a) + 1) - std::lgamma(static_cast<double>(b) + 1) -
           std::lgamma(static_cast<double>(a - b) + 1);
  }
  int64_t n_, k_, total_;
  double log_norm_;
};

}  // namespace

double FisherExactTwoSided(int64_t a, int64_t b, int64_t c, int64_t d) {
  if (a < 0 || b < 0 || c < 0 || d < 0) return 1.0;
  const int64_t row1 = a + b, col1 = a + c, total = a + b + c + d;
  if (row1 == 0 || col1 == 0 || row1 == total || col1 == total) return 1.0;
  if (total > static_cast<int64_t>(std::numeric_limits<unsigned>::max())) {
    throw StatisticError("Fisher's exact test: " + std::to_string(total) +
                         " trials in all is more than it can take (4294967295)");
  }
  const Hypergeometric h(row1, col1, total);
  const int64_t lo = h.lo(), hi = h.hi();
  const double limit = h.LogPmf(a) + std::log(kTieTolerance);
  int64_t m = std::clamp(h.mode(), lo, hi);
  for (int i = 0; i < 4 && m < hi && h.LogPmf(m + 1) > h.LogPmf(m); ++i) ++m;
  for (int i = 0; i < 4 && m > lo && h.LogPmf(m - 1) > h.LogPmf(m); ++i) --m;
  if (h.LogPmf(m) <= limit) return 1.0;
  double p = 0;
  if (h.LogPmf(lo) <= limit) {  // largest x1 in [lo, m) with pmf(x1) <= the observed's
    int64_t x = lo, y = m - 1;
    while (x < y) {
      const int64_t mid = x + (y - x + 1) / 2;
      if (h.LogPmf(mid) <= limit)
        x = mid;
      else
        y = mid - 1;
    }
    p += h.TailSum(x, lo);
  }
  if (h.LogPmf(hi) <= limit) {  // smallest x2 in (m, hi] with pmf(x2) <= the observed's
    int64_t x = m + 1, y = hi;
    while (x < y) {
      const int64_t mid = x + (y - x) / 2;
      if (h.LogPmf(mid) <= limit)
        y = mid;
      else
        x = mid + 1;
    }
    p += h.TailSum(x, hi);
  }
  if (!std::isfinite(p)) throw StatisticError("Fisher's exact test: the p-value is not a number");
  return std::min(1.0, p);
}

double PoissonRatesTwoSided(int64_t count_a, int64_t exposure_a, int64_t count_b,
                            int64_t exposure_b) {
  const int64_t n = count_a + count_b;
  if (n <= 0 || count_a < 0 || count_b < 0 || exposure_a <= 0 || exposure_b <= 0) return 1.0;
  try {
    const double share =
        static_cast<double>(exposure_a) / (static_cast<double>(exposure_a) + exposure_b);
    boost::math::binomial_distribution<double> bin(static_cast<double>(n), share);
    // The mode of the binomial: floor((n + 1) * share).
    const double mode = std::floor((static_cast<double>(n) + 1) * share);
    return TwoSided(bin, 0, n, count_a, static_cast<int64_t>(mode));
  } catch (const std::exception& e) {
    throw StatisticError(std::string("the Poisson-rate test: ") + e.what());
  }
}

bool Testable2x2(int64_t a, int64_t b, int64_t c, int64_t d) {
  return a + c > 0 && b + d > 0 && a + b > 0 && c + d > 0;
}

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
