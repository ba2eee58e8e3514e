#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner {

/// Parses a CPU list as taskset and /sys write them: "0", "0,2", "0-3", "0-1,6". Returns the
/// CPUs sorted without duplicates. Throws std::invalid_argument naming the bad part.
std::vector<unsigned> parseCpuList(std::string_view text);

/// The CPUs this process may run on (sched_getaffinity).
std::vector<unsigned> allowedCpus();

/// "0-3,6" for {0,1,2,3,6}; "all" for an empty list (unpinned).
std::string formatCpuList(const std::vector<unsigned>& cpus);

}  // namespace benchd::runner
