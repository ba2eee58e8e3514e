#pragma once

#include <string>

namespace benchd::results {

/// One metric value as results.csv writes it, the original's rule
/// (docs/metrics-and-ranking.md#number-format):
///   - an integral value, or a value above 100: 0 decimals   (1809658, 5 for 5.0, 432 for 431.7)
///   - a value above 10: 1 decimal                             (14.4)
///   - anything else: 2 decimals                               (5.40, 0.03)
/// Digits are correctly rounded from the exact binary value, halfway cases to even, as Python's
/// f-string formatting does, so a value renders exactly as the original would have written it.
/// The ranking compares these rendered values, which makes the rounding its tolerance (the
/// draws of docs/metrics-and-ranking.md#the-winners-grid).
///
/// Values no metric should have, defined so that every double has one rendering:
///   - negative values follow the same rule (-14.4 gives "-14.40", as in the original);
///   - negative zero, and a negative value that rounds to zero, drop the sign ("0", "0.00");
///   - NaN gives "nan", +infinity "inf", -infinity "-inf" (Python's spelling; readResultsCsv
///     reads them back).
/// Locale-independent: always '.' and no grouping.
[[nodiscard]] std::string formatMetricValue(double value);

/// One metric value exactly: the shortest decimal that reads back as the same double ("0.0531",
/// "1809658", "1e-07"), NaN and infinities as formatMetricValue spells them. results-runs.csv
/// holds every run's values this way, so the winners grid's paired tests work on what was
/// measured, not on the original's rounding (0.01 ms steps are 20 % of a 0.05 ms value).
[[nodiscard]] std::string formatExactMetricValue(double value);

/// A p-value as people read it: two significant digits ("0.0079", "0.31"), "< 0.0001" below
/// that, "n/a" for NaN (not tested).
[[nodiscard]] std::string formatPValue(double p);

}  // namespace benchd::results
