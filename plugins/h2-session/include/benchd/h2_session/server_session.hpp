#pragma once

#include <benchd/sdk/service_request.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::h2_session {

/// The SETTINGS_MAX_CONCURRENT_STREAMS every server session announces: at least the 100 that
/// RFC 9113 recommends, and above the 20 streams per connection of the study this profile
/// answers (h2load -m20).
inline constexpr std::uint32_t kMaxConcurrentStreams = 128;

/// One stream's request, whole: pseudo-headers and body, as the service needs them.
struct StreamRequest {
  std::int32_t stream_id = 0;
  std::string method;  ///< :method
  std::string target;  ///< :path, raw (sdk::classifyRequest decodes it)
  std::string body;
};

/// The server side of one HTTP/2 connection, on libnghttp2, without I/O: the owner feeds it
/// what the client sent (receive), sends what it produces (takeOutput), and answers the
/// requests it hands over (respond), in any model of waiting.
///
/// Contract: not thread-safe; one owner thread (a connection's loop, or its pump thread) makes
/// every call. Handlers run inside receive() and endConnection(), after the bytes are taken, on
/// that thread, and may call respond() and goAway(). A stream id is handed over once and
/// answered at most once; a reply for a stream the client has reset meanwhile is dropped.
/// Requests the service would refuse before reading them are answered here: a body over
/// sdk::kMaxRequestBodyBytes gets 413, header fields over sdk::kMaxRequestHeaderBytes reset
/// the stream.
class ServerSession {
 public:
  struct Handlers {
    /// A stream's request is complete (END_STREAM seen).
    std::function<void(StreamRequest request)> on_request;
    /// A stream handed over and not yet answered has ended without its reply: the client
    /// reset it, or the connection ended (endConnection). Its request's wait should end.
    std::function<void(std::int32_t stream_id)> on_stream_gone;
  };

  /// Queues the server's SETTINGS (the first frame it must send) with `max_concurrent_streams`.
  /// `server_name` is the `server` header of every reply.
  ServerSession(Handlers handlers, std::string server_name,
                std::uint32_t max_concurrent_streams = kMaxConcurrentStreams);
  ~ServerSession();
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;

  /// Takes bytes the client sent, from its preface on. False when they break the protocol:
  /// a GOAWAY is then queued; send the output, then close the connection.
  bool receive(std::string_view bytes);

  /// Appends everything the session has to send to `out` (nothing when it has nothing).
  void takeOutput(std::string& out);

  /// Submits the reply of a stream that on_request handed over.
  void respond(std::int32_t stream_id, const sdk::Reply& reply);

  /// Ends the connection gracefully (HTTP/2's "Connection: close"): a GOAWAY(NO_ERROR) naming
  /// the last stream handed over, so the client sends no new ones; those already handed over
  /// are still answered. Idempotent.
  void goAway();

  /// The connection is over (the socket failed or closed): every stream handed over and not
  /// answered is reported to on_stream_gone. Call once, last.
  void endConnection();

  /// Whether neither side wants to go on: after a GOAWAY with nothing in flight, or after a
  /// protocol error once its GOAWAY is taken.
  [[nodiscard]] bool finished() const;

  /// Streams handed over and not yet answered.
  [[nodiscard]] std::size_t waitingStreams() const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::h2_session
