#pragma once
// The libmicrohttpd plugin's options: which of MHD's threading modes serves, and its knobs.

#include <benchd/sdk/plugin_support.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace benchd::libmicrohttpd {

/// MHD's threading modes (its manual, "Thread modes and event loops").
enum class Mode {
  /// MHD_USE_THREAD_PER_CONNECTION: one OS thread per open connection, which blocks in the
  /// request's waits.
  kPerConnection,
  /// One internal polling thread (epoll) for every connection; waiting requests are suspended
  /// and wait in the plugin's reactor thread.
  kInternal,
  /// As kInternal with MHD_OPTION_THREAD_POOL_SIZE polling threads (the worker's --threads).
  kPool,
};

/// The option values, read once in create().
struct MhdSettings {
  Mode mode = Mode::kPerConnection;
  /// Each connection thread's stack (MHD_OPTION_THREAD_STACK_SIZE), KiB.
  std::int64_t stack_kib = 256;
  /// Connections (so connection threads) open at once; more wait in the listen backlog until
  /// one closes. The thread plugins' cap, under their name.
  std::int64_t max_threads = 5000;
  /// The listen(2) backlog of the plugin's own listening socket.
  std::int64_t backlog = 2000;
  /// kPool: MHD's polling threads (the worker's --threads).
  unsigned pool_threads = 1;

  /// The option keys above, besides the request deadlines' (sdk::kRequestDeadlineOptions).
  static constexpr std::array<std::string_view, 4> kOptionNames = {"mode", "stack_kib",
                                                                   "max_threads", "backlog"};

  /// Reads the options; throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the option
  /// and what it takes for a value it cannot use.
  static MhdSettings from(const sdk::ServerSettings& settings);

  /// Every option key the plugin takes, for Server::knownOptions().
  static std::span<const std::string_view> knownOptions();
};

/// The name of `mode` as the `mode` option spells it.
[[nodiscard]] std::string_view modeName(Mode mode);

}  // namespace benchd::libmicrohttpd
