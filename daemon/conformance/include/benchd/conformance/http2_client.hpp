#pragma once

#include <benchd/conformance/http_client.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

// The HTTP/2 client the conformance rules of the `h2` and `h2c` profiles speak to a plugin with.
// libnghttp2 and Asio stay behind the pimpl, so the rules compile without them.
namespace benchd::conformance {

/// What came back on one stream.
struct Http2Response {
  unsigned status = 0;  ///< 0: no response header came before the stream ended
  std::map<std::string, std::string> headers;  ///< without the pseudo-header :status
  std::string body;
  /// The server ended the stream with RST_STREAM; `reset_code` is its error code.
  bool reset = false;
  std::uint32_t reset_code = 0;
  std::chrono::steady_clock::duration elapsed{};  ///< from submit to the stream's end

  [[nodiscard]] std::string header(const std::string& lower_case_name) const;
};

/// A blocking HTTP/2 client connection over loopback: over TLS, where ALPN must choose `h2`,
/// or in clear with prior knowledge. It opens every flow-control window wide, so only the
/// server's limits apply. Many streams may be open at once: submit() starts one, await() runs
/// the connection until that stream ends (serving every other stream meanwhile). Every
/// operation times out (default 30 s) and throws std::runtime_error on failure, naming what it
/// waited for. Not thread-safe: one connection per thread.
class Http2Connection {
 public:
  /// Connects, and over TLS completes the handshake offering only `h2`; sends the preface and
  /// waits for the server's SETTINGS. Throws when ALPN chose anything else.
  Http2Connection(std::uint16_t port, const std::optional<ClientTls>& tls,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~Http2Connection();
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;

  /// Starts a request (":authority" 127.0.0.1, "content-type: application/json" with a body,
  /// `headers` after that) and returns its stream id; sends it at once.
  std::int32_t submit(const std::string& method, const std::string& target,
                      const std::string& body = {},
                      const std::map<std::string, std::string>& headers = {});
  /// Runs the connection until `stream` ends, and returns what came back on it.
  Http2Response await(std::int32_t stream);
  /// submit() then await().
  Http2Response request(const std::string& method, const std::string& target,
                        const std::string& body = {},
                        const std::map<std::string, std::string>& headers = {});

  /// Resets `stream` (RST_STREAM CANCEL), as a client that gives up on one request does.
  void reset(std::int32_t stream);
  /// Sends `bytes` as they are, past the session (a frame the session would never send).
  void sendRaw(std::string_view bytes);

  /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; nullopt when it announced none (unlimited).
  [[nodiscard]] std::optional<std::uint32_t> maxConcurrentStreams() const;
  /// Runs the connection until the server sends a GOAWAY or ends the connection, at most
  /// `wait`; returns the GOAWAY's error code, or nullopt when none came.
  std::optional<std::uint32_t> awaitGoAway(std::chrono::milliseconds wait);
  /// True when the server has ended the connection within `wait`.
  bool closedByServer(std::chrono::milliseconds wait);

 private:
  struct Session;
  std::unique_ptr<Session> session_;
};

}  // namespace benchd::conformance
