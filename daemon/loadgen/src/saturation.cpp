#include <benchd/loadgen/saturation.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace benchd::loadgen {

bool isSaturatedInterval(const SaturationSample& sample) noexcept {
  const double cores = std::max<std::uint32_t>(1, sample.generator_cores);
  if (sample.generator_cpu_percent < kSaturatedCpuShare * 100.0 * cores) {
    return false;
  }
  if (sample.intended_requests_per_second <= 0.0) {
    return true;
  }
  return sample.achieved_requests_per_second < kAchievedShare * sample.intended_requests_per_second;
}

void SaturationJudge::add(const SaturationSample& sample) {
  ++intervals_;
  cores_ = std::max<std::uint32_t>(1, sample.generator_cores);
  if (!isSaturatedInterval(sample)) {
    return;
  }
  ++saturated_intervals_;
  saturated_achieved_sum_ += sample.achieved_requests_per_second;
  saturated_intended_sum_ += sample.intended_requests_per_second;
  saturated_cpu_sum_ += sample.generator_cpu_percent;
}

bool SaturationJudge::saturated() const noexcept {
  // At least a tenth of the intervals, rounded up, and at least one.
  return saturated_intervals_ > 0 && saturated_intervals_ * 10 >= intervals_;
}

std::string SaturationJudge::reason() const {
  if (!saturated()) {
    return {};
  }
  const double count = saturated_intervals_;
  const double achieved = saturated_achieved_sum_ / count;
  const double intended = saturated_intended_sum_ / count;
  const double cpu = saturated_cpu_sum_ / count;
  std::ostringstream text;
  text.precision(0);
  text << std::fixed << "load generator saturated in " << saturated_intervals_ << " of "
       << intervals_ << " intervals: ";
  if (intended > 0.0) {
    text << "achieved " << achieved << " req/s of " << intended << " intended ("
         << std::round(100.0 * achieved / intended) << " %)";
  } else {
    text << "closed loop without a rate cap reached " << achieved
         << " req/s, which may be the generator's limit rather than the server's";
  }
  text << " while its CPU was at " << cpu << " % of " << cores_
       << (cores_ == 1 ? " core" : " cores") << " (threshold "
       << std::round(kSaturatedCpuShare * 100.0) << " %)";
  return text.str();
}

}  // namespace benchd::loadgen
