// Exact tests for counts, used by `racelab compare` to judge whether two runs' outcome counts
// differ by more than chance (docs/compare.md "How a change is judged").
//
// - Fisher's exact test on a 2×2 table (R. A. Fisher, Statistical Methods for Research Workers,
//   §21.02): rows are the two runs, columns "the outcome was seen" / "it was not", in trials. The
//   p-value sums the hypergeometric probabilities of every table with the same margins that is no
//   more likely than the observed one (two-sided, the convention of R's fisher.test and SciPy's
//   fisher_exact), with a relative tolerance of 1e-7 for ties.
// - The exact conditional test of two Poisson rates (Przyborowski & Wilenski, Biometrika 31, 1940):
//   for counts that are not one-per-trial (SQLSTATE occurrences, lock waits: a trial may have
//   several), given n = a + b events, a ~ Binomial(n, ta / (ta + tb)) under equal rates (ta, tb =
//   trials); two-sided as above, with Boost.Math binomial_distribution.
// - Holm's step-down correction (S. Holm, Scand. J. Statist. 6, 1979) over a family of p-values, so
//   that the chance of one false alarm in the whole comparison stays under alpha.
// Neither loops over every outcome: the two tails of the null distribution (unimodal) are found by
// binary search on either side of its mode, then summed — with Boost.Math's binomial CDF for the
// Poisson test (O(log n): a SQLSTATE seen 10^8 times costs microseconds), and for Fisher's test
// from the inner end of each tail outward by the ratio of consecutive terms until they no longer
// count (~8 standard deviations: about 10^5 terms for 10^9 trials a side; Boost's hypergeometric
// pdf is not used: it takes seconds near the mode of such tables). Counts are at most
// kMaxReportCount (report_view.h) once read from a report; a count Boost.Math cannot take, or any
// error it raises, is a StatisticError naming the test, never an abort. Thread-safety: pure
// functions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace racelab::compare {

// A p-value that cannot be computed (counts past Boost.Math's range, or its own error); what() says
// which test and why. Callers turn it into a usage error (exit 2): the inputs were out of range.
class StatisticError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Two-sided Fisher exact p-value of [[a, b], [c, d]] (all >= 0). 1.0 when a margin is 0.
// Throws StatisticError when a + b + c + d exceeds 2^32 - 1.
double FisherExactTwoSided(int64_t a, int64_t b, int64_t c, int64_t d);

// Two-sided exact p-value that `count_a` events over `exposure_a` and `count_b` over `exposure_b`
// come from the same Poisson rate. REQUIRES: exposures > 0. 1.0 when both counts are 0.
// Throws StatisticError when Boost.Math raises an error.
double PoissonRatesTwoSided(int64_t count_a, int64_t exposure_a, int64_t count_b,
                            int64_t exposure_b);

// Whether a 2×2 table can show any difference at all: both columns have a non-zero total. A table
// with a constant margin (the outcome seen in every trial of both runs, or in none) has p = 1 under
// every hypothesis, so it cannot raise an alarm and is left out of the correction's family
// (Tarone, Biometrics 46, 1990, drops every test that cannot reach significance; this drops only
// these).
bool Testable2x2(int64_t a, int64_t b, int64_t c, int64_t d);

// Holm-adjusted p-values, in the input order: adjusted_(i) = max over j <= i of
// min(1, (m - j + 1) * p_(j)) with p sorted ascending (1-based j). A test is significant at
// family-wise level alpha when its adjusted p-value is < alpha.
std::vector<double> HolmAdjust(const std::vector<double>& p);

}  // namespace racelab::compare
