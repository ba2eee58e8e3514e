#pragma once

#include "blocking_stream.hpp"
#include "server_signals.hpp"
#include "tls_over_blocking.hpp"

#include <benchd/asio_common/upstream_pool.hpp>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace benchd::threads_asio {

using asio_common::UpstreamResult;

/// A keep-alive connection to the server's own endpoint for nested calls, in clear or, under
/// `tls`, over TLS (`tls_client` non-null). Its place in `open_budget` is taken before it is
/// made (UpstreamClient::open()) and given back when it is destroyed.
struct UpstreamConnection {
  UpstreamConnection(boost::asio::io_context& io, const ServerSignals& signals,
                     sdk::ConnectionBudget& open_budget, boost::asio::ssl::context* tls_client);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  /// Calls `operation` with the stream the HTTP bytes go through: `tls` when there is one,
  /// else `stream`.
  template <typename Operation>
  void onStream(Operation&& operation) {
    if (tls) {
      std::forward<Operation>(operation)(*tls);
    } else {
      std::forward<Operation>(operation)(stream);
    }
  }

  BlockingStream stream;
  /// Over `stream`, under `tls`; its handshake follows the connect.
  std::optional<TlsOverBlocking> tls;
  boost::beast::flat_buffer buffer;
  sdk::ConnectionBudget& budget;
};

/// The blocking pooled client of the nested calls: the calling pool thread connects, writes
/// and reads, and sleeps in the kernel while it waits, as a thread-per-connection server's
/// client does. One pool of idle keep-alive connections for the whole server
/// (sdk::SweptIdlePool: last in, first out, closed once idle for `idle_timeout`); at most
/// sdk::kUpstreamPoolCapacity connections are open at once (sdk::ConnectionBudget).
///
/// Thread-safety: call() from any pool thread; the rest from the host thread (start() before
/// the first call, drain() when the drain begins).
class UpstreamClient {
 public:
  UpstreamClient(const ServerSignals& signals, std::chrono::milliseconds response_margin,
                 std::chrono::milliseconds idle_timeout);
  UpstreamClient(const UpstreamClient&) = delete;
  UpstreamClient& operator=(const UpstreamClient&) = delete;

  /// Where nested calls go, and the io_context their sockets belong to (never run; it outlives
  /// this client and has made its reactor already, so the first nested call needs no descriptor
  /// beyond its socket); under `tls`, the client context they speak TLS with (it outlives this
  /// client too), else null.
  void start(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& self,
             boost::asio::ssl::context* tls_client);

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

  /// Closes every idle connection, and from now on every connection a call ends with (the
  /// drain begins). Idempotent.
  void drain() { idle_.drain(); }

  [[nodiscard]] std::int64_t connectionsOpen() const noexcept { return budget_.inUse(); }

 private:
  std::unique_ptr<UpstreamConnection> takeIdle();
  std::unique_ptr<UpstreamConnection> open();
  void giveBack(std::unique_ptr<UpstreamConnection> connection);

  const ServerSignals& signals_;
  const std::chrono::milliseconds response_margin_;
  boost::asio::io_context* io_ = nullptr;
  boost::asio::ssl::context* tls_client_ = nullptr;
  boost::asio::ip::tcp::endpoint self_;
  sdk::ConnectionBudget budget_;
  // Last: its connections give their places back to budget_ when it closes them.
  sdk::SweptIdlePool<std::unique_ptr<UpstreamConnection>> idle_;
};

}  // namespace benchd::threads_asio
