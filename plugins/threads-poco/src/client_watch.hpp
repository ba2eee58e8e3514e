#pragma once

#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <chrono>

namespace benchd::threads_poco {

/// Waits on behalf of a request (its delay, its nested call's answer) while watching the
/// client's connection, so a client that leaves frees the pool thread at once instead of an
/// hour later, and a stop (which shuts every client connection down) wakes every waiting
/// thread, so stop() keeps its timeout.
///
/// The client counts as gone when its side of the connection is closed or shut down for
/// sending (nobody is left to read the answer), or the connection fails or was shut down by
/// the server. Bytes the client pipelines meanwhile are left unread for the next request.
/// Used by the one pool thread that serves the request; blocks only that thread.
class ClientWatch {
 public:
  /// `client` outlives the watch.
  explicit ClientWatch(const Poco::Net::StreamSocket& client);

  /// Sleeps `delay`; false when the client left first.
  [[nodiscard]] bool sleepFor(std::chrono::milliseconds delay);
  /// Waits until `upstream` has something to read (true) or the client left (false). Throws
  /// Poco::TimeoutException when neither happened within `timeout`.
  [[nodiscard]] bool awaitReadable(const Poco::Net::StreamSocket& upstream,
                                   const Poco::Timespan& timeout);
  [[nodiscard]] bool clientGone() const noexcept { return gone_; }
  /// The client's descriptor, for a client library that watches it itself
  /// (sdk::BlockingNestedClient).
  [[nodiscard]] int clientFd() const noexcept { return client_fd_; }

 private:
  enum class Outcome { kTimedOut, kReadable, kClientGone };
  Outcome wait(int other_fd, std::chrono::steady_clock::time_point deadline);

  int client_fd_;
  bool gone_ = false;
};

}  // namespace benchd::threads_poco
