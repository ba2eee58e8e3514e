#pragma once

#include <benchd/sdk/plugin_support.hpp>

#include <span>
#include <string_view>

namespace benchd::threads_poco {

/// The thread pool and listener limits of the Poco server, from the plugin options
/// (`--option max_threads=N` etc.). Defaults let the default scenarios pass: like the
/// original's platform-thread Tomcat (5,000 threads), since every open keep-alive connection,
/// and every nested call in progress, holds a pool thread.
struct PoolSettings {
  int min_threads = 2;     ///< threads kept even when idle (the worker's --threads)
  int max_threads = 5000;  ///< option max_threads
  int max_queued = 5000;   ///< option max_queued: accepted connections waiting for a thread
  int backlog = 2000;      ///< option backlog: listen backlog (the original's accept-count)
  int stack_kib = 256;     ///< option stack_kib: stack per pool thread

  /// Reads the options; throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the
  /// option for a value that is not a positive integer in range.
  static PoolSettings from(const sdk::ServerSettings& settings);
  /// The option keys above, for sdk::ServerSettings::from.
  static std::span<const std::string_view> optionNames();
};

}  // namespace benchd::threads_poco
