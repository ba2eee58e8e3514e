#pragma once

#include <benchd/common/usage_error.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace benchd::worker {

/// Command-line settings of benchd-worker.
struct WorkerOptions {
  std::string plugin_path;
  /// --inspect PLUGIN: load and check the plugin, print its description, exit; no server.
  bool inspect = false;
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;
  unsigned threads = 0;  ///< 0 until parsed; defaults to the hardware's concurrency
  std::vector<std::string> profiles;
  /// --postgres CONNINFO: the movie database of a `postgres` row (libpq conninfo).
  std::string postgres;
  /// --db-pool N: database sessions the plugin may open (plugin.h, db_pool_size).
  std::uint32_t db_pool = 16;
  std::vector<std::pair<std::string, std::string>> plugin_options;
  /// --tls-cert FILE / --tls-key FILE: the PEM certificate and key of a `tls` row (plugin.h 2.2).
  std::string tls_certificate_file;
  std::string tls_private_key_file;
  /// --option benchd.cpu_cost_ns=N (or benchd.cpu_cost_us=N): CPU the host spends in every
  /// request's call into the core (a known difference to measure the winners grid's power with;
  /// not passed to the plugin).
  std::chrono::nanoseconds cpu_cost{0};
  /// --option benchd.max_rate=N: the calls into the core the host serves per second at most,
  /// worker-wide (a known capacity for the capacity search's tests; 0: no cap).
  std::uint32_t max_rate = 0;
  std::chrono::milliseconds stats_interval{1000};
  std::chrono::milliseconds stop_timeout{10000};
  bool show_help = false;
};

/// A command line that cannot be run; what() says which argument and why.
using common::UsageError;

/// Parses argv. Throws UsageError for unknown flags, missing values, malformed numbers, a
/// missing --plugin / --port, or --inspect combined with any other option.
WorkerOptions parseWorkerOptions(int argc, const char* const* argv);

/// The --help text.
std::string workerUsage();

}  // namespace benchd::worker
