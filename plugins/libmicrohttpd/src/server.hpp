#pragma once

#include "connection_acceptor.hpp"
#include "server_state.hpp"
#include "wait_reactor.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>

#include <microhttpd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace benchd::libmicrohttpd {

/// The libmicrohttpd server: an MHD daemon, in the mode the `mode` option chooses, fed by the
/// plugin's own accept loop (ConnectionAcceptor) on its own listening socket. Lifecycle calls come
/// from the host thread; MHD's callbacks (request_flow.hpp) run on MHD's threads.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// MhdSettings's options and the request deadlines'.
  static std::span<const std::string_view> knownOptions();

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return port_; }
  /// Drains (every answer closes its connection, requests in flight finish, nested calls still
  /// accepted), then stops accepting, shuts every connection down and stops MHD, which joins
  /// its threads. False when requests were cut off.
  bool stop(std::chrono::milliseconds timeout);
  void reportCounters(benchd_counter_sink sink, void* sink_context) const;

 private:
  sdk::ServerSettings settings_;
  ServerState state_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  MHD_Daemon* daemon_ = nullptr;
  std::unique_ptr<ConnectionAcceptor> acceptor_;
  /// The event-driven modes' waits; null in per-connection mode.
  std::unique_ptr<WaitReactor> reactor_;
  bool stopped_ = false;
};

}  // namespace benchd::libmicrohttpd
