#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace benchd::runner {

/// A memory cap that cannot be set up or read, with the reason (the file and the errno text).
class MemoryCapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The smallest cap a run may ask for (below it no worker starts) and the largest.
inline constexpr std::uint64_t kMinimumMemoryCap = 4ULL * 1024 * 1024;
inline constexpr std::uint64_t kMaximumMemoryCap = 1024ULL * 1024 * 1024 * 1024;

/// The approach variant key of a per-approach cap (`threads-asio[memory_cap=64M]`), read by the
/// runner and never passed to the plugin.
inline constexpr std::string_view kMemoryCapVariantKey = "memory_cap";

/// `SIZE` of `--memory-cap SIZE`: bytes, or a number with K, M, G (KiB, MiB, GiB: powers of
/// 1024, as `docker -m` and systemd's MemoryMax= read them), e.g. 512M, 1.5G, 512MiB. At least
/// 4 MiB (below that no worker starts) and at most 1 TiB. Throws std::invalid_argument saying
/// what was expected.
[[nodiscard]] std::uint64_t parseMemorySize(std::string_view text);

/// `bytes` as the cap's messages show it, in whole MiB: "16 MiB" (common/units.hpp's MiB).
[[nodiscard]] std::string mebibytesText(std::uint64_t bytes);

/// How this process can cap a process tree's memory through the kernel: its cgroup v2, when
/// writable and handing the memory controller to its children (a delegated subtree), else the
/// v1 memory controller, else nothing. Not
/// RLIMIT_AS, which counts reserved thread stacks and would punish the thread models.
struct MemoryCapSupport {
  enum class Kind { kNone, kCgroupV2, kCgroupV1 };
  Kind kind = Kind::kNone;
  /// The cgroup this process is in, where capped groups are made (kNone: empty).
  std::filesystem::path parent;
  /// kNone: why, in one sentence a refusal can quote.
  std::string why_not;

  [[nodiscard]] std::string kindName() const;
};

/// Reads /proc/self/mountinfo and /proc/self/cgroup (or the files given, for tests) and checks
/// that the parent cgroup is writable.
[[nodiscard]] MemoryCapSupport detectMemoryCapSupport(
    const std::filesystem::path& mountinfo = "/proc/self/mountinfo",
    const std::filesystem::path& own_cgroup = "/proc/self/cgroup");

/// One capped cgroup, made for one worker's process tree: its processes together may use at
/// most the cap in memory (swap included where the kernel can count it: v2 `memory.swap.max` 0,
/// v1 `memory.memsw.limit_in_bytes` = the cap); above it the kernel's OOM killer ends one of
/// them. The destructor removes the group (the kernel refuses while a process is in it: the
/// caller ends the tree first; a group left behind is named on stderr).
///
/// Not thread-safe; owned by the one thread that supervises the worker.
class MemoryCapGroup {
 public:
  /// Makes `parent/name` and sets the cap. Throws MemoryCapError naming the file and the reason.
  MemoryCapGroup(const MemoryCapSupport& support, const std::string& name, std::uint64_t bytes);
  ~MemoryCapGroup();
  MemoryCapGroup(const MemoryCapGroup&) = delete;
  MemoryCapGroup& operator=(const MemoryCapGroup&) = delete;

  /// Moves `pid` into the group; its children from then on are born in it. Throws
  /// MemoryCapError.
  void add(pid_t pid) const;
  /// The group's `cgroup.procs`, open for writing (close-on-exec) while the group lives: a
  /// child about to exec joins by writing "0" to it (common::SpawnOptions::cgroup_procs_fd).
  [[nodiscard]] int procsFd() const noexcept { return procs_fd_; }

  [[nodiscard]] std::uint64_t capBytes() const noexcept { return bytes_; }
  /// The most memory the group's processes used at once so far (v1 max_usage_in_bytes, v2
  /// memory.peak where the kernel has it); nullopt where the kernel keeps no peak.
  [[nodiscard]] std::optional<std::uint64_t> peakBytes() const;
  /// How many processes the OOM killer ended in this group because of the cap.
  [[nodiscard]] std::uint64_t oomKills() const;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  MemoryCapSupport::Kind kind_;
  std::filesystem::path path_;
  std::uint64_t bytes_;
  int procs_fd_ = -1;
};

}  // namespace benchd::runner
