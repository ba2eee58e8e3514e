#pragma once

#include <cstdint>

namespace benchd::loadgen {

/// How a whole number of things numbered 0, 1, ... is split over the event loops: thing g
/// belongs to loop g % loop_count. Returns how many of the first `count` belong to
/// `loop_index`.
constexpr std::uint64_t loopShare(std::uint64_t count, std::uint32_t loop_index,
                                  std::uint32_t loop_count) noexcept {
  return count > loop_index ? (count - loop_index + loop_count - 1) / loop_count : 0;
}

}  // namespace benchd::loadgen
