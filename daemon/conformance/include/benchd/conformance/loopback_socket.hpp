#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace benchd::conformance {

/// A blocking TCP connection to 127.0.0.1 for clients a well-behaved HTTP client cannot play:
/// malformed bytes, a head trickled byte by byte, a reset instead of a close, an event stream
/// read as it arrives. Sends give up after 5 s (a server that stops reading cannot hang a
/// test); reads wait only as long as each call says. Closed on destruction. Not thread-safe.
class LoopbackSocket {
 public:
  /// Connects; connected() says whether that worked.
  explicit LoopbackSocket(std::uint16_t port);
  ~LoopbackSocket();
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  [[nodiscard]] bool connected() const { return fd_ >= 0; }

  /// Writes all of `bytes`; false when the connection broke first (e.g. the server answered an
  /// oversized request and closed) or a write stalled for 5 s.
  bool send(std::string_view bytes);
  /// Ends this side's byte stream: the server reads the end of the requests at once instead of
  /// waiting for more.
  void shutdownSend();
  /// Closes now, with a reset (SO_LINGER 0) rather than an orderly close.
  void resetAndClose();

  enum class ReadEnd {
    kDone,     ///< the condition holds
    kClosed,   ///< the server closed the connection
    kReset,    ///< the server reset it (or it was never connected)
    kTimeout,  ///< `deadline` passed
  };
  /// Appends what arrives to `received` until `done(received)` holds, the connection ends or
  /// `deadline` passes.
  ReadEnd readUntil(std::string& received, const std::function<bool(const std::string&)>& done,
                    std::chrono::steady_clock::time_point deadline);
  /// readUntil the server closes or resets the connection.
  ReadEnd readToEnd(std::string& received, std::chrono::steady_clock::time_point deadline);

 private:
  int fd_ = -1;
};

}  // namespace benchd::conformance
