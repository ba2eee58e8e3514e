#pragma once

#include "connection_thread_pool.hpp"
#include "server_state.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/thread_pool_settings.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <thread>

namespace benchd::threads_asio {

/// The threads-asio server: an accepting thread hands each connection to a pool thread
/// (ConnectionThreadPool), which serves it start to end with Beast's synchronous parser,
/// blocking while it waits (serveConnection). The OS-thread model on the same HTTP handling as
/// the other Asio plugins, so that the two differ only in the model. Lifecycle calls come from
/// the host thread.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The pool options (sdk::ThreadPoolSettings) and the request deadline options
  /// (benchd/sdk/request_deadline.hpp).
  static std::span<const std::string_view> knownOptions();

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return port_; }
  /// Drains (connections waiting for a request close, requests in flight finish, nested calls
  /// are still accepted), then ends every wait, closes the listener and joins every thread.
  /// False when requests were cut off.
  bool stop(std::chrono::milliseconds timeout);
  void reportCounters(benchd_counter_sink sink, void* sink_context) const;

 private:
  void listen();
  /// The accepting thread: accepts until the stop, backing off when out of descriptors.
  void acceptUntilStopped();

  sdk::ServerSettings settings_;
  sdk::ThreadPoolSettings pool_settings_;
  ServerState state_;
  /// Never run: sockets are only read and written in place. The listener's, the accepted
  /// connections' and the nested calls' sockets belong to it.
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  ConnectionThreadPool pool_;
  /// HTTP/2 streams run on the pool's threads (ConnectionThreadPool::tryRun).
  class PoolStreamRunner final : public h2_blocking::StreamRunner {
   public:
    explicit PoolStreamRunner(ConnectionThreadPool& pool) : pool_(pool) {}
    bool tryRun(std::function<void()> task) override { return pool_.tryRun(std::move(task)); }

   private:
    ConnectionThreadPool& pool_;
  };
  PoolStreamRunner stream_runner_{pool_};
  std::thread acceptor_thread_;
  /// Failed accepts (counter "accept_errors"), e.g. for want of descriptors.
  std::atomic<std::int64_t> accept_errors_{0};
  std::uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace benchd::threads_asio
