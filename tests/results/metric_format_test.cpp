#include <benchd/results/metric_format.hpp>
#include <benchd/results/results_table.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace benchd::results {
namespace {

TEST(MetricFormatTest, ReferenceExamples) {
  EXPECT_EQ(formatMetricValue(5.4), "5.40");
  EXPECT_EQ(formatMetricValue(14.4), "14.4");
  EXPECT_EQ(formatMetricValue(1809658.0), "1809658");
  EXPECT_EQ(formatMetricValue(0.03), "0.03");
  EXPECT_EQ(formatMetricValue(5.0), "5");
}

TEST(MetricFormatTest, DecimalsByMagnitude) {
  EXPECT_EQ(formatMetricValue(0.0), "0");
  EXPECT_EQ(formatMetricValue(10.0), "10");    // integral beats "above 10"
  EXPECT_EQ(formatMetricValue(100.0), "100");  // integral
  EXPECT_EQ(formatMetricValue(10.001), "10.0");
  EXPECT_EQ(formatMetricValue(9.999), "10.00");  // not above 10: 2 decimals, even if it rounds up
  EXPECT_EQ(formatMetricValue(99.99), "100.0");  // above 10, not above 100: 1 decimal
  EXPECT_EQ(formatMetricValue(100.4), "100");    // above 100: 0 decimals
  EXPECT_EQ(formatMetricValue(431.7), "432");
  EXPECT_EQ(formatMetricValue(0.005), "0.01");  // 0.005 is a little above 5e-3 in binary
  EXPECT_EQ(formatMetricValue(1e20), "100000000000000000000");
}

TEST(MetricFormatTest, ExactHalvesRoundToEvenAsPython) {
  EXPECT_EQ(formatMetricValue(0.125), "0.12");
  EXPECT_EQ(formatMetricValue(0.375), "0.38");
  EXPECT_EQ(formatMetricValue(100.5), "100");
  EXPECT_EQ(formatMetricValue(101.5), "102");
  EXPECT_EQ(formatMetricValue(12.25), "12.2");
  // 2.675 is 2.67499999... in binary: Python prints 2.67, so must we.
  EXPECT_EQ(formatMetricValue(2.675), "2.67");
}

TEST(MetricFormatTest, NegativeValuesFollowTheSameRuleAndNeverShowNegativeZero) {
  EXPECT_EQ(formatMetricValue(-3.0), "-3");
  EXPECT_EQ(formatMetricValue(-14.4), "-14.40");  // the original's rule compares with > 10
  EXPECT_EQ(formatMetricValue(-0.0), "0");
  EXPECT_EQ(formatMetricValue(-0.001), "0.00");
}

TEST(MetricFormatTest, NonFiniteValuesUsePythonsSpellingAndReadBack) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(formatMetricValue(nan), "nan");
  EXPECT_EQ(formatMetricValue(inf), "inf");
  EXPECT_EQ(formatMetricValue(-inf), "-inf");
  EXPECT_TRUE(std::isnan(parseCellNumber(formatMetricValue(nan)).value()));
  EXPECT_EQ(parseCellNumber(formatMetricValue(inf)).value(), inf);
  EXPECT_EQ(parseCellNumber(formatMetricValue(-inf)).value(), -inf);
}

TEST(MetricFormatTest, FormattingIsStableThroughParsing) {
  for (const double value : {0.0, 0.03, 5.4, 5.8, 14.44, 37.4, 100.5, 1809658.4}) {
    const std::string once = formatMetricValue(value);
    EXPECT_EQ(formatMetricValue(parseCellNumber(once).value()), once) << value;
  }
}

TEST(MetricFormatTest, ValuesRoundingUpToAnIntegerKeepTheirDecimalsOnce) {
  // The rule looks at the value, not at its rounding: 9.999 is written "10.00", which reads back
  // as 10 and would be written "10" the next time. Both texts are the same number, which is what
  // the ranking compares.
  EXPECT_EQ(formatMetricValue(9.999), "10.00");
  EXPECT_EQ(formatMetricValue(parseCellNumber("10.00").value()), "10");
  EXPECT_EQ(formatMetricValue(99.96), "100.0");
}

}  // namespace
}  // namespace benchd::results

namespace benchd::results {
namespace {

TEST(MetricFormatTest, ExactValuesAreTheShortestSpellingThatReadsBackTheSameDouble) {
  for (const double value : {0.0512, 0.0531 * 1.01, 1809658.0, 1e-07, 2.5, 0.1 + 0.2}) {
    const std::string text = formatExactMetricValue(value);
    EXPECT_EQ(std::stod(text), value) << text;
  }
  EXPECT_EQ(formatExactMetricValue(0.0512), "0.0512");
  EXPECT_EQ(formatExactMetricValue(5.0), "5");
  EXPECT_EQ(formatExactMetricValue(-0.0), "0");
  EXPECT_EQ(formatExactMetricValue(std::nan("")), "nan");
  EXPECT_EQ(formatExactMetricValue(-std::numeric_limits<double>::infinity()), "-inf");
}

}  // namespace
}  // namespace benchd::results
