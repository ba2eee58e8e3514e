#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <cstddef>
#include <functional>
#include <memory>

namespace boost::asio::ssl {
template <typename Stream>
class stream;
}  // namespace boost::asio::ssl

namespace benchd::asio_common {

/// How many bytes of what a client sends behind a waiting request (pipelined requests) a
/// ClientWatch reads ahead into the connection's buffer. Past this the watch stops reading,
/// and so stops noticing a departure (it cannot see a close behind unread bytes); 64 KiB is
/// far more than any pipelining client sends ahead and bounds the memory a client can park.
inline constexpr std::size_t kMaxReadAhead = std::size_t{64} * 1024;

class StreamDeparture;

/// Where a request arrived: its connection's TCP stream and, under the `tls` profile, the TLS
/// stream over it (null otherwise); or, for a stream of an HTTP/2 connection, that stream's
/// departure signal (then `tcp` and `tls` are unused: the connection's reader owns the socket).
struct InboundStream {
  boost::beast::tcp_stream* tcp = nullptr;
  boost::asio::ssl::stream<boost::beast::tcp_stream&>* tls = nullptr;
  StreamDeparture* h2_stream = nullptr;
};

/// Watches an inbound connection while its request waits (the delay, the nested call), so a
/// client that leaves ends the wait at once instead of holding a timer, a coroutine, a fiber
/// and a nested call chain until the delay is over.
///
/// The client counts as gone when its connection reaches end of stream (it closed it or shut
/// down its sending side: nobody is left to read the answer), fails (reset), or is closed by
/// the server (stop). Bytes that arrive meanwhile are appended to the connection's buffer, where
/// the next request is parsed from, so pipelined requests are kept.
///
/// Contract: loop thread only. `stream` and `buffer` outlive the watch, and nothing else reads
/// from the stream while it watches; nothing else may be pending on the socket either, because
/// ending the watch cancels the socket's operations. Cheap: one reactor wait per request.
class ClientWatch {
 public:
  ClientWatch(boost::beast::tcp_stream& stream, boost::beast::flat_buffer& buffer);
  /// The same over TLS (the `tls` profile): what arrives is decrypted into `buffer`, and the
  /// peer's close_notify counts as its end of stream. Puts the socket in non-blocking mode (as
  /// writeWithoutWaiting does), so the watch reads what TLS has without waiting for more.
  ClientWatch(boost::asio::ssl::stream<boost::beast::tcp_stream&>& stream,
              boost::beast::flat_buffer& buffer);
  /// Either of the above, as `stream` says; or, for an HTTP/2 stream, a watch on its
  /// StreamDeparture, which reads nothing (`buffer` is then unused).
  ClientWatch(InboundStream stream, boost::beast::flat_buffer& buffer);
  /// Stops watching; a departure after this goes unnoticed.
  ~ClientWatch();
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;

  [[nodiscard]] bool clientGone() const noexcept;

  /// Keeps `cancel` (e.g. cancel a timer, close the nested call's connection) to be run once
  /// when the client goes, for as long as the returned guard lives; runs it at once if the
  /// client is already gone. One guard at a time.
  class Interruption;
  [[nodiscard]] Interruption interruptWith(std::function<void()> cancel);

  struct State;

 private:
  std::shared_ptr<State> state_;
};

class ClientWatch::Interruption {
 public:
  explicit Interruption(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~Interruption();
  Interruption(Interruption&&) noexcept = default;
  Interruption& operator=(Interruption&&) noexcept = default;
  Interruption(const Interruption&) = delete;
  Interruption& operator=(const Interruption&) = delete;

 private:
  std::shared_ptr<State> state_;
};

/// The end of one stream of an HTTP/2 connection, as the connection's reader learns it (the
/// client reset the stream, or the connection ended), told to the ClientWatch of the stream's
/// waiting request. Contract: loop thread only; lives as long as the stream's request does.
class StreamDeparture {
 public:
  /// The stream's client is gone: the watch, if any, runs its interruption.
  void depart();
  [[nodiscard]] bool departed() const noexcept { return departed_; }

 private:
  friend class ClientWatch;
  bool departed_ = false;
  std::weak_ptr<ClientWatch::State> watch_;
};

}  // namespace benchd::asio_common
