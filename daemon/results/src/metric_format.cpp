#include <benchd/results/metric_format.hpp>

#include <array>
#include <charconv>
#include <cmath>

namespace benchd::results {
namespace {

int decimalsFor(double value) {
  if (std::trunc(value) == value || value > 100.0) {
    return 0;
  }
  return value > 10.0 ? 1 : 2;
}

}  // namespace

std::string formatMetricValue(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  // The largest double has 309 integral digits; a sign, a point and 2 decimals fit as well.
  std::array<char, 330> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::fixed, decimalsFor(value));
  std::string text(buffer.data(), result.ptr);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

std::string formatExactMetricValue(double value) {
  if (!std::isfinite(value)) {
    return formatMetricValue(value);
  }
  std::array<char, 32> buffer{};
  const auto printed = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  std::string text(buffer.data(), printed.ptr);
  if (text == "-0") {
    text = "0";
  }
  return text;
}

std::string formatPValue(double p) {
  if (std::isnan(p)) {
    return "n/a";
  }
  if (p < 0.0001) {
    return "< 0.0001";
  }
  std::array<char, 32> buffer{};
  const auto printed =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), p, std::chars_format::general, 2);
  return {buffer.data(), printed.ptr};
}

}  // namespace benchd::results
