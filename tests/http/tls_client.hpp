#pragma once
// A blocking TLS client on loopback for the server's TLS tests: it tells a close_notify from a
// connection that just ends, which HTTP clients hide. Not thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

namespace benchd::http::testing {

class TlsClient {
 public:
  /// How the server ended the connection.
  enum class End { kCloseNotify, kWithoutCloseNotify, kStillOpen };

  /// Connects to 127.0.0.1:`port` (TCP only; handshake() does TLS). Verifies nothing.
  explicit TlsClient(std::uint16_t port);
  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  /// The TLS handshake; false (with error() set) when the server refused or closed.
  bool handshake(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Writes all bytes over TLS; false on failure.
  bool send(std::string_view bytes);
  /// Reads until `done(received())` holds (true), or the connection ends or `timeout` passes.
  bool readUntil(const std::function<bool(const std::string&)>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads one complete response with a Content-Length body; nothing on EOF/timeout.
  std::optional<std::string> readResponse(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads (keeping what arrives in received()) until the server ends the connection.
  End readToEnd(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// The SHA-256 fingerprint of the server's certificate, as `openssl x509 -fingerprint
  /// -sha256` prints it after '='; empty before a handshake.
  [[nodiscard]] std::string peerFingerprint() const;
  [[nodiscard]] const std::string& error() const { return error_; }
  std::string& received() { return received_; }

 private:
  /// One SSL_read into received_ within `deadline`: 1 read, 0 close_notify, -1 other end,
  /// -2 timeout.
  int readOnce(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  SSL_CTX* context_ = nullptr;
  SSL* ssl_ = nullptr;
  std::string received_;
  std::string error_;
};

}  // namespace benchd::http::testing
