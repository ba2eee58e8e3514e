#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace benchd::results::stats {

/// Deciding whether a benchmark difference is real. One run is one sample (requests inside a run
/// are autocorrelated); a win needs a significant rank test, corrected for the number of cells
/// compared, and an effect-size interval that clears a practical threshold. Distribution-free on
/// purpose: run-level throughput and latency values are skewed and drift, so nothing here assumes
/// normality except the large-sample approximation of the U test.
///
/// Sample values must not be NaN: a NaN has no rank and no order, so every function taking
/// samples throws std::invalid_argument for one instead of returning an arbitrary answer.
/// Infinities are ordinary (if extreme) values.
///
/// Pure functions over values, no global state: safe to call concurrently from any thread.

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Median of `values` (mean of the two middle ones for an even count); NaN for none.
/// Throws std::invalid_argument for a NaN value.
[[nodiscard]] double median(std::vector<double> values);

/// A distribution-free confidence interval for the median from order statistics: for a sample
/// of n, [x(k), x(n+1-k)] of the sorted sample covers the population median with probability
/// 1 - 2·P(Binom(n, 1/2) <= k-1), whatever the (continuous) distribution; ties only make it
/// conservative.
struct MedianInterval {
  double median = kNaN;
  double low = kNaN;
  double high = kNaN;
  /// The interval's exact coverage probability, e.g. 0.978515625 for n = 10 ([x(2), x(9)]), or
  /// 0.9375 for n = 5, which cannot reach 95 %; 0 for no values.
  double coverage = 0.0;
  std::size_t count = 0;
};

/// The narrowest such interval whose coverage is not below `confidence` (the largest k). When no
/// k reaches `confidence` (n < 6 at 95 %), the interval is [min, max] (k = 1) and `coverage` says
/// what it really covers, so callers can show "need >= 6 runs" instead of a false 95 %. No values:
/// everything NaN, count and coverage 0. Throws std::invalid_argument for a NaN value or a
/// `confidence` outside [0, 1].
[[nodiscard]] MedianInterval medianInterval(std::vector<double> values, double confidence = 0.95);

/// Two-sided Mann–Whitney U (Wilcoxon rank-sum) test of `a` against `b`.
struct UTestResult {
  /// U of `a`: the number of pairs (x from a, y from b) with x > y, ties counting 1/2; equal to
  /// R's wilcox.test W for (a, b). U(a, b) + U(b, a) = n_a·n_b.
  double u = 0.0;
  double p_value = 1.0;  ///< two-sided
  /// true: the exact permutation distribution of U given the pooled midranks (so exact with ties
  /// too); false: the normal approximation with tie and continuity correction.
  bool exact = false;
};

/// Largest (n_a + n_b)·min(n_a, n_b) for which mannWhitneyU computes the exact distribution
/// (e.g. 35 vs 35, 25 vs 75, 10 vs 240, 5 vs 495). Its work grows as the square of that product,
/// about 2 ms at the limit; around and beyond it the normal approximation is within about 0.005
/// of the exact p.
inline constexpr std::size_t kExactUTestLimit = 2500;

/// Exact when (n_a + n_b)·min(n_a, n_b) <= kExactUTestLimit: p is the share of all
/// C(n_a + n_b, n_a) assignments of the pooled midranks to `a` whose |U - n_a·n_b/2| is at least
/// the observed one (counted over integer doubled rank sums, so no floating equality is involved;
/// no enumeration either). Otherwise the normal approximation: z = (|U - n_a·n_b/2| - 1/2) / σ
/// with the tie-corrected σ, p = 2·(1 - Φ(z)), capped at 1. Empty `a` or `b`, or all values equal:
/// U = n_a·n_b/2, p = 1, exact. Throws std::invalid_argument for a NaN value.
[[nodiscard]] UTestResult mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p-value the U test can give for these sample sizes (no ties):
/// 2 / C(n_a + n_b, n_a), capped at 1. 3 vs 3 → 0.1, 4 vs 4 → 0.0286, 5 vs 5 → 0.00794: below
/// 4 runs per side no difference can be significant at 5 %, whatever the data.
[[nodiscard]] double smallestPossiblePValue(std::size_t n_a, std::size_t n_b);

/// One-sided Wilcoxon signed-rank test of paired differences (one per round of a paired
/// design) against the alternative that they lie above 0.
struct SignedRankResult {
  /// W+: the sum of the ranks of |d| over the positive differences (midranks for ties).
  double w_plus = 0.0;
  /// Differences that count: the non-zero ones (a zero says nothing about the direction and is
  /// left out, Wilcoxon's rule).
  std::size_t n = 0;
  double p_value = 1.0;  ///< P(W+ >= observed) when the differences are symmetric about 0
  bool exact = true;     ///< false: the normal approximation with tie and continuity correction
};

/// Largest count of non-zero differences for which wilcoxonSignedRank computes the exact
/// distribution (a subset-sum count over doubled midranks, so exact with ties too); beyond it
/// the normal approximation is within about 0.001 of the exact p.
inline constexpr std::size_t kExactSignedRankLimit = 60;

/// Exact (up to kExactSignedRankLimit non-zero differences) one-sided signed-rank test: p is the
/// share of the 2^n sign assignments of the ranked |d| whose W+ is at least the observed one.
/// The smallest p it can give is 2^-n (all n differences above 0). No non-zero difference: W+ 0,
/// n 0, p 1. Throws std::invalid_argument for a NaN.
[[nodiscard]] SignedRankResult wilcoxonSignedRank(const std::vector<double>& differences);

/// Decisions for a family of tests, in the order and size of the input p-values.
struct MultipleTestResult {
  std::vector<bool> rejected;
  std::vector<double> adjusted;  ///< adjusted p-values, monotone in p, capped at 1
};

/// Benjamini–Hochberg step-up at false-discovery rate `q`: with p(1) <= ... <= p(m) sorted,
/// rejects p(1..k) for the largest k with p(k) <= k·q/m. Adjusted p(i) = min over j >= i of
/// m·p(j)/j, capped at 1 (so rejected ⇔ adjusted <= q, up to rounding). For a grid of many cells
/// where some false wins are acceptable. Empty input: empty result. Throws
/// std::invalid_argument for a p-value or `q` outside [0, 1] (or NaN).
[[nodiscard]] MultipleTestResult benjaminiHochberg(const std::vector<double>& p_values,
                                                   double q = 0.05);

/// Holm–Bonferroni step-down at family-wise level `alpha`: rejects p(1), p(2), ... while
/// p(i) <= alpha/(m + 1 - i) and stops at the first that is not. Adjusted p(i) = max over j <= i
/// of (m + 1 - j)·p(j), capped at 1. For "no false win anywhere in the grid" at level alpha.
/// Empty input: empty result. Throws std::invalid_argument like benjaminiHochberg.
[[nodiscard]] MultipleTestResult holm(const std::vector<double>& p_values, double alpha = 0.05);

/// An effect size with its uncertainty: median(a) / median(b) and a confidence interval.
struct RatioInterval {
  double ratio = kNaN;
  double low = kNaN;
  double high = kNaN;
};

/// Percentile-bootstrap confidence interval of median(a) / median(b). `resamples` times: draw
/// n_a values of `a` with replacement, then n_b of `b`, and take the ratio of their medians; low
/// and high are the (1 - confidence)/2 and (1 + confidence)/2 percentiles (linearly interpolated
/// between order statistics) of those ratios. A zero denominator median gives ±inf by the sign of
/// the numerator (+inf for the usual non-negative times and rates) and NaN for 0/0; NaN ratios
/// are left out of the percentiles, and if all are NaN, or `a` or `b` is empty, or `resamples`
/// is 0, the interval is NaN. `ratio` is that of the full samples.
///
/// Deterministic for a given `seed` on every platform: std::mt19937_64 and an unbiased index draw
/// of our own (std::uniform_int_distribution's output differs between standard libraries).
/// Throws std::invalid_argument for a NaN value or a `confidence` outside [0, 1].
[[nodiscard]] RatioInterval bootstrapMedianRatio(const std::vector<double>& a,
                                                 const std::vector<double>& b,
                                                 double confidence = 0.95,
                                                 std::size_t resamples = 2000,
                                                 std::uint64_t seed = 1);

}  // namespace benchd::results::stats
