#pragma once

#include "server_signals.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <span>

namespace benchd::threads_asio {

/// A TCP socket read and written in blocking style by the one pool thread that owns it: each
/// call returns only when it is done or failed, and the thread sleeps in the kernel meanwhile,
/// as a thread-per-connection server's does. Unlike a plain blocking socket every wait is a
/// poll() that also ends:
///   - at the deadline (expiresAfter()): the call fails with boost::beast::error::timeout, so a
///     request's deadlines are totals over all its reads, not per read;
///   - when the stop gives up (ServerSignals::stopFd()): boost::asio::error::operation_aborted;
///   - while waitingForRequest(true), when the drain begins: operation_aborted too, so an idle
///     keep-alive connection closes at once;
///   - when the watched client (watchClient()) leaves, for a nested call's connection:
///     operation_aborted, and clientGone() is then true.
/// A Beast SyncReadStream and SyncWriteStream (read_some, write_some), so Beast's synchronous
/// http::read and http::write run on it, and the next layer of Asio's TLS stream (TlsOverBlocking
/// in tls_over_blocking.hpp), whose synchronous calls wait in it too.
///
/// Thread-safety: one thread at a time (the connection's, or the nested call's caller).
class BlockingStream {
 public:
  using Clock = std::chrono::steady_clock;
  // NOLINTBEGIN(readability-identifier-naming): the names Asio's TLS stream asks its next layer for
  using lowest_layer_type = boost::asio::ip::tcp::socket;
  using executor_type = lowest_layer_type::executor_type;
  lowest_layer_type& lowest_layer() noexcept { return socket_; }
  executor_type get_executor() noexcept { return socket_.get_executor(); }
  // NOLINTEND(readability-identifier-naming)

  /// Takes `socket` (open, or closed for a nested call's connection to come) and puts it in
  /// non-blocking mode; `signals` outlives the stream.
  BlockingStream(boost::asio::ip::tcp::socket socket, const ServerSignals& signals);

  void expiresAfter(std::chrono::milliseconds timeout) { deadline_ = Clock::now() + timeout; }
  void expiresNever() { deadline_ = Clock::time_point::max(); }
  /// While true, the drain's start ends a wait (an idle connection between requests).
  void waitingForRequest(bool waiting) noexcept { waiting_for_request_ = waiting; }
  /// Ends every wait of this stream when the client of `client` leaves (its peer shuts down or
  /// resets the connection); -1 stops watching. For the nested call made for that client.
  void watchClient(int client_fd) noexcept { watched_client_fd_ = client_fd; }
  [[nodiscard]] bool clientGone() const noexcept { return client_gone_; }
  /// Ends every wait for input with boost::asio::error::interrupted when one of `fds` (at most
  /// kMaxWakeFds; -1 entries ignored) turns readable; an empty span stops it. For the HTTP/2
  /// pump, whose read must give way to the replies coming back from other threads.
  void wakeReadsOn(std::span<const int> fds) noexcept;
  static constexpr std::size_t kMaxWakeFds = 3;

  /// Waits until the socket is readable (a request's first byte, or its close). Errors as above.
  boost::system::error_code waitReadable();

  /// How a wait for the client's departure ended (the request's delay).
  enum class WaitEnd { kElapsed, kClientGone, kStopped };
  /// Sleeps `delay` unless the peer leaves (shuts down its side, resets) or the stop gives up.
  /// Bytes the peer sends meanwhile (pipelined requests) stay in the socket for the next read.
  WaitEnd sleepWatchingPeer(std::chrono::milliseconds delay) {
    return sleepWatching(socket_.native_handle(), signals_, delay);
  }
  /// The same wait on any client descriptor (an HTTP/2 stream's watch included); -1 watches
  /// only the stop.
  static WaitEnd sleepWatching(int client_fd, const ServerSignals& signals,
                               std::chrono::milliseconds delay);

  /// Connects to `endpoint` within the deadline, watching as above.
  void connect(const boost::asio::ip::tcp::endpoint& endpoint, boost::system::error_code& error);

  /// Whether an idle connection is still usable: open, and the peer has neither closed it nor
  /// sent anything (a poll with no wait).
  [[nodiscard]] bool idleUsable() noexcept;

  /// Shuts the socket down in both directions and closes it.
  void close() noexcept;

  [[nodiscard]] boost::asio::ip::tcp::socket& socket() noexcept { return socket_; }

  template <typename MutableBufferSequence>
  // NOLINTNEXTLINE(readability-identifier-naming): Asio's stream requirements name it
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& error) {
    for (;;) {
      const std::size_t bytes = socket_.read_some(buffers, error);
      if (error != boost::asio::error::would_block)
        return bytes;
      error = wait(kReadable);
      if (error)
        return 0;
    }
  }
  template <typename MutableBufferSequence>
  // NOLINTNEXTLINE(readability-identifier-naming): Asio's stream requirements name it
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code error;
    const std::size_t bytes = read_some(buffers, error);
    if (error)
      throw boost::system::system_error(error);
    return bytes;
  }
  template <typename ConstBufferSequence>
  // NOLINTNEXTLINE(readability-identifier-naming): Asio's stream requirements name it
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& error) {
    for (;;) {
      const std::size_t bytes = socket_.write_some(buffers, error);
      if (error != boost::asio::error::would_block)
        return bytes;
      error = wait(kWritable);
      if (error)
        return 0;
    }
  }
  template <typename ConstBufferSequence>
  // NOLINTNEXTLINE(readability-identifier-naming): Asio's stream requirements name it
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code error;
    const std::size_t bytes = write_some(buffers, error);
    if (error)
      throw boost::system::system_error(error);
    return bytes;
  }

 private:
  static constexpr short kReadable = 0x001;  // POLLIN
  static constexpr short kWritable = 0x004;  // POLLOUT

  /// Polls the socket for `events` with the stream's watches, until the deadline.
  boost::system::error_code wait(short events);

  boost::asio::ip::tcp::socket socket_;
  const ServerSignals& signals_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool waiting_for_request_ = false;
  int watched_client_fd_ = -1;
  std::array<int, kMaxWakeFds> wake_fds_{-1, -1, -1};
  bool client_gone_ = false;
};

}  // namespace benchd::threads_asio
