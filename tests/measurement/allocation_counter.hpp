#pragma once

#include <cstdint>

namespace benchd::measurement::testing {

/// How many times the global operator new ran on the calling thread so far. The test executable
/// replaces the global allocation functions (allocation_counter.cpp) to count them.
std::uint64_t allocationsOnThisThread() noexcept;

}  // namespace benchd::measurement::testing
