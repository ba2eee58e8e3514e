#pragma once
// Header-only plugin SDK: the pool options of a thread-per-connection plugin (threads-poco,
// threads-asio), read and checked in one place so the two take the same options with the same
// defaults and the same errors.

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace benchd::sdk {

/// The thread pool and listener limits of a thread-per-connection server, from the plugin
/// options (`--option max_threads=N` etc.). The defaults let the default scenarios pass, like
/// the original's platform-thread Tomcat (5,000 threads): every open keep-alive connection, and
/// every nested call in progress, holds a pool thread.
struct ThreadPoolSettings {
  int min_threads = 2;     ///< threads started up front and kept when idle (the worker's --threads)
  int max_threads = 5000;  ///< option max_threads
  int max_queued = 5000;   ///< option max_queued: accepted connections waiting for a thread
  int backlog = 2000;      ///< option backlog: listen backlog (the original's accept-count)
  int stack_kib = 256;     ///< option stack_kib: stack per pool thread

  /// The option keys above, for a Server's knownOptions().
  static constexpr std::array<std::string_view, 4> kOptionNames = {"max_threads", "max_queued",
                                                                   "backlog", "stack_kib"};

  /// Reads the options; throws PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the option and
  /// its range for a value that is not an integer in range. min_threads is `settings.threads`,
  /// capped by max_threads.
  static ThreadPoolSettings from(const ServerSettings& settings) {
    ThreadPoolSettings pool;
    pool.max_threads = read(settings, "max_threads", pool.max_threads, 1, 100'000);
    pool.min_threads = std::min(static_cast<int>(settings.threads), pool.max_threads);
    pool.max_queued = read(settings, "max_queued", pool.max_queued, 1, 1'000'000);
    pool.backlog = read(settings, "backlog", pool.backlog, 1, 1'000'000);
    pool.stack_kib = read(settings, "stack_kib", pool.stack_kib, 64, 65'536);
    return pool;
  }

 private:
  static int read(const ServerSettings& settings, std::string_view name, int fallback, int min,
                  int max) {
    return static_cast<int>(integerOption(settings, name, fallback, min, max));
  }
};

/// Every option a thread-per-connection server takes: the pool's and the request deadlines'
/// (kRequestDeadlineOptions), for its knownOptions().
inline constexpr std::array<std::string_view, ThreadPoolSettings::kOptionNames.size() +
                                                  kRequestDeadlineOptions.size()>
    kThreadPoolServerOptions = {
        ThreadPoolSettings::kOptionNames[0], ThreadPoolSettings::kOptionNames[1],
        ThreadPoolSettings::kOptionNames[2], ThreadPoolSettings::kOptionNames[3],
        kRequestDeadlineOptions[0],          kRequestDeadlineOptions[1],
        kRequestDeadlineOptions[2],          kRequestDeadlineOptions[3]};

}  // namespace benchd::sdk
