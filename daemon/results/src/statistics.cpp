#include <benchd/results/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace benchd::results::stats {
namespace {

void requireNoNaN(const std::vector<double>& values, const char* what) {
  if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); })) {
    throw std::invalid_argument(std::string(what) + ": NaN is not a sample value");
  }
}

void requireProbability(double p, const char* what) {
  if (!(p >= 0.0 && p <= 1.0)) {  // also rejects NaN
    throw std::invalid_argument(std::string(what) + ": expected a probability in [0, 1]");
  }
}

/// Median of an already sorted, non-empty range.
double sortedMedian(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  const std::size_t mid = n / 2;
  return n % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
}

/// P(Binom(n, 1/2) <= j) for j = 0 .. n. The terms are built in log space so that n beyond 1074
/// (where 2^-n underflows) still works.
std::vector<double> binomialHalfCdf(std::size_t n) {
  std::vector<double> cdf(n + 1);
  double log_term = -static_cast<double>(n) * std::log(2.0);
  double sum = 0.0;
  for (std::size_t j = 0; j <= n; ++j) {
    sum += std::exp(log_term);
    cdf[j] = sum;
    log_term += std::log(static_cast<double>(n - j) / static_cast<double>(j + 1));
  }
  return cdf;
}

/// Uniform in [0, n), n > 0, without modulo bias: draws below 2^64 mod n are rejected, so the
/// accepted range is a multiple of n. Spelled out so the stream is the same everywhere.
std::size_t drawIndex(std::mt19937_64& engine, std::size_t n) {
  const std::uint64_t bound = n;
  const std::uint64_t threshold = (std::uint64_t{0} - bound) % bound;  // 2^64 mod n
  std::uint64_t x = engine();
  while (x < threshold) {
    x = engine();
  }
  return static_cast<std::size_t>(x % bound);
}

/// The median of sample.size() values drawn with replacement from `sample` (non-empty).
double resampledMedian(const std::vector<double>& sample, std::mt19937_64& engine,
                       std::vector<double>& scratch) {
  scratch.resize(sample.size());
  for (double& value : scratch) {
    value = sample[drawIndex(engine, sample.size())];
  }
  std::sort(scratch.begin(), scratch.end());
  return sortedMedian(scratch);
}

/// numerator / denominator with a zero denominator read as +0, whatever its sign bit.
double ratioOf(double numerator, double denominator) {
  if (denominator != 0.0) {
    return numerator / denominator;
  }
  if (numerator == 0.0) {
    return kNaN;
  }
  return numerator > 0.0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
}

/// Linearly interpolated percentile (fraction in [0, 1]) of a sorted, non-empty range; equal
/// neighbours (infinities included) are returned as they are rather than interpolated.
double sortedPercentile(const std::vector<double>& sorted, double fraction) {
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const double weight = position - static_cast<double>(below);
  if (weight == 0.0 || below + 1 >= sorted.size() || sorted[below] == sorted[below + 1]) {
    return sorted[below];
  }
  return sorted[below] + weight * (sorted[below + 1] - sorted[below]);
}

/// The pooled sample's midranks, doubled so that they are integers (a tie block over positions
/// i+1 .. j has midrank (i+1+j)/2), and the tie term Σ(t³ - t) of the normal approximation.
struct PooledRanks {
  std::vector<std::size_t> doubled_a;  ///< of the values of `a`, in any order
  std::vector<std::size_t> doubled_b;
  double tie_term = 0.0;
  std::size_t distinct = 0;  ///< number of tie blocks (distinct values)
};

PooledRanks rankPooled(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // (value, from a)
  pooled.reserve(a.size() + b.size());
  for (double v : a) {
    pooled.emplace_back(v, true);
  }
  for (double v : b) {
    pooled.emplace_back(v, false);
  }
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  PooledRanks ranks;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) {
      ++j;
    }
    const std::size_t doubled = i + 1 + j;
    for (std::size_t k = i; k < j; ++k) {
      (pooled[k].second ? ranks.doubled_a : ranks.doubled_b).push_back(doubled);
    }
    const auto t = static_cast<double>(j - i);
    ranks.tie_term += t * t * t - t;
    ++ranks.distinct;
    i = j;
  }
  return ranks;
}

/// Exact two-sided p of a rank-sum statistic: `chosen` is the doubled midrank of each member of
/// the smaller group, `all` those of the pooled sample. Counts, for every doubled rank sum s, the
/// subsets of `all` of that size with sum s (a knapsack DP, ties handled because equal midranks
/// are just equal weights), then the share whose |s - centre| reaches the observed one. Integer
/// sums make the comparison exact; counts are doubles, as C(n, m) outgrows 64 bits.
double exactRankSumP(const std::vector<std::size_t>& chosen, const std::vector<std::size_t>& all) {
  const std::size_t m = chosen.size();
  const std::size_t n = all.size();
  const std::size_t max_sum = 2 * n * m;  // no doubled midrank exceeds 2n
  const std::size_t width = max_sum + 1;
  std::vector<double> ways((m + 1) * width, 0.0);  // ways[j * width + s]
  ways[0] = 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t rank = all[i];
    for (std::size_t j = std::min(i + 1, m); j >= 1; --j) {
      double* to = &ways[j * width];
      const double* from = &ways[(j - 1) * width];
      // j items sum to at most 2n·j: nothing beyond is reachable yet.
      for (std::size_t s = 2 * n * j; s >= rank; --s) {
        to[s] += from[s - rank];
      }
    }
  }
  // The doubled mean rank sum.
  const auto centre = static_cast<long long>(m) * static_cast<long long>(n + 1);
  const auto observed =
      static_cast<long long>(std::accumulate(chosen.begin(), chosen.end(), std::size_t{0}));
  const long long deviation = std::llabs(observed - centre);
  double extreme = 0.0;
  double total = 0.0;
  for (std::size_t s = 0; s <= max_sum; ++s) {
    const double count = ways[m * width + s];
    total += count;
    if (std::llabs(static_cast<long long>(s) - centre) >= deviation) {
      extreme += count;
    }
  }
  return std::min(1.0, extreme / total);
}

/// The step-up (BH) or step-down (Holm) procedure on the p-values in ascending order.
enum class Procedure { kBenjaminiHochberg, kHolm };

MultipleTestResult adjust(const std::vector<double>& p_values, double level, Procedure procedure) {
  for (double p : p_values) {
    requireProbability(p, "p-value");
  }
  requireProbability(level, "level");
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&p_values](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });

  MultipleTestResult result{std::vector<bool>(m, false), std::vector<double>(m, 1.0)};
  const auto total = static_cast<double>(m);
  if (procedure == Procedure::kBenjaminiHochberg) {
    std::size_t discoveries = 0;  // the largest rank k with p(k) <= k·q/m
    double running_min = 1.0;
    for (std::size_t rank = m; rank >= 1; --rank) {
      const double p = p_values[order[rank - 1]];
      const auto k = static_cast<double>(rank);
      if (discoveries == 0 && p <= k * level / total) {
        discoveries = rank;
      }
      running_min = std::min(running_min, total * p / k);
      result.adjusted[order[rank - 1]] = running_min;
    }
    for (std::size_t rank = 1; rank <= discoveries; ++rank) {
      result.rejected[order[rank - 1]] = true;
    }
  } else {
    bool rejecting = true;
    double running_max = 0.0;
    for (std::size_t rank = 1; rank <= m; ++rank) {
      const double p = p_values[order[rank - 1]];
      const auto remaining = static_cast<double>(m + 1 - rank);
      rejecting = rejecting && p <= level / remaining;
      running_max = std::max(running_max, std::min(1.0, remaining * p));
      result.rejected[order[rank - 1]] = rejecting;
      result.adjusted[order[rank - 1]] = running_max;
    }
  }
  return result;
}

}  // namespace

double median(std::vector<double> values) {
  requireNoNaN(values, "median");
  if (values.empty()) {
    return kNaN;
  }
  std::sort(values.begin(), values.end());
  return sortedMedian(values);
}

MedianInterval medianInterval(std::vector<double> values, double confidence) {
  requireNoNaN(values, "medianInterval");
  requireProbability(confidence, "medianInterval confidence");
  MedianInterval interval;
  interval.count = values.size();
  if (values.empty()) {
    return interval;
  }
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const std::vector<double> cdf = binomialHalfCdf(n);
  // coverage(k) = 1 - 2·P(B <= k-1) shrinks as k grows: take the largest k that still reaches
  // `confidence` (the tolerance lets an exactly representable level count as reached), else 1.
  const auto coverage = [&cdf](std::size_t k) { return std::max(0.0, 1.0 - 2.0 * cdf[k - 1]); };
  constexpr double kTolerance = 1e-12;
  std::size_t k = 1;
  while (k + 1 <= (n + 1) / 2 && coverage(k + 1) >= confidence - kTolerance) {
    ++k;
  }
  interval.median = sortedMedian(values);
  interval.low = values[k - 1];
  interval.high = values[n - k];
  interval.coverage = coverage(k);
  return interval;
}

UTestResult mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  requireNoNaN(a, "mannWhitneyU a");
  requireNoNaN(b, "mannWhitneyU b");
  const auto n_a = static_cast<double>(a.size());
  const auto n_b = static_cast<double>(b.size());
  const double mean_u = n_a * n_b / 2.0;
  if (a.empty() || b.empty()) {
    return {mean_u, 1.0, true};
  }
  const PooledRanks ranks = rankPooled(a, b);
  const auto doubled_sum_a = static_cast<double>(
      std::accumulate(ranks.doubled_a.begin(), ranks.doubled_a.end(), std::size_t{0}));
  UTestResult result;
  result.u = (doubled_sum_a - n_a * (n_a + 1.0)) / 2.0;  // rank sum minus its minimum
  if (ranks.distinct == 1) {
    return {result.u, 1.0, true};  // all values equal: every assignment has the same U
  }

  const std::size_t n = a.size() + b.size();
  const std::size_t smaller = std::min(a.size(), b.size());
  if (n * smaller <= kExactUTestLimit) {
    // |U - n_a·n_b/2| equals the deviation of either group's rank sum from its mean, so the
    // cheaper DP over the smaller group gives the same p.
    const auto& chosen = a.size() <= b.size() ? ranks.doubled_a : ranks.doubled_b;
    std::vector<std::size_t> all = ranks.doubled_a;
    all.insert(all.end(), ranks.doubled_b.begin(), ranks.doubled_b.end());
    result.p_value = exactRankSumP(chosen, all);
    result.exact = true;
    return result;
  }

  const auto total = static_cast<double>(n);
  const double variance =
      n_a * n_b / 12.0 * ((total + 1.0) - ranks.tie_term / (total * (total - 1.0)));
  const double z = std::max(0.0, std::abs(result.u - mean_u) - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  result.exact = false;
  return result;
}

SignedRankResult wilcoxonSignedRank(const std::vector<double>& differences) {
  requireNoNaN(differences, "wilcoxonSignedRank");
  std::vector<double> magnitudes;
  std::vector<bool> positive;
  for (const double difference : differences) {
    if (difference != 0.0) {
      magnitudes.push_back(std::abs(difference));
      positive.push_back(difference > 0.0);
    }
  }
  SignedRankResult result;
  result.n = magnitudes.size();
  if (result.n == 0) {
    return result;
  }
  // Doubled midranks of |d|: integers, so the exact count needs no floating equality.
  std::vector<std::size_t> order(result.n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&magnitudes](std::size_t a, std::size_t b) { return magnitudes[a] < magnitudes[b]; });
  std::vector<std::size_t> doubled(result.n);
  double tie_term = 0.0;
  for (std::size_t start = 0; start < result.n;) {
    std::size_t end = start;
    while (end < result.n && magnitudes[order[end]] == magnitudes[order[start]]) {
      ++end;
    }
    // Ranks start+1 .. end share their mean; doubled: start + 1 + end.
    for (std::size_t index = start; index < end; ++index) {
      doubled[order[index]] = start + 1 + end;
    }
    const auto tied = static_cast<double>(end - start);
    tie_term += tied * tied * tied - tied;
    start = end;
  }
  std::size_t observed = 0;
  std::size_t total = 0;
  for (std::size_t index = 0; index < result.n; ++index) {
    total += doubled[index];
    observed += positive[index] ? doubled[index] : 0;
  }
  result.w_plus = static_cast<double>(observed) / 2.0;
  if (result.n <= kExactSignedRankLimit) {
    // ways[s]: sign assignments whose positive doubled ranks sum to s, each 2^-n likely.
    std::vector<long double> ways(total + 1, 0.0L);
    ways[0] = 1.0L;
    std::size_t reach = 0;
    for (const std::size_t rank : doubled) {
      for (std::size_t sum = reach + 1; sum-- > 0;) {
        if (ways[sum] != 0.0L) {
          ways[sum + rank] += ways[sum];
        }
      }
      reach += rank;
    }
    long double at_least = 0.0L;
    for (std::size_t sum = observed; sum <= total; ++sum) {
      at_least += ways[sum];
    }
    result.p_value = static_cast<double>(
        std::min(1.0L, at_least / std::ldexp(1.0L, static_cast<int>(result.n))));
    return result;
  }
  const auto n = static_cast<double>(result.n);
  const double mean = n * (n + 1.0) / 4.0;
  const double variance = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term / 48.0;
  const double z = (result.w_plus - mean - 0.5) / std::sqrt(variance);
  result.p_value = 0.5 * std::erfc(z / std::sqrt(2.0));
  result.exact = false;
  return result;
}

double smallestPossiblePValue(std::size_t n_a, std::size_t n_b) {
  // C(n_a + n_b, k) built up multiplicatively: exact while it fits in 53 bits; beyond that the
  // rounding is far below any p-value that matters.
  const std::size_t k = std::min(n_a, n_b);
  double combinations = 1.0;
  for (std::size_t i = 1; i <= k; ++i) {
    combinations = combinations * static_cast<double>(n_a + n_b - k + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2.0 / combinations);
}

MultipleTestResult benjaminiHochberg(const std::vector<double>& p_values, double q) {
  return adjust(p_values, q, Procedure::kBenjaminiHochberg);
}

MultipleTestResult holm(const std::vector<double>& p_values, double alpha) {
  return adjust(p_values, alpha, Procedure::kHolm);
}

RatioInterval bootstrapMedianRatio(const std::vector<double>& a, const std::vector<double>& b,
                                   double confidence, std::size_t resamples, std::uint64_t seed) {
  requireNoNaN(a, "bootstrapMedianRatio a");
  requireNoNaN(b, "bootstrapMedianRatio b");
  requireProbability(confidence, "bootstrapMedianRatio confidence");
  RatioInterval interval;
  if (a.empty() || b.empty()) {
    return interval;
  }
  interval.ratio = ratioOf(median(a), median(b));

  std::mt19937_64 engine(seed);
  std::vector<double> ratios;
  ratios.reserve(resamples);
  std::vector<double> scratch;
  for (std::size_t i = 0; i < resamples; ++i) {
    const double numerator = resampledMedian(a, engine, scratch);    // a first, then b: the order
    const double denominator = resampledMedian(b, engine, scratch);  // fixes the stream
    const double ratio = ratioOf(numerator, denominator);
    if (!std::isnan(ratio)) {
      ratios.push_back(ratio);
    }
  }
  if (ratios.empty()) {
    return interval;
  }
  std::sort(ratios.begin(), ratios.end());
  interval.low = sortedPercentile(ratios, (1.0 - confidence) / 2.0);
  interval.high = sortedPercentile(ratios, (1.0 + confidence) / 2.0);
  return interval;
}

}  // namespace benchd::results::stats
