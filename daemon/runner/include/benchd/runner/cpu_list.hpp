#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner {

/// Where the worker and the load generator run when the user names no CPUs.
enum class CpuPlacement : std::uint8_t {
  kSplit = 1,  ///< apart, on halves of the CPUs this process may use (splitCpus)
  kShared,     ///< both unpinned, as the original study ran
};
/// "split" or "shared": the names `benchd run --cpus` and the API's `cpus` take.
[[nodiscard]] std::string_view cpuPlacementName(CpuPlacement placement);
[[nodiscard]] std::optional<CpuPlacement> cpuPlacementFromName(std::string_view name);

/// Parses a CPU list as taskset and /sys write them: "0", "0,2", "0-3", "0-1,6". Returns the
/// CPUs sorted without duplicates. Throws std::invalid_argument naming the bad part.
std::vector<unsigned> parseCpuList(std::string_view text);

/// The CPUs this process may run on (sched_getaffinity).
std::vector<unsigned> allowedCpus();

/// Where the worker and the load generator run when the user names no CPUs: apart, on halves
/// of `allowed` (the generator the lower floor(n/2) CPUs, the server the rest). An A/A check on
/// a two-core machine measured this quieter than sharing (docs/run.md#cpus). Fewer than two
/// CPUs cannot be split: both lists empty (unpinned).
struct CpuSplit {
  std::vector<unsigned> server;
  std::vector<unsigned> generator;
};
CpuSplit splitCpus(const std::vector<unsigned>& allowed);

/// "0-3,6" for {0,1,2,3,6}; "all" for an empty list (unpinned).
std::string formatCpuList(const std::vector<unsigned>& cpus);

}  // namespace benchd::runner
