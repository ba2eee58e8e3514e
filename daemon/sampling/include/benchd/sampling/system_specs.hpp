#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace benchd::sampling {

/// One row of results.md's "System Specs" table.
struct SpecEntry {
  std::string label;
  std::string value;  ///< never empty: "unavailable" when the source could not be read
};

/// The machine and build a run's results came from: what the original's log-system-specs.sh
/// printed (OS, kernel, CPU, cores, RAM, disk) plus what it lacked (the libraries benchd was
/// built with, the host tuning sysctls of tune-benchmark-host.sh and the open-files limit).
///
/// `entries` is the display order, each value already formatted for people; the numeric
/// fields are the same facts for machine-readable outputs (0 when unavailable).
struct SystemSpecs {
  std::vector<SpecEntry> entries;

  std::uint64_t logical_cpus = 0;
  std::uint64_t ram_total_bytes = 0;
  std::uint64_t ram_available_bytes = 0;
  std::uint64_t disk_total_bytes = 0;
  std::uint64_t disk_available_bytes = 0;

  /// The value of `label`, or "" when there is no such entry.
  [[nodiscard]] std::string valueOf(const std::string& label) const;
};

/// Collects the specs. Labels, in order: OS, Kernel, CPU, CPU cores, RAM, Disk, Compiler,
/// Boost, Poco, SQLite, then the sysctls by their names (net.ipv4.ip_local_port_range,
/// net.ipv4.tcp_timestamps, net.ipv4.tcp_tw_reuse, net.ipv4.tcp_max_syn_backlog,
/// net.core.somaxconn, fs.file-max; whitespace collapsed, as tune-benchmark-host.sh compares
/// them), then RLIMIT_NOFILE of this process ("soft N, hard M").
///
/// Disk is the file system holding `results_dir`, or its nearest existing ancestor when the
/// folder does not exist yet. Never throws for an unreadable source; each such value reads
/// "unavailable". Reads a few small files; call it once per run, from any thread.
[[nodiscard]] SystemSpecs collectSystemSpecs(const std::filesystem::path& results_dir);

}  // namespace benchd::sampling
