#include "arrival_timeline.hpp"

#include <algorithm>
#include <cmath>

namespace benchd::loadgen {
namespace {

/// Counts that land a hair below a whole number through binary rounding (299.9999999999) count
/// as that number.
constexpr double kCountTolerance = 1e-7;

/// How many arrivals (due at N = 0.5, 1.5, ...) a cumulative count N covers.
std::uint64_t arrivalsCoveredBy(double count) {
  return count <= 0.0 ? 0 : static_cast<std::uint64_t>(std::floor(count + 0.5 + kCountTolerance));
}

}  // namespace

ArrivalTimeline::ArrivalTimeline(const scenario::SubScenarioPlan& plan,
                                 std::chrono::milliseconds phase_duration)
    : phase_seconds_(static_cast<double>(phase_duration.count()) / 1000.0) {
  double start = 0.0;
  double rate = std::max(0.0, plan.start_target);
  double count = 0.0;
  for (const scenario::PlannedStage& stage : plan.stages) {
    Segment segment;
    segment.start_seconds = start;
    segment.duration_seconds = static_cast<double>(stage.duration.count()) / 1000.0;
    segment.start_rate = rate;
    segment.end_rate = std::max(0.0, stage.target);
    segment.count_before = count;
    if (segment.duration_seconds > 0.0) {
      segments_.push_back(segment);
    }
    count += (segment.start_rate + segment.end_rate) / 2.0 * segment.duration_seconds;
    start += segment.duration_seconds;
    rate = segment.end_rate;
  }
  arrival_count_ = arrivalsCoveredBy(cumulativeAt(phase_seconds_));
}

double ArrivalTimeline::cumulativeAt(double seconds) const noexcept {
  seconds = std::clamp(seconds, 0.0, phase_seconds_);
  double count = 0.0;
  for (const Segment& segment : segments_) {
    if (seconds <= segment.start_seconds) {
      break;
    }
    const double into = std::min(seconds - segment.start_seconds, segment.duration_seconds);
    const double slope = (segment.end_rate - segment.start_rate) / segment.duration_seconds;
    count = segment.count_before + segment.start_rate * into + slope * into * into / 2.0;
  }
  return count;
}

std::chrono::nanoseconds ArrivalTimeline::timeOf(std::uint64_t index) const noexcept {
  const double wanted = static_cast<double>(index) + 0.5;
  // The first segment whose end count reaches the wanted count.
  const Segment* found = nullptr;
  for (const Segment& segment : segments_) {
    const double end_count = segment.count_before + (segment.start_rate + segment.end_rate) / 2.0 *
                                                        segment.duration_seconds;
    if (end_count + kCountTolerance >= wanted) {
      found = &segment;
      break;
    }
  }
  if (found == nullptr) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(phase_seconds_ * 1e9));
  }
  const double needed = wanted - found->count_before;
  double into = 0.0;
  if (needed > 0.0) {
    // Solves start_rate * x + slope * x^2 / 2 = needed in the form that stays exact when
    // start_rate is 0 or slope is tiny.
    const double slope_term =
        2.0 * (found->end_rate - found->start_rate) * needed / found->duration_seconds;
    const double root =
        std::sqrt(std::max(0.0, found->start_rate * found->start_rate + slope_term));
    const double denominator = found->start_rate + root;
    into = denominator > 0.0 ? 2.0 * needed / denominator : found->duration_seconds;
    into = std::clamp(into, 0.0, found->duration_seconds);
  }
  return std::chrono::nanoseconds(std::llround((found->start_seconds + into) * 1e9));
}

std::uint64_t ArrivalTimeline::arrivalsBefore(std::chrono::nanoseconds elapsed) const noexcept {
  if (elapsed.count() <= 0) {
    return 0;
  }
  const double count = cumulativeAt(static_cast<double>(elapsed.count()) / 1e9);
  return std::min(arrivalsCoveredBy(count), arrival_count_);
}

}  // namespace benchd::loadgen
