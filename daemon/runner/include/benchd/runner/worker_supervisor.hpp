#pragma once

#include <benchd/common/child_process.hpp>
#include <benchd/results/series.hpp>
#include <benchd/runner/http_probe.hpp>
#include <benchd/runner/memory_cap.hpp>
#include <benchd/tls/tls_identity.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace benchd::runner {

/// How to start one benchd-worker. It runs in a process group of its own, so a terminal's
/// Ctrl-C reaches benchd only, which stops the worker in order.
struct WorkerLaunch {
  std::filesystem::path worker;  ///< the benchd-worker executable
  std::filesystem::path plugin;
  std::vector<std::string> profiles;
  std::vector<std::string> plugin_options;  ///< "KEY=VALUE" each, the worker's --option
  /// The worker's --threads (its event loops, or its pool's threads started up front); none:
  /// the worker's default.
  std::optional<unsigned> threads;
  /// A `postgres` row's movie database (the worker's --postgres) and its sessions per plugin
  /// (--db-pool); empty for the other rows.
  std::string postgres;
  std::uint32_t db_pool = 0;
  std::vector<unsigned> cpus;  ///< empty: unpinned
  /// The worker's own bound on draining requests at stop (its --stop-timeout-ms).
  std::chrono::milliseconds stop_timeout{0};
  /// Caps the worker's process tree at this many bytes (a cgroup it joins before exec); none:
  /// uncapped.
  std::optional<std::uint64_t> memory_cap_bytes;
  /// A `tls` row's certificate and key (the worker's --tls-cert/--tls-key); the health probe
  /// then speaks TLS too.
  std::optional<tls::IdentityFiles> tls;
  /// The worker's --bind (a numeric address; empty: its default, 127.0.0.1) and --port (0: an
  /// ephemeral one). An agent's worker binds the agent's address, so other hosts reach it.
  std::string bind;
  std::uint16_t port = 0;
};

/// One benchd-worker process serving one plugin (on an ephemeral loopback port unless its launch
/// says otherwise), for one (scenario row, approach) or for an agent's coordinator. A reader thread
/// consumes the worker's JSON event lines (ready, stats, stopped) as they come, so its pipe never
/// fills and the latest stats are always at hand for the samplers.
///
/// Thread-safety: construct, waitReady, alive, stop and describeEnd from one thread (the
/// runner's); latestStats and port from any thread.
class WorkerSupervisor {
 public:
  /// Spawns the worker; throws std::runtime_error when it cannot be started at all.
  explicit WorkerSupervisor(const WorkerLaunch& launch);
  /// Stops a worker still running (stop()).
  ~WorkerSupervisor();
  WorkerSupervisor(const WorkerSupervisor&) = delete;
  WorkerSupervisor& operator=(const WorkerSupervisor&) = delete;

  [[nodiscard]] pid_t pid() const noexcept { return child_.pid(); }

  /// Waits until the worker has printed its ready line AND answers GET /health with 200,
  /// within `timeout` overall. nullopt when ready; otherwise why not (it exited, the time ran
  /// out, or `cancelled` returned true), with its exit status and last stderr lines when it
  /// is gone.
  std::optional<std::string> waitReady(std::chrono::milliseconds timeout,
                                       const std::function<bool()>& cancelled = {});

  /// The port from the ready line; 0 before it.
  [[nodiscard]] std::uint16_t port() const;
  /// The worker's latest stats line, if it printed one.
  [[nodiscard]] std::optional<results::WorkerStats> latestStats() const;

  /// True while the process has not exited.
  bool alive();
  /// True when the process exits within `timeout` (or already has).
  bool exitsWithin(std::chrono::milliseconds timeout);

  /// Graceful stop: SIGTERM (the worker drains requests in flight within its stop timeout),
  /// then SIGKILL after the stop timeout plus a margin. Idempotent. Returns how it ended.
  common::ExitStatus stop();

  /// After the process ended (alive() false or stop()): "exited with exit code 4" / "was
  /// killed by signal 6 (SIGABRT)", plus its last stderr lines. Ended by the OOM killer at its
  /// memory cap: "was ended at its memory cap: OOM — did not complete (cap 64 MiB, peak 64 MiB)".
  [[nodiscard]] std::string describeEnd();
  /// The memory cap (bytes, 0 without one) and the capped tree's peak so far (0 without a cap
  /// or where the kernel keeps none).
  [[nodiscard]] std::uint64_t memoryCapBytes() const noexcept;
  [[nodiscard]] std::uint64_t memoryPeakBytes() const;

 private:
  void readEvents() noexcept;
  void readEventLines();
  void joinReader();

  /// Made before the child, which joins it before exec; removed after the child is reaped
  /// (members are destroyed in reverse order, and the destructor stops the child first).
  std::unique_ptr<MemoryCapGroup> memory_cap_;
  common::ChildProcess child_;
  std::chrono::milliseconds stop_timeout_;
  ProbeTransport health_transport_;
  std::string health_address_;  ///< where waitReady probes: the bound address, else loopback
  std::thread reader_;
  mutable std::mutex mutex_;
  std::uint16_t port_ = 0;
  std::optional<results::WorkerStats> stats_;
};

}  // namespace benchd::runner
