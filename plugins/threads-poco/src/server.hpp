#pragma once

#include "connection.hpp"
#include "server_state.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/thread_pool_settings.hpp>

#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <chrono>
#include <memory>
#include <span>
#include <string_view>

namespace benchd::threads_poco {

/// The threads-poco server: a Poco TCPServer whose connections (Connection) read HTTP with
/// Poco's session, one pool thread per open connection. Lifecycle calls come from the host
/// thread; handlers run on pool threads.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The pool options (sdk::ThreadPoolSettings) and header_deadline_ms
  /// (benchd/sdk/request_deadline.hpp).
  static std::span<const std::string_view> knownOptions();

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return port_; }
  /// Drains (keep-alive off, requests in flight finish, nested calls still accepted), then
  /// shuts every connection down and joins the pool. False when requests were cut off.
  bool stop(std::chrono::milliseconds timeout);
  void reportCounters(benchd_counter_sink sink, void* sink_context) const;

 private:
  sdk::ServerSettings settings_;
  sdk::ThreadPoolSettings pool_settings_;
  ServerState state_;
  std::unique_ptr<Poco::ThreadPool> thread_pool_;
  Poco::SharedPtr<ConnectionFactory> connections_;  // shared with server_
  std::unique_ptr<Poco::Net::TCPServer> server_;    // destroyed before the pool it uses
  std::uint16_t port_ = 0;
  bool stopped_ = false;
};

}  // namespace benchd::threads_poco
