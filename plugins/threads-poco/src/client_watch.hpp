#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>

namespace benchd::threads_poco {

/// Waits on behalf of a request (its delay) while watching the client's connection (the nested
/// call's client watches the descriptor itself, sdk::BlockingNestedClient), so a client that
/// leaves frees the pool thread at once instead of an hour later, and a stop (which shuts every
/// client connection down) wakes every waiting thread, so stop() keeps its timeout.
///
/// The client counts as gone when its side of the connection is closed or shut down for
/// sending (nobody is left to read the answer), or the connection fails or was shut down by
/// the server. Bytes the client pipelines meanwhile are left unread for the next request.
/// Used by the one pool thread that serves the request; blocks only that thread.
class ClientWatch {
 public:
  /// `client` outlives the watch.
  explicit ClientWatch(const Poco::Net::StreamSocket& client);
  /// Watches `client_fd`, a connection's descriptor or an HTTP/2 stream's watch
  /// (h2_blocking::ServeStream); -1 watches nothing.
  explicit ClientWatch(int client_fd) : client_fd_(client_fd) {}

  /// Sleeps `delay`; false when the client left first.
  [[nodiscard]] bool sleepFor(std::chrono::milliseconds delay);
  [[nodiscard]] bool clientGone() const noexcept { return gone_; }
  /// The client's descriptor, for the nested call's client, which watches it itself.
  [[nodiscard]] int clientFd() const noexcept { return client_fd_; }

 private:
  int client_fd_;
  bool gone_ = false;
};

}  // namespace benchd::threads_poco
