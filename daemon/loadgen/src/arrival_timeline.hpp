#pragma once

#include <benchd/scenario/stage_plan.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

namespace benchd::loadgen {

/// The fixed arrival time line of one open-model sub-scenario. The planned rate moves linearly
/// within each stage, so the cumulative count N(t) (the integral of the rate) is piecewise
/// quadratic; arrival k (k = 0, 1, ...) is due at the first time N reaches k + 1/2, and only
/// arrivals due before the phase end exist. The half puts each arrival in the middle of its slot,
/// so a constant rate R has exactly R * t arrivals in [0, t) for whole R * t. Immutable after
/// construction, so threads share it.
class ArrivalTimeline {
 public:
  ArrivalTimeline(const scenario::SubScenarioPlan& plan, std::chrono::milliseconds phase_duration);

  /// How many arrivals the phase has.
  [[nodiscard]] std::uint64_t arrivalCount() const noexcept { return arrival_count_; }

  /// When arrival `index` is due, since the phase start. Precondition: index < arrivalCount().
  [[nodiscard]] std::chrono::nanoseconds timeOf(std::uint64_t index) const noexcept;

  /// How many arrivals are due before `elapsed` (0 at the start, arrivalCount() at the end).
  [[nodiscard]] std::uint64_t arrivalsBefore(std::chrono::nanoseconds elapsed) const noexcept;

 private:
  struct Segment {
    double start_seconds = 0.0;
    double duration_seconds = 0.0;
    double start_rate = 0.0;
    double end_rate = 0.0;
    double count_before = 0.0;  ///< N at the segment start
  };

  /// N(t) for t in seconds, clamped to the phase.
  [[nodiscard]] double cumulativeAt(double seconds) const noexcept;

  std::vector<Segment> segments_;
  double phase_seconds_ = 0.0;
  std::uint64_t arrival_count_ = 0;
};

}  // namespace benchd::loadgen
