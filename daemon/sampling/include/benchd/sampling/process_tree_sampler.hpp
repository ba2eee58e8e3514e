#pragma once

#include <benchd/sampling/process_sampler.hpp>
#include <benchd/sampling/samples.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <sys/types.h>

namespace benchd::sampling {

/// A process and its children as one: a PostgreSQL server (the postmaster and the backends
/// and background processes it forks) sampled like the worker, as ProcessSample deltas between
/// consecutive sample() calls (the constructor primes).
///
/// What the fields mean here:
///  - cpu_micros, cpu_percent: the CPU time of the root, of its live children and of the
///    children that exited and were reaped by the root in the interval (its cutime and cstime),
///    so a backend that lived for one query counts too. Grandchildren count once reaped by a
///    child (PostgreSQL's processes fork no further).
///  - rss_bytes: the proportional set size (Pss of /proc/<pid>/smaps_rollup) summed over the
///    processes: shared memory (PostgreSQL's shared buffers) is split among the processes that
///    map it instead of being counted in each, so the sum is the tree's real footprint. VmRSS
///    where smaps_rollup cannot be read.
///  - threads: the number of processes in the tree.
///  - context switches and open files: not sampled (0).
/// present is false once the root has gone.
///
/// Cost: one pass over /proc (the stat of every process) per sample, and one smaps_rollup per
/// process of the tree. Thread-safety: not thread-safe; one thread calls sample().
class ProcessTreeSampler {
 public:
  explicit ProcessTreeSampler(pid_t root, ProcessSamplerOptions options = {});
  ~ProcessTreeSampler();
  ProcessTreeSampler(ProcessTreeSampler&&) noexcept;
  ProcessTreeSampler& operator=(ProcessTreeSampler&&) noexcept;
  ProcessTreeSampler(const ProcessTreeSampler&) = delete;
  ProcessTreeSampler& operator=(const ProcessTreeSampler&) = delete;

  [[nodiscard]] ProcessSample sample();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::sampling
