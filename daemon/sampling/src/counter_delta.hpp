#pragma once

#include <cstdint>

namespace benchd::sampling::detail {

/// How much a cumulative kernel counter rose between two reads. A counter that went backwards
/// (reset, 32-bit wrap, or /proc/stat's iowait, which Linux documents may decrease) yields 0:
/// neither a negative value nor the wrap's bogus 4 G, at the cost of under-counting one
/// interval.
[[nodiscard]] constexpr std::uint64_t counterDelta(std::uint64_t previous,
                                                   std::uint64_t current) noexcept {
  return current >= previous ? current - previous : 0;
}

}  // namespace benchd::sampling::detail
