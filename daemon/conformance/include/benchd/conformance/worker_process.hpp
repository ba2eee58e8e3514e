#pragma once

#include <benchd/common/child_process.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace benchd::conformance {

/// One stats line of a worker, parsed.
struct WorkerStats {
  std::int64_t epoch_millis = 0;
  std::int64_t heap_bytes = 0;
  std::map<std::string, std::int64_t> counters;

  [[nodiscard]] std::int64_t counter(const std::string& name) const;
};

/// A real benchd-worker child process serving the plugin under test, with its stdout and
/// stderr captured. A reader thread collects stdout lines (JSON events: ready, stats, stopped)
/// and stderr text; the accessors are thread-safe. The process side (signal, waitExit) belongs
/// to the thread that checks a rule. The destructor kills a still-running worker.
class WorkerProcess {
 public:
  /// Spawns `worker` (a benchd-worker executable) with `args`. Throws std::runtime_error when
  /// it cannot be started.
  WorkerProcess(const std::filesystem::path& worker, const std::vector<std::string>& args);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// A worker serving the plugin file `plugin` on an ephemeral loopback port, stats every
  /// 50 ms, ready to take requests. Throws std::runtime_error with the worker's stderr when it
  /// does not get ready.
  static std::unique_ptr<WorkerProcess> serve(const std::filesystem::path& worker,
                                              const std::filesystem::path& plugin,
                                              std::vector<std::string> extra_args = {});

  /// Waits for the ready line; returns the bound port, or nullopt if the worker exited or
  /// the timeout passed first.
  std::optional<std::uint16_t> waitReady(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Waits for a stats line whose counters satisfy `accept`, emitted after this call.
  std::optional<WorkerStats> waitStats(
      const std::function<bool(const WorkerStats&)>& accept,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Waits until the server reports no request in flight, and returns that stats line.
  std::optional<WorkerStats> waitQuiet(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  void signal(int signal_number) const;
  /// Waits for the process to exit; returns its exit code (128 + signal when killed), or
  /// nullopt on timeout.
  std::optional<int> waitExit(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  [[nodiscard]] pid_t pid() const noexcept { return child_.pid(); }
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] std::string stderrText() const;
  [[nodiscard]] std::vector<std::string> stdoutLines() const;

 private:
  /// The reader thread: the child's output side, until both pipes close.
  void readOutput();

  common::ChildProcess child_;
  std::uint16_t port_ = 0;
  std::optional<int> exit_code_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> stdout_lines_;
  std::string stderr_text_;
  bool stdout_closed_ = false;
  std::thread reader_;  ///< last: starts reading once everything it uses exists
};

}  // namespace benchd::conformance
