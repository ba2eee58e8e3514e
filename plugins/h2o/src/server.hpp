#pragma once

#include "event_loop.hpp"
#include "server_state.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/tls_support/tls_context.hpp>

#include <chrono>
#include <cstdint>
#include <h2o.h>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace benchd::h2o_plugin {

/// The h2o server: one h2o configuration (one host, one handler on "/") served by `--threads`
/// EventLoops that accept on one listening socket of the plugin's. Lifecycle calls come from
/// the host thread; requests are served on the loops' threads.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The request deadlines' options; h2o has no knob of its own here but the loop count
  /// (the worker's --threads).
  static std::span<const std::string_view> knownOptions();

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return port_; }
  /// Drains (HTTP/2 GOAWAY, HTTP/1.1 answers close their connections, requests in flight
  /// finish, nested calls still accepted), then ends every connection and joins the loops.
  /// False when requests were cut off.
  bool stop(std::chrono::milliseconds timeout);
  void reportCounters(benchd_counter_sink sink, void* sink_context) const;

 private:
  sdk::ServerSettings settings_;
  ServerState state_;
  h2o_globalconf_t config_{};
  tls_support::SslContextPtr server_tls_;
  tls_support::SslContextPtr upstream_tls_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<std::unique_ptr<EventLoop>> loops_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace benchd::h2o_plugin
