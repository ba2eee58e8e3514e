#pragma once

#include <cstdint>
#include <string>

namespace benchd::loadgen {

/// One interval as the generator's self-check sees it.
struct SaturationSample {
  double achieved_requests_per_second = 0.0;
  double intended_requests_per_second = 0.0;  ///< 0: no intended rate (closed model, no cap)
  double generator_cpu_percent = 0.0;         ///< percent of one core
  std::uint32_t generator_cores = 1;
};

/// An interval is saturated when the generator's CPU was at least kSaturatedCpuShare of the
/// cores it uses AND it fell short: achieved below kAchievedShare of the intended rate, or, for
/// a phase without an intended rate (closed model without a cap), always, because the
/// throughput measured may then be the generator's limit rather than the server's.
inline constexpr double kSaturatedCpuShare = 0.90;
inline constexpr double kAchievedShare = 0.95;

[[nodiscard]] bool isSaturatedInterval(const SaturationSample& sample) noexcept;

/// Accumulates intervals and judges the phase: saturated when at least a tenth of its intervals
/// (and at least one) were. Not thread-safe; one per phase.
class SaturationJudge {
 public:
  void add(const SaturationSample& sample);

  [[nodiscard]] bool saturated() const noexcept;
  /// Empty when not saturated; otherwise one sentence naming the seconds, the rates and the CPU.
  [[nodiscard]] std::string reason() const;

 private:
  std::uint32_t intervals_ = 0;
  std::uint32_t saturated_intervals_ = 0;
  double saturated_achieved_sum_ = 0.0;
  double saturated_intended_sum_ = 0.0;
  double saturated_cpu_sum_ = 0.0;
  std::uint32_t cores_ = 1;
};

}  // namespace benchd::loadgen
