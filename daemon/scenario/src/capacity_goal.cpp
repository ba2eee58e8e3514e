#include <benchd/scenario/capacity_goal.hpp>

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

namespace benchd::scenario {
namespace {

/// `value` in the shortest form that reads back the same (50, 99.9, 1.5).
std::string shortNumber(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return {text, result.ptr};
}

/// The leading decimal number of `text`, which it consumes; false if `text` starts otherwise.
bool readNumber(std::string_view& text, double& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || !std::isfinite(value)) {
    return false;
  }
  text.remove_prefix(static_cast<std::size_t>(result.ptr - text.data()));
  return true;
}

}  // namespace

std::string CapacityGoal::text() const {
  return "p" + shortNumber(percentile) + "<=" + shortNumber(bound_millis) + "ms";
}

CapacityGoal CapacityGoal::parse(std::string_view text) {
  const auto refuse = [text](const std::string& why) -> CapacityGoal {
    throw std::invalid_argument("latency goal '" + std::string(text) + "': " + why +
                                " (expected e.g. p99<=50ms, p99.9<=200ms or p50<=1.5s)");
  };
  std::string_view rest = text;
  if (!rest.starts_with("p")) {
    return refuse("expected 'p' and a percentile first");
  }
  rest.remove_prefix(1);
  CapacityGoal goal;
  if (!readNumber(rest, goal.percentile) || goal.percentile <= 0.0 || goal.percentile >= 100.0) {
    return refuse("the percentile must be a number above 0 and below 100");
  }
  if (!rest.starts_with("<=")) {
    return refuse("expected '<=' after the percentile");
  }
  rest.remove_prefix(2);
  double bound = 0.0;
  if (!readNumber(rest, bound) || bound <= 0.0) {
    return refuse("the bound must be a number above 0");
  }
  if (rest == "ms") {
    goal.bound_millis = bound;
  } else if (rest == "s") {
    goal.bound_millis = bound * 1000.0;
  } else {
    return refuse("the bound's unit must be ms or s");
  }
  if (goal.bound_millis > kMaxBoundMillis) {
    return refuse("the bound must be at most 60 s (the longest latency measured exactly)");
  }
  return goal;
}

}  // namespace benchd::scenario
