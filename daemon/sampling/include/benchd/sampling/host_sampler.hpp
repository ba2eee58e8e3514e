#pragma once

#include <benchd/sampling/clock.hpp>
#include <benchd/sampling/samples.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace benchd::sampling {

struct HostSamplerOptions {
  /// Where /proc is; tests point this at a fixture directory holding stat, meminfo,
  /// net/sockstat, net/dev and net/snmp.
  std::filesystem::path proc_root = "/proc";
  /// The interface whose traffic HostSample::loopback_* reports (the original: sar --iface=lo).
  std::string interface = "lo";
  std::shared_ptr<const Clock> clock = systemClock();
};

/// Whole-host counters from /proc, as HostSample deltas between consecutive sample() calls:
/// the counterpart of the original's one-second `sar -ur -n TCP,SOCK,DEV --iface=lo`.
///
/// Intervals: the constructor reads every counter (priming), so the first sample() covers the
/// time since construction and each later one the time since the previous sample(); nothing is
/// lost or counted twice between consecutive samples. The caller paces the calls (normally
/// once a second); the sampler has no thread or timer.
///
/// Counters that go backwards (a re-created interface, a 32-bit counter wrapping, or the
/// iowait decrements Linux documents for /proc/stat) count 0 for that interval rather than a
/// negative or huge value; the next interval counts from the new value.
///
/// Errors: a file that cannot be read throws std::system_error (its path in what()), one that
/// does not parse throws ProcFormatError. Either way the sampler keeps its previous counters,
/// so a later successful sample() covers the time since the last successful one.
///
/// Thread-safety: not thread-safe; one thread calls sample(). Instances are independent.
class HostSampler {
 public:
  /// Reads all counters once (throws as sample() does when they cannot be read).
  explicit HostSampler(HostSamplerOptions options = {});
  ~HostSampler();
  HostSampler(HostSampler&&) noexcept;
  HostSampler& operator=(HostSampler&&) noexcept;
  HostSampler(const HostSampler&) = delete;
  HostSampler& operator=(const HostSampler&) = delete;

  /// The interval since construction or the previous successful sample(); levels (RAM,
  /// sockets) as read now. epoch_millis is the clock's wall time now.
  [[nodiscard]] HostSample sample();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::sampling
