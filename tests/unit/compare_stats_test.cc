// Exact tests of harness/compare/stats.h. Reference p-values: SciPy 1.10.1 (Debian python3-scipy),
// scipy.stats.fisher_exact(table)[1] and scipy.stats.binomtest(a, a + b, ta / (ta + tb)).pvalue,
// both two-sided; the first also by hand: 0/20 vs 20/20 has only two tables as extreme as itself,
// each of probability 1 / C(40, 20) = 1 / 137846528820, so p = 1.4508889e-11.
#include <gtest/gtest.h>

#include "harness/compare/stats.h"

namespace racelab::compare {
namespace {

struct FisherCase {
  int64_t a, b, c, d;
  double p;
};

TEST(FisherExactTest, MatchesScipy) {
  const FisherCase cases[] = {
      {0, 20, 20, 0, 1.4508889103849688e-11},  // by hand: 2 / C(40,20)
      {0, 20, 1, 19, 1.0},                     // 20/20 vs 19/20: no evidence
      {0, 20, 5, 15, 0.04712404712404713},
      {3, 17, 9, 11, 0.08235877701951116},
      {1, 9, 11, 3, 0.0027594561852200836},
      {8, 2, 1, 5, 0.034965034965034975},
      {0, 20, 10, 10, 0.00043591979075850045},
      {2, 18, 2, 18, 1.0},
  };
  for (const auto& k : cases) {
    EXPECT_NEAR(FisherExactTwoSided(k.a, k.b, k.c, k.d) / k.p, 1.0, 1e-9)
        << k.a << " " << k.b << " " << k.c << " " << k.d;
  }
}

TEST(FisherExactTest, ConstantMarginIsOneAndNotTestable) {
  EXPECT_EQ(FisherExactTwoSided(0, 20, 0, 20), 1.0);
  EXPECT_FALSE(Testable2x2(0, 20, 0, 20));
  EXPECT_FALSE(Testable2x2(20, 0, 20, 0));
  EXPECT_TRUE(Testable2x2(0, 20, 1, 19));
}

TEST(FisherExactTest, SymmetricInRowsAndColumns) {
  EXPECT_DOUBLE_EQ(FisherExactTwoSided(3, 17, 9, 11), FisherExactTwoSided(9, 11, 3, 17));
  EXPECT_DOUBLE_EQ(FisherExactTwoSided(3, 17, 9, 11), FisherExactTwoSided(17, 3, 11, 9));
}

TEST(PoissonRatesTest, MatchesScipyBinomtest) {
  struct Case {
    int64_t a, ta, b, tb;
    double p;
  };
  const Case cases[] = {
      {20, 20, 40, 20, 0.01348929373119186}, {20, 20, 21, 20, 1.0},
      {0, 20, 20, 20, 1.9073486328125e-06},  // by hand: 2 * 0.5^20
      {5, 20, 15, 20, 0.04138946533203125},  {3, 10, 30, 20, 0.0024835696743368326},
  };
  for (const auto& k : cases) {
    EXPECT_NEAR(PoissonRatesTwoSided(k.a, k.ta, k.b, k.tb) / k.p, 1.0, 1e-9) << k.a << " " << k.b;
  }
  EXPECT_EQ(PoissonRatesTwoSided(0, 20, 0, 20), 1.0);
}

TEST(HolmTest, StepDownAndMonotone) {
  // m = 4: sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.06, 0.06 (monotone), 0.5.
  const auto adj = HolmAdjust({0.03, 0.01, 0.5, 0.02});
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_DOUBLE_EQ(adj[1], 0.04);
  EXPECT_DOUBLE_EQ(adj[3], 0.06);
  EXPECT_DOUBLE_EQ(adj[0], 0.06);
  EXPECT_DOUBLE_EQ(adj[2], 0.5);
  EXPECT_TRUE(HolmAdjust({}).empty());
  EXPECT_DOUBLE_EQ(HolmAdjust({0.6, 0.7})[0], 1.0);
}

}  // namespace
}  // namespace racelab::compare
