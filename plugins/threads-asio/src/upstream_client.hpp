#pragma once

#include "blocking_stream.hpp"
#include "server_signals.hpp"

#include <benchd/asio_common/upstream_pool.hpp>
#include <benchd/sdk/idle_list.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace benchd::threads_asio {

using asio_common::UpstreamResult;

/// A keep-alive connection to the server's own endpoint for nested calls. Its place in
/// `open_count` is taken before it is made (UpstreamClient::open()) and given back when it is
/// destroyed.
struct UpstreamConnection {
  UpstreamConnection(boost::asio::io_context& io, const ServerSignals& signals,
                     std::atomic<std::int64_t>& open_count);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  BlockingStream stream;
  boost::beast::flat_buffer buffer;
  std::atomic<std::int64_t>& open;
};

/// The blocking pooled client of the nested calls: the calling pool thread connects, writes
/// and reads, and sleeps in the kernel while it waits, as a thread-per-connection server's
/// client does. One pool of idle keep-alive connections for the whole server, last in, first
/// out, each closed once idle for `idle_timeout` (sdk::IdleList) by a sweeper thread that
/// checks every sdk::upstreamIdleSweepInterval(); at most sdk::kUpstreamPoolCapacity
/// connections are open at once.
///
/// Thread-safety: call() from any pool thread; the rest from the host thread (setEndpoint()
/// before the first call, closeIdle() when the drain begins, stop() last).
class UpstreamClient {
 public:
  UpstreamClient(const ServerSignals& signals, std::chrono::milliseconds response_margin,
                 std::chrono::milliseconds idle_timeout);
  ~UpstreamClient();
  UpstreamClient(const UpstreamClient&) = delete;
  UpstreamClient& operator=(const UpstreamClient&) = delete;

  /// Where nested calls go, and the io_context their sockets belong to (never run; it outlives
  /// this client and has made its reactor already, so the first nested call needs no descriptor
  /// beyond its socket); starts the sweeper.
  void start(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& self);

  /// The outcome of a nested call.
  struct Outcome {
    UpstreamResult result;
    /// The client the call was made for left while it waited: nobody to answer.
    bool client_gone = false;
  };
  /// GET `target` on the server itself over a pooled connection (a new one if none is idle);
  /// a pooled connection the server closed meanwhile is replaced once
  /// (asio_common::staleKeepAlive). Ends at once, closing its connection, when the client on
  /// `client_fd` leaves or the stop gives up. Timeouts: sdk::kConnectTimeout to connect,
  /// sdk::upstreamResponseTimeoutFor(target) for the answer.
  Outcome call(const std::string& target, int client_fd);

  /// Closes every idle connection (the drain begins: no new connection goes back to the pool).
  void closeIdle();
  /// Closes every idle connection and ends the sweeper. Idempotent.
  void stop();

  [[nodiscard]] std::int64_t connectionsOpen() const noexcept {
    return open_.load(std::memory_order_relaxed);
  }

 private:
  std::unique_ptr<UpstreamConnection> takeIdle();
  std::unique_ptr<UpstreamConnection> open();
  void giveBack(std::unique_ptr<UpstreamConnection> connection);
  void sweepUntilStopped();

  const ServerSignals& signals_;
  const std::chrono::milliseconds response_margin_;
  const std::chrono::milliseconds sweep_interval_;
  boost::asio::io_context* io_ = nullptr;
  boost::asio::ip::tcp::endpoint self_;
  std::atomic<std::int64_t> open_{0};

  std::mutex mutex_;
  std::condition_variable sweep_wakeup_;
  sdk::IdleList<std::unique_ptr<UpstreamConnection>> idle_;
  bool stopping_ = false;
  std::thread sweeper_;
};

}  // namespace benchd::threads_asio
