#pragma once

#include <benchd/tls_support/tls_channel.hpp>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/ServerSocketImpl.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocketImpl.h>
#include <Poco/Timespan.h>

#include <chrono>
#include <memory>
#include <optional>

namespace benchd::threads_poco {

/// The socket of an accepted connection whose reads can be held to a deadline: a total over
/// every read until it is cleared. Poco's timeouts apply to each read alone, so a client that
/// sends one header byte every 50 s would hold a pool thread forever; Poco reads a header in
/// as many reads as it takes, inside its own parser, so the deadline has to live in the socket.
///
/// Within a deadline a read waits with poll() for the sooner of the deadline and the timeout
/// per read, then receives without blocking; the socket's own receive timeout (SO_RCVTIMEO)
/// is never changed per request, which would cost two setsockopt calls per request.
///
/// Under `tls` the connection's bytes go through TLS (acceptTls()): receiveBytes(), sendBytes()
/// and shutdownSend() are then TLS's, with the same deadline and timeouts, so Poco's HTTP code
/// above runs unchanged; the descriptor stays the TCP connection's, for poll() and shutdown(2).
///
/// Contract: setDeadline(), clearDeadline(), acceptTls() and every read and write come from the
/// thread that serves the connection (its pool thread); shutdown() from any thread still wakes
/// a blocked read or write, and touches only the descriptor, never TLS.
class DeadlineSocketImpl final : public Poco::Net::StreamSocketImpl {
 public:
  /// Takes over the connected descriptor `fd` (closed with the socket).
  explicit DeadlineSocketImpl(poco_socket_t fd) : StreamSocketImpl(fd) {}

  /// From now on a read fails with Poco::TimeoutException once `deadline` has passed, and a
  /// read that would block past it times out then.
  void setDeadline(std::chrono::steady_clock::time_point deadline);
  /// Back to the socket's timeout per read.
  void clearDeadline();

  /// The server's TLS handshake with `context`, within `deadline` (the header deadline: the
  /// handshake counts as the first request's header). False when it fails or times out, and
  /// the connection is then to be closed unanswered. From now on, reads and writes are TLS's.
  [[nodiscard]] bool acceptTls(SSL_CTX* context, std::chrono::steady_clock::time_point deadline);
  /// Whether ALPN chose "h2" in the handshake (the `h2` profile); false in clear.
  [[nodiscard]] bool negotiatedHttp2() const noexcept;
  /// Whether a read returns at once, without waiting on the descriptor: decrypted bytes wait
  /// inside TLS, where poll() cannot see them.
  [[nodiscard]] bool hasPendingInput() const noexcept;

  int receiveBytes(void* buffer, int length, int flags) override;
  using StreamSocketImpl::receiveBytes;
  int sendBytes(const void* buffer, int length, int flags) override;
  using StreamSocketImpl::sendBytes;
  /// Under TLS, close_notify first (within kDiscardTimeout), then the TCP connection's sending
  /// side.
  void shutdownSend() override;
  /// The timeout per read that applies outside a deadline, and inside one when it is sooner
  /// (e.g. the short discard after a final reply).
  void setReceiveTimeout(const Poco::Timespan& timeout) override;
  /// The timeout per write (0: none); TLS's writes wait in poll() for it.
  void setSendTimeout(const Poco::Timespan& timeout) override;

 private:
  /// When the next read must have its bytes: the sooner of the deadline and the timeout per
  /// read from now; far in the future when neither applies.
  [[nodiscard]] std::chrono::steady_clock::time_point readUntil() const;
  int receiveOverTls(void* buffer, int length);

  /// Waits until the socket is readable; throws Poco::TimeoutException when the deadline or
  /// the timeout per read passes first, and Poco's exception for errno when poll() fails.
  void awaitReadableWithinDeadline();

  std::optional<std::chrono::steady_clock::time_point> deadline_;
  Poco::Timespan read_timeout_;  ///< per read, as last set by Poco or by us (0: none)
  Poco::Timespan send_timeout_;  ///< per write, as last set by Poco (0: none)
  std::unique_ptr<tls_support::TlsChannel> tls_;  ///< under `tls`, after acceptTls()
};

/// A listening socket whose accepted connections are DeadlineSocketImpl, so that the
/// TCPServer hands every Connection a socket it can hold to the request deadlines.
class DeadlineServerSocket final : public Poco::Net::ServerSocket {
 public:
  DeadlineServerSocket();
};

}  // namespace benchd::threads_poco
