#include <benchd/results/statistics.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

// Expected values are published (R, scipy, Benjamini & Hochberg 1995), derived by hand in the
// comments, or computed here by independent means (pairwise counting and brute-force enumeration
// instead of ranks and a DP; integer binomial sums) — never copied from the code under test.

namespace benchd::results::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- independent oracles ----

/// U of `a` by definition: pairs with a > b, ties counting 1/2.
double pairwiseU(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0.0;
  for (double x : a) {
    for (double y : b) {
      u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
    }
  }
  return u;
}

/// Exact two-sided p by enumerating every way to pick which n_a of the pooled values are `a`.
double bruteForceP(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t n = pooled.size();
  const double centre = static_cast<double>(a.size() * b.size()) / 2.0;
  const double observed = std::abs(pairwiseU(a, b) - centre);
  double extreme = 0.0;
  double total = 0.0;
  for (std::uint32_t mask = 0; mask < (1U << n); ++mask) {
    if (static_cast<std::size_t>(std::popcount(mask)) != a.size()) {
      continue;
    }
    std::vector<double> x;
    std::vector<double> y;
    for (std::size_t i = 0; i < n; ++i) {
      ((mask >> i) & 1U ? x : y).push_back(pooled[i]);
    }
    total += 1.0;
    if (std::abs(pairwiseU(x, y) - centre) >= observed - 1e-9) {
      extreme += 1.0;
    }
  }
  return extreme / total;
}

/// Normal approximation with continuity and tie correction, written out from the textbook
/// formulas; checked against scipy's published value below before it is used as an oracle.
double normalApproximationP(const std::vector<double>& a, const std::vector<double>& b) {
  std::map<double, double> multiplicity;
  for (double v : a) {
    multiplicity[v] += 1.0;
  }
  for (double v : b) {
    multiplicity[v] += 1.0;
  }
  double ties = 0.0;
  for (const auto& [value, t] : multiplicity) {
    ties += t * t * t - t;
  }
  const auto na = static_cast<double>(a.size());
  const auto nb = static_cast<double>(b.size());
  const double n = na + nb;
  const double sigma = std::sqrt(na * nb / 12.0 * (n + 1.0 - ties / (n * (n - 1.0))));
  const double z = (std::abs(pairwiseU(a, b) - na * nb / 2.0) - 0.5) / sigma;
  return std::erfc(z / std::sqrt(2.0));
}

/// C(n, k) in integers (exact for the n used here).
std::uint64_t choose(std::uint64_t n, std::uint64_t k) {
  std::uint64_t c = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;  // stays an integer at every step
  }
  return c;
}

/// Coverage of [x(k), x(n+1-k)]: 1 - 2·P(Binom(n, 1/2) <= k-1), from integer binomial sums.
double orderStatisticCoverage(std::uint64_t n, std::uint64_t k) {
  std::uint64_t below = 0;
  for (std::uint64_t i = 0; i < k; ++i) {
    below += choose(n, i);
  }
  return 1.0 - 2.0 * static_cast<double>(below) / std::ldexp(1.0, static_cast<int>(n));
}

std::vector<double> range(double first, std::size_t count, double step = 1.0) {
  std::vector<double> values;
  for (std::size_t i = 0; i < count; ++i) {
    values.push_back(first + step * static_cast<double>(i));
  }
  return values;
}

// ---- median ----

TEST(StatisticsTest, Median) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(median({7.0}), 7.0);
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_THROW((void)median({1.0, std::nan("")}), std::invalid_argument);
}

// ---- medianInterval ----

TEST(StatisticsTest, MedianIntervalBelowSixValuesIsMinMaxWithItsTrueCoverage) {
  // n = 5: even k = 1 covers only 1 - 2/32 = 0.9375 < 95 %.
  const MedianInterval interval = medianInterval({5.0, 3.0, 1.0, 4.0, 2.0});
  EXPECT_DOUBLE_EQ(interval.median, 3.0);
  EXPECT_DOUBLE_EQ(interval.low, 1.0);
  EXPECT_DOUBLE_EQ(interval.high, 5.0);
  EXPECT_DOUBLE_EQ(interval.coverage, 0.9375);
  EXPECT_EQ(interval.count, 5U);
}

TEST(StatisticsTest, MedianIntervalPicksTheNarrowestReachingConfidence) {
  // Values n, n-1, ..., 1, so x(k) = k.
  struct Case {
    std::uint64_t n;
    std::uint64_t k;
  };
  // n = 6: k = 1 covers 1 - 2/64 = 0.96875. n = 10: k = 2 covers 1 - 2·11/1024 = 0.978515625,
  // k = 3 only 1 - 2·56/1024 = 0.890625. n = 20: k = 6 covers 1 - 2·21700/2^20 = 0.9586...,
  // k = 7 only 1 - 2·60460/2^20 = 0.8847...
  for (const Case c : {Case{6, 1}, Case{10, 2}, Case{20, 6}}) {
    SCOPED_TRACE(c.n);
    const MedianInterval interval =
        medianInterval(range(static_cast<double>(c.n), c.n, -1.0), 0.95);
    EXPECT_DOUBLE_EQ(interval.low, static_cast<double>(c.k));
    EXPECT_DOUBLE_EQ(interval.high, static_cast<double>(c.n + 1 - c.k));
    EXPECT_NEAR(interval.coverage, orderStatisticCoverage(c.n, c.k), 1e-12);
    EXPECT_GE(orderStatisticCoverage(c.n, c.k), 0.95);
    EXPECT_LT(orderStatisticCoverage(c.n, c.k + 1), 0.95);
    EXPECT_EQ(interval.count, c.n);
  }
  EXPECT_NEAR(medianInterval(range(1.0, 10)).coverage, 0.978515625, 1e-12);
  EXPECT_NEAR(medianInterval(range(1.0, 20)).coverage, 1.0 - 2.0 * 21700.0 / 1048576.0, 1e-12);
}

TEST(StatisticsTest, MedianIntervalLowerConfidenceNarrows) {
  // n = 10 at 80 %: k = 3 covers 0.890625, k = 4 only 1 - 2·176/1024 = 0.65625.
  const MedianInterval interval = medianInterval(range(1.0, 10), 0.80);
  EXPECT_DOUBLE_EQ(interval.low, 3.0);
  EXPECT_DOUBLE_EQ(interval.high, 8.0);
  EXPECT_NEAR(interval.coverage, 0.890625, 1e-12);
}

TEST(StatisticsTest, MedianIntervalLargeSampleStillCoversTheMedian) {
  // n = 2000: 2^-n underflows, so the binomial terms must not be built from it. The 95 % interval
  // is about median ± 1.96·√n/2 ≈ ±44 order statistics.
  const MedianInterval interval = medianInterval(range(1.0, 2000));
  EXPECT_GE(interval.coverage, 0.95);
  EXPECT_LT(interval.coverage, 0.96);
  EXPECT_NEAR(interval.low, 1000.5 - 44.0, 2.0);
  EXPECT_NEAR(interval.high, 1000.5 + 44.0, 2.0);
}

TEST(StatisticsTest, MedianIntervalEmptyAndInvalid) {
  const MedianInterval empty = medianInterval({});
  EXPECT_TRUE(std::isnan(empty.median));
  EXPECT_TRUE(std::isnan(empty.low));
  EXPECT_TRUE(std::isnan(empty.high));
  EXPECT_EQ(empty.coverage, 0.0);
  EXPECT_EQ(empty.count, 0U);
  EXPECT_THROW((void)medianInterval({1.0, std::nan("")}), std::invalid_argument);
  EXPECT_THROW((void)medianInterval({1.0}, 1.5), std::invalid_argument);
}

// ---- Mann–Whitney U ----

TEST(StatisticsTest, UTestFullySeparatedSamplesGiveTheSmallestPossibleP) {
  // Only the two extreme assignments are as extreme: p = 2 / C(2n, n).
  const UTestResult three = mannWhitneyU({4.0, 5.0, 6.0}, {1.0, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(three.u, 9.0);
  EXPECT_NEAR(three.p_value, 2.0 / 20.0, 1e-12);
  EXPECT_TRUE(three.exact);
  EXPECT_NEAR(mannWhitneyU(range(1.0, 4), range(11.0, 4)).p_value, 2.0 / 70.0, 1e-12);
  EXPECT_NEAR(mannWhitneyU(range(1.0, 5), range(11.0, 5)).p_value, 2.0 / 252.0, 1e-12);
  EXPECT_DOUBLE_EQ(mannWhitneyU(range(1.0, 5), range(11.0, 5)).u, 0.0);
  // Unequal sizes: still the two extremes, 2 / C(10, 3) = 2/120.
  EXPECT_NEAR(mannWhitneyU(range(1.0, 3), range(11.0, 7)).p_value, 2.0 / 120.0, 1e-12);
}

TEST(StatisticsTest, UTestMatchesRsWilcoxTestExample) {
  // R, ?wilcox.test: wilcox.test(x, y) gives W = 35, p-value = 0.2544 (exact). W is the U of x.
  const std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  const UTestResult result = mannWhitneyU(x, y);
  EXPECT_DOUBLE_EQ(result.u, 35.0);
  EXPECT_DOUBLE_EQ(pairwiseU(x, y), 35.0);
  EXPECT_TRUE(result.exact);
  EXPECT_NEAR(result.p_value, 0.2544, 5e-5);
  EXPECT_NEAR(result.p_value, bruteForceP(x, y), 1e-12);
}

TEST(StatisticsTest, UTestMatchesScipysExactExample) {
  // scipy.stats.mannwhitneyu docs: males vs females, U1 = 17, exact p = 0.1111111111111111.
  const UTestResult result = mannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_DOUBLE_EQ(result.u, 17.0);
  EXPECT_TRUE(result.exact);
  EXPECT_NEAR(result.p_value, 0.1111111111111111, 1e-12);
}

TEST(StatisticsTest, UTestWithTiesMatchesBruteForceEnumeration) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases{
      {{1, 2, 2, 3, 3}, {2, 3, 3, 4, 4, 5}},
      {{1, 1, 1, 2}, {1, 2, 2, 2}},
      {{10, 10, 12, 12, 12, 15, 15, 20}, {9, 10, 12, 14, 14, 15, 20, 20, 20}},
      {{5, 5, 5, 5, 6}, {5, 5, 6, 6, 6, 6, 7}},
      {{1, 2, 3}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
  };
  for (const auto& [a, b] : cases) {
    const UTestResult result = mannWhitneyU(a, b);
    EXPECT_TRUE(result.exact);
    EXPECT_DOUBLE_EQ(result.u, pairwiseU(a, b));
    EXPECT_NEAR(result.p_value, bruteForceP(a, b), 1e-12);
  }
}

TEST(StatisticsTest, UTestIsSymmetric) {
  const std::vector<double> a{3.1, 4.1, 5.9, 2.6, 5.3, 5.8};
  const std::vector<double> b{9.7, 9.3, 2.3, 8.4, 6.2, 6.4, 3.3};
  const UTestResult ab = mannWhitneyU(a, b);
  const UTestResult ba = mannWhitneyU(b, a);
  EXPECT_DOUBLE_EQ(ab.u + ba.u, 6.0 * 7.0);
  EXPECT_DOUBLE_EQ(ab.p_value, ba.p_value);
}

TEST(StatisticsTest, NormalApproximationOracleMatchesPublishedValues) {
  // scipy.stats.mannwhitneyu docs, method="asymptotic": p = 0.11134688653314041.
  EXPECT_NEAR(normalApproximationP({19, 22, 16, 29, 24}, {20, 11, 17, 12}), 0.11134688653314041,
              1e-12);
  // R: wilcox.test(c(1, 2, 3), c(4, 5, 6), exact = FALSE): z = 4 / √5.25, p-value = 0.08086.
  EXPECT_NEAR(normalApproximationP({1, 2, 3}, {4, 5, 6}), 0.08086, 5e-6);
}

TEST(StatisticsTest, UTestUsesTheNormalApproximationForLargeSamples) {
  // 40 vs 40 is beyond the exact limit (80·40 > 2500). Shifted by 5.5: no ties.
  const std::vector<double> a = range(5.5, 40);
  const std::vector<double> b = range(0.0, 40);
  const UTestResult shifted = mannWhitneyU(a, b);
  EXPECT_FALSE(shifted.exact);
  EXPECT_DOUBLE_EQ(shifted.u, pairwiseU(a, b));
  EXPECT_NEAR(shifted.p_value, normalApproximationP(a, b), 1e-12);

  // With ties: c holds 0..10 four times each and 11 once, d holds 1..9 five times each.
  std::vector<double> c;
  std::vector<double> d;
  for (std::size_t i = 0; i < 45; ++i) {
    c.push_back(std::floor(static_cast<double>(i) / 4.0));
    d.push_back(std::floor(static_cast<double>(i) / 5.0) + 1.0);
  }
  const UTestResult tied = mannWhitneyU(c, d);
  EXPECT_FALSE(tied.exact);
  EXPECT_DOUBLE_EQ(tied.u, pairwiseU(c, d));
  EXPECT_NEAR(tied.p_value, normalApproximationP(c, d), 1e-12);
}

TEST(StatisticsTest, UTestExactLimitAndApproximationNearIt) {
  // (n_a + n_b)·min(n_a, n_b) <= kExactUTestLimit is exact.
  EXPECT_TRUE(mannWhitneyU(range(0.0, 5), range(0.5, 495)).exact);   // 500·5 = 2500
  EXPECT_FALSE(mannWhitneyU(range(0.0, 5), range(0.5, 496)).exact);  // 501·5
  EXPECT_FALSE(mannWhitneyU(range(0.0, 36), range(0.5, 36)).exact);  // 72·36

  // 35 vs 35 is exact; just below the limit, the approximation is already close.
  const std::vector<double> a = range(3.5, 35);
  const std::vector<double> b = range(0.0, 35);
  const UTestResult exact = mannWhitneyU(a, b);
  EXPECT_TRUE(exact.exact);
  EXPECT_NEAR(exact.p_value, normalApproximationP(a, b), 2e-3);
}

TEST(StatisticsTest, UTestDegenerateInput) {
  const UTestResult empty = mannWhitneyU({}, {1.0, 2.0});
  EXPECT_DOUBLE_EQ(empty.p_value, 1.0);
  EXPECT_DOUBLE_EQ(empty.u, 0.0);
  const UTestResult equal = mannWhitneyU({2.0, 2.0, 2.0}, {2.0, 2.0});
  EXPECT_DOUBLE_EQ(equal.p_value, 1.0);
  EXPECT_DOUBLE_EQ(equal.u, 3.0);  // six ties at 1/2
  const UTestResult infinite = mannWhitneyU({kInf, kInf, 1.0}, {0.0, -kInf});
  EXPECT_DOUBLE_EQ(infinite.u, pairwiseU({kInf, kInf, 1.0}, {0.0, -kInf}));
  EXPECT_THROW((void)mannWhitneyU({1.0, std::nan("")}, {2.0}), std::invalid_argument);
  EXPECT_THROW((void)mannWhitneyU({1.0}, {std::nan("")}), std::invalid_argument);
}

/// P(W+ >= observed) by enumerating every sign assignment of the non-zero |d|, with midranks
/// computed naively: the oracle for wilcoxonSignedRank.
double signedRankByEnumeration(const std::vector<double>& differences) {
  std::vector<double> magnitudes;
  std::vector<bool> positive;
  for (const double d : differences) {
    if (d != 0.0) {
      magnitudes.push_back(std::abs(d));
      positive.push_back(d > 0.0);
    }
  }
  const std::size_t n = magnitudes.size();
  std::vector<double> ranks(n);
  for (std::size_t i = 0; i < n; ++i) {
    double below = 0.0;
    double equal = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      below += magnitudes[j] < magnitudes[i] ? 1.0 : 0.0;
      equal += magnitudes[j] == magnitudes[i] ? 1.0 : 0.0;
    }
    ranks[i] = below + (equal + 1.0) / 2.0;
  }
  double observed = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    observed += positive[i] ? ranks[i] : 0.0;
  }
  std::size_t at_least = 0;
  for (std::uint64_t signs = 0; signs < (std::uint64_t{1} << n); ++signs) {
    double w = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      w += ((signs >> i) & 1U) != 0 ? ranks[i] : 0.0;
    }
    at_least += w >= observed - 1e-9 ? 1 : 0;
  }
  return static_cast<double>(at_least) / static_cast<double>(std::uint64_t{1} << n);
}

TEST(StatisticsTest, SignedRankMatchesEnumerationWithTiesAndZeros) {
  std::uint64_t state = 7;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33U) % 9U) - 3;  // -3..5: ties, zeros, both signs
  };
  for (std::size_t n = 1; n <= 13; ++n) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> differences;
      for (std::size_t i = 0; i < n; ++i) {
        differences.push_back(0.5 * next());
      }
      const SignedRankResult result = wilcoxonSignedRank(differences);
      EXPECT_TRUE(result.exact);
      EXPECT_NEAR(result.p_value, signedRankByEnumeration(differences), 1e-12)
          << "n " << n << " trial " << trial;
    }
  }
}

TEST(StatisticsTest, SignedRankSmallestPIsTwoToTheMinusN) {
  EXPECT_DOUBLE_EQ(wilcoxonSignedRank({1, 2, 3, 4, 5}).p_value, 1.0 / 32.0);
  EXPECT_DOUBLE_EQ(wilcoxonSignedRank({-1, -2, -3, -4, -5}).p_value, 1.0);
  // Zeros carry no direction and are left out: three informative rounds, p = 1/8.
  const SignedRankResult zeros = wilcoxonSignedRank({0, 2, 0, 3, 4});
  EXPECT_EQ(zeros.n, 3U);
  EXPECT_DOUBLE_EQ(zeros.p_value, 1.0 / 8.0);
  EXPECT_EQ(wilcoxonSignedRank({}).p_value, 1.0);
  EXPECT_EQ(wilcoxonSignedRank({0, 0}).n, 0U);
  EXPECT_THROW(static_cast<void>(wilcoxonSignedRank({1, kNaN})), std::invalid_argument);
}

TEST(StatisticsTest, SignedRankApproximatesBeyondTheExactLimit) {
  // 80 differences, 60 % of them positive and larger: beyond the exact limit, the normal
  // approximation; its first 60 exactly. Both see the shift.
  std::vector<double> differences;
  for (int i = 0; i < 80; ++i) {
    differences.push_back(i % 5 < 3 ? 1.0 + i : -0.5 * i);
  }
  const SignedRankResult large = wilcoxonSignedRank(differences);
  EXPECT_FALSE(large.exact);
  EXPECT_LT(large.p_value, 0.05);
  const std::vector<double> first(differences.begin(), differences.begin() + 60);
  const SignedRankResult exact = wilcoxonSignedRank(first);
  EXPECT_TRUE(exact.exact);
  EXPECT_LT(exact.p_value, 0.05);
}

TEST(StatisticsTest, SmallestPossiblePValue) {
  EXPECT_NEAR(smallestPossiblePValue(3, 3), 0.1, 1e-15);
  EXPECT_NEAR(smallestPossiblePValue(4, 4), 2.0 / 70.0, 1e-15);
  EXPECT_NEAR(smallestPossiblePValue(4, 4), 0.0286, 1e-4);
  EXPECT_NEAR(smallestPossiblePValue(5, 5), 2.0 / 252.0, 1e-15);
  EXPECT_NEAR(smallestPossiblePValue(5, 5), 0.00794, 1e-5);
  EXPECT_NEAR(smallestPossiblePValue(2, 8), 2.0 / 45.0, 1e-15);
  EXPECT_NEAR(smallestPossiblePValue(8, 2), 2.0 / 45.0, 1e-15);
  EXPECT_DOUBLE_EQ(smallestPossiblePValue(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(smallestPossiblePValue(0, 5), 1.0);
  EXPECT_NEAR(smallestPossiblePValue(10, 10), 2.0 / static_cast<double>(choose(20, 10)), 1e-18);
}

// ---- multiple testing ----

TEST(StatisticsTest, BenjaminiHochbergWorkedExample) {
  // Sorted 0.005, 0.01, 0.03, 0.04; k = 4: 0.04 <= 4·0.05/4, so all four are discoveries.
  // Adjusted, sorted: min over j >= i of 4·p(j)/j = 0.02, 0.02, 0.04, 0.04.
  const MultipleTestResult result = benjaminiHochberg({0.01, 0.04, 0.03, 0.005}, 0.05);
  EXPECT_EQ(result.rejected, (std::vector<bool>{true, true, true, true}));
  ASSERT_EQ(result.adjusted.size(), 4U);
  EXPECT_NEAR(result.adjusted[0], 0.02, 1e-12);
  EXPECT_NEAR(result.adjusted[1], 0.04, 1e-12);
  EXPECT_NEAR(result.adjusted[2], 0.04, 1e-12);
  EXPECT_NEAR(result.adjusted[3], 0.02, 1e-12);
}

TEST(StatisticsTest, BenjaminiHochbergStepsUp) {
  // Sorted 0.03, 0.04, 0.045: p(3) = 0.045 <= 0.05 rejects all, though p(1) > 0.05/3.
  // Adjusted: 3·0.045/3 = 0.045 carries down over 3·0.04/2 = 0.06 and 3·0.03 = 0.09.
  const MultipleTestResult result = benjaminiHochberg({0.04, 0.045, 0.03}, 0.05);
  EXPECT_EQ(result.rejected, (std::vector<bool>{true, true, true}));
  for (double adjusted : result.adjusted) {
    EXPECT_NEAR(adjusted, 0.045, 1e-12);
  }
}

TEST(StatisticsTest, BenjaminiHochberg1995Example) {
  // Benjamini & Hochberg (1995), section 4: 15 p-values, q = 0.05. The FDR procedure rejects the
  // four smallest (0.0095 <= 4·0.05/15; no larger k qualifies); Holm stops after three
  // (0.0095 > 0.05/12).
  const std::vector<double> p{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                              0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
  std::vector<bool> four(15, false);
  std::fill(four.begin(), four.begin() + 4, true);
  std::vector<bool> three(15, false);
  std::fill(three.begin(), three.begin() + 3, true);
  EXPECT_EQ(benjaminiHochberg(p, 0.05).rejected, four);
  EXPECT_EQ(holm(p, 0.05).rejected, three);
}

TEST(StatisticsTest, HolmWorkedExample) {
  // Sorted 0.005 <= 0.05/4 reject, 0.01 <= 0.05/3 reject, 0.03 > 0.05/2 stop (0.04 kept too).
  // Adjusted, sorted: running max of 4·0.005, 3·0.01, 2·0.03, 1·0.04 = 0.02, 0.03, 0.06, 0.06.
  const MultipleTestResult result = holm({0.01, 0.04, 0.03, 0.005}, 0.05);
  EXPECT_EQ(result.rejected, (std::vector<bool>{true, false, false, true}));
  ASSERT_EQ(result.adjusted.size(), 4U);
  EXPECT_NEAR(result.adjusted[0], 0.03, 1e-12);
  EXPECT_NEAR(result.adjusted[1], 0.06, 1e-12);
  EXPECT_NEAR(result.adjusted[2], 0.06, 1e-12);
  EXPECT_NEAR(result.adjusted[3], 0.02, 1e-12);
}

TEST(StatisticsTest, MultipleTestingCapsAtOneAndHandlesEmptyAndInvalidInput) {
  EXPECT_EQ(holm({0.5, 0.6}).adjusted, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(benjaminiHochberg({0.9, 1.0}).adjusted, (std::vector<double>{1.0, 1.0}));
  EXPECT_TRUE(benjaminiHochberg({}).rejected.empty());
  EXPECT_TRUE(benjaminiHochberg({}).adjusted.empty());
  EXPECT_TRUE(holm({}).rejected.empty());
  EXPECT_TRUE(holm({}).adjusted.empty());
  EXPECT_THROW((void)benjaminiHochberg({0.1, std::nan("")}), std::invalid_argument);
  EXPECT_THROW((void)holm({1.5}), std::invalid_argument);
  EXPECT_THROW((void)holm({0.1}, -0.1), std::invalid_argument);
}

// ---- bootstrap ----

TEST(StatisticsTest, BootstrapIsDeterministicForASeed) {
  const std::vector<double> a{101, 97, 110, 104, 99, 95, 108};
  const std::vector<double> b{90, 96, 88, 93, 101, 85};
  const RatioInterval first = bootstrapMedianRatio(a, b, 0.95, 500, 42);
  const RatioInterval second = bootstrapMedianRatio(a, b, 0.95, 500, 42);
  EXPECT_EQ(first.low, second.low);
  EXPECT_EQ(first.high, second.high);
  EXPECT_DOUBLE_EQ(first.ratio, median(a) / median(b));
  EXPECT_LE(first.low, first.ratio);
  EXPECT_GE(first.high, first.ratio);
  // Every resampled median lies within its sample's range.
  EXPECT_GE(first.low, 95.0 / 101.0);
  EXPECT_LE(first.high, 110.0 / 85.0);
}

TEST(StatisticsTest, BootstrapSeparatesClearDifferencesOnly) {
  const std::vector<double> fast{200, 205, 198, 210, 202, 199, 207, 201, 204, 196};
  const std::vector<double> slow{100, 104, 98, 103, 99, 101, 97, 102, 105, 100};
  const RatioInterval different = bootstrapMedianRatio(fast, slow);
  EXPECT_DOUBLE_EQ(different.ratio, 201.5 / 100.5);  // (201 + 202)/2 over (100 + 101)/2
  EXPECT_GT(different.low, 1.0);
  EXPECT_LE(different.low, different.ratio);
  EXPECT_GE(different.high, different.ratio);

  const RatioInterval same = bootstrapMedianRatio(slow, slow);
  EXPECT_DOUBLE_EQ(same.ratio, 1.0);
  EXPECT_LT(same.low, 1.0);
  EXPECT_GT(same.high, 1.0);
}

TEST(StatisticsTest, BootstrapZeroDenominatorsAndDegenerateInput) {
  const RatioInterval infinite = bootstrapMedianRatio({1.0, 2.0, 3.0}, {0.0, 0.0}, 0.9, 100);
  EXPECT_EQ(infinite.ratio, kInf);
  EXPECT_EQ(infinite.low, kInf);
  EXPECT_EQ(infinite.high, kInf);

  const RatioInterval undefined = bootstrapMedianRatio({0.0, 0.0}, {0.0}, 0.9, 100);
  EXPECT_TRUE(std::isnan(undefined.ratio));
  EXPECT_TRUE(std::isnan(undefined.low));
  EXPECT_TRUE(std::isnan(undefined.high));

  // Resamples of b = {0, 1} have median 0 (1/4 of the time), 0.5 (1/2) or 1 (1/4); the ratios
  // 1/median are inf, 2 or 1. Sorted, the 2.5 % percentile falls among the 1s and the 97.5 % one
  // among the infinities (NaN-free, so nothing is left out).
  const RatioInterval mixed = bootstrapMedianRatio({1.0, 1.0}, {0.0, 1.0}, 0.95, 400);
  EXPECT_DOUBLE_EQ(mixed.ratio, 2.0);
  EXPECT_DOUBLE_EQ(mixed.low, 1.0);
  EXPECT_EQ(mixed.high, kInf);

  EXPECT_TRUE(std::isnan(bootstrapMedianRatio({}, {1.0}).low));
  EXPECT_TRUE(std::isnan(bootstrapMedianRatio({1.0}, {1.0}, 0.95, 0).low));
  EXPECT_THROW((void)bootstrapMedianRatio({std::nan("")}, {1.0}), std::invalid_argument);
  EXPECT_THROW((void)bootstrapMedianRatio({1.0}, {1.0}, 2.0), std::invalid_argument);
}

}  // namespace
}  // namespace benchd::results::stats
