#pragma once

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/ServerSocketImpl.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocketImpl.h>
#include <Poco/Timespan.h>

#include <chrono>
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
/// Contract: setDeadline() and clearDeadline() come from the thread that reads (the
/// connection's pool thread); shutdown() from any thread still wakes a blocked read.
class DeadlineSocketImpl final : public Poco::Net::StreamSocketImpl {
 public:
  /// Takes over the connected descriptor `fd` (closed with the socket).
  explicit DeadlineSocketImpl(poco_socket_t fd) : StreamSocketImpl(fd) {}

  /// From now on a read fails with Poco::TimeoutException once `deadline` has passed, and a
  /// read that would block past it times out then.
  void setDeadline(std::chrono::steady_clock::time_point deadline);
  /// Back to the socket's timeout per read.
  void clearDeadline();

  int receiveBytes(void* buffer, int length, int flags) override;
  using StreamSocketImpl::receiveBytes;
  /// The timeout per read that applies outside a deadline, and inside one when it is sooner
  /// (e.g. the short discard after a final reply).
  void setReceiveTimeout(const Poco::Timespan& timeout) override;

 private:
  /// Waits until the socket is readable; throws Poco::TimeoutException when the deadline or
  /// the timeout per read passes first, and Poco's exception for errno when poll() fails.
  void awaitReadableWithinDeadline();

  std::optional<std::chrono::steady_clock::time_point> deadline_;
  Poco::Timespan read_timeout_;  ///< per read, as last set by Poco or by us (0: none)
};

/// A listening socket whose accepted connections are DeadlineSocketImpl, so that the
/// TCPServer hands every Connection a socket it can hold to the request deadlines.
class DeadlineServerSocket final : public Poco::Net::ServerSocket {
 public:
  DeadlineServerSocket();
};

}  // namespace benchd::threads_poco
