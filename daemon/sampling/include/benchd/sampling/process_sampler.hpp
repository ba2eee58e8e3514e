#pragma once

#include <benchd/sampling/clock.hpp>
#include <benchd/sampling/samples.hpp>

#include <filesystem>
#include <memory>
#include <sys/types.h>

namespace benchd::sampling {

struct ProcessSamplerOptions {
  std::filesystem::path proc_root = "/proc";
  std::shared_ptr<const Clock> clock = systemClock();
  /// Reading every thread's status is most of a sample's cost (about 15 us per thread, see
  /// the class comment); false skips it and reports 0 context switches.
  bool context_switches = true;
};

/// One process's CPU time, memory, threads, context switches and open files from
/// /proc/<pid>/{stat,status,fd,task}, as ProcessSample deltas between consecutive sample()
/// calls (the constructor primes, as HostSampler's does; the first sample() covers the time
/// since construction).
///
/// CPU time comes from the process's CPU-time clock (clock_getcpuclockid: every thread, the
/// exited ones too, to the nanosecond), so a millisecond of CPU per interval is seen as one;
/// /proc/<pid>/stat counts clock ticks (10 ms), which is what a tree under another
/// ProcessSamplerOptions::proc_root (the tests') is read from.
///
/// Identity: the constructor opens /proc/<pid> and every sample reads through that handle, so
/// once the process has exited (and its pid perhaps been reused by another process) samples
/// report present=false instead of the stranger. A zombie (exited, not yet reaped) or a process
/// whose main thread has exited counts as gone, and so does one whose files this user may not
/// read (another user's fd directory, before Linux 6.2). A process absent at construction is
/// never present.
///
/// Context switches are summed over the threads alive at the end of the interval, each
/// thread's counted from its value at the previous sample (or from 0 for a thread born since):
/// a process's own status file counts only its main thread, and the kernel keeps no
/// readable total for the group. Switches of threads that exited within the interval are lost.
///
/// Cost: one sample opens and reads one status file per thread (the kernel formats each in
/// full), so it grows with the thread count: about 32 ms at 2,000 threads on a 2-core VM (the
/// ProcessSamplerCost test), unless ProcessSamplerOptions::context_switches is off. The fd
/// count costs one stat() on Linux >= 6.2 (the fd directory's size; listing 10,000 entries
/// instead takes about 10 ms), a directory listing before. Buffers are reused, so a sample
/// allocates nothing once they have grown to the process's size.
///
/// Errors: sample() never throws for a process that is gone or unreadable (present=false,
/// every other field 0); it throws ProcFormatError only if the kernel's text does not parse,
/// which is a bug here, not a runtime condition.
///
/// Thread-safety: not thread-safe; one thread calls sample(). Instances are independent.
class ProcessSampler {
 public:
  explicit ProcessSampler(pid_t pid, ProcessSamplerOptions options = {});
  ~ProcessSampler();
  ProcessSampler(ProcessSampler&&) noexcept;
  ProcessSampler& operator=(ProcessSampler&&) noexcept;
  ProcessSampler(const ProcessSampler&) = delete;
  ProcessSampler& operator=(const ProcessSampler&) = delete;

  [[nodiscard]] ProcessSample sample();
  [[nodiscard]] pid_t pid() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::sampling
