#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

// The small HTTP client the conformance rules speak to a plugin with. Beast stays behind the
// pimpl, so the rules compile without it.
namespace benchd::conformance {

struct HttpResponse {
  unsigned status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< lower-case names
  bool keep_alive = false;
  std::chrono::steady_clock::duration elapsed{};

  [[nodiscard]] std::string header(const std::string& lower_case_name) const;
};

/// How a conformance client speaks TLS (the `tls`, `h2` profiles): it trusts only
/// `certificate` (a PEM file: the worker's own self-signed certificate), checks that the
/// server's certificate names 127.0.0.1, speaks TLS 1.2 or newer, and offers `alpn` in that
/// order (none when empty).
struct ClientTls {
  std::filesystem::path certificate;
  std::vector<std::string> alpn;
};

/// A blocking HTTP/1.1 client connection over loopback, kept alive between requests, in clear
/// or over TLS. Every operation times out (default 30 s) and throws std::runtime_error on
/// failure (a failed handshake or certificate check included, naming the step). Not
/// thread-safe: one connection per thread.
class HttpConnection {
 public:
  explicit HttpConnection(std::uint16_t port,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// Connects and completes the TLS handshake.
  HttpConnection(std::uint16_t port, const ClientTls& tls,
                 std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body = {},
                       const std::map<std::string, std::string>& headers = {});

  /// Sends raw bytes and reads one response (for malformed-request tests).
  HttpResponse rawRequest(const std::string& bytes);

  /// True when the server has closed the connection (EOF within `wait`; under TLS with or
  /// without a close_notify).
  bool closedByServer(std::chrono::milliseconds wait = std::chrono::seconds(2));

  /// The protocol ALPN chose ("http/1.1", "h2"); empty in clear or when the server chose none.
  [[nodiscard]] std::string negotiatedProtocol() const;

 private:
  struct Stream;
  std::unique_ptr<Stream> stream_;
};

/// One request on a fresh connection.
HttpResponse httpRequest(std::uint16_t port, const std::string& method, const std::string& target,
                         const std::string& body = {});

/// Outcome of one request of a concurrent batch.
struct BatchResult {
  unsigned status = 0;  ///< 0 when no response arrived
  std::string error;    ///< transport error, empty on success
  std::chrono::steady_clock::duration elapsed{};
};

/// Sends `count` GET `target` requests at once, each on its own new connection, from one
/// thread, and waits for all of them (bounded by `timeout` overall).
std::vector<BatchResult> concurrentGets(
    std::uint16_t port, const std::string& target, std::size_t count,
    std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// Raises this process's open-file limit to its hard limit (many concurrent connections).
void raiseOpenFileLimit();

}  // namespace benchd::conformance
