#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace benchd::runner {

/// One HTTP/1.1 answer.
struct HttpReply {
  unsigned status = 0;
  std::string body;
};

/// No answer: refused, reset, timed out, malformed. what() says which.
class HttpProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How a probe reaches the worker: plain HTTP/1.1, or HTTP/1.1 over TLS (a `tls` row), which
/// verifies no certificate (the worker's is the run's own).
enum class ProbeTransport : std::uint8_t { kPlain, kTls };

/// Sends one request to `address`:`port` (numeric; loopback unless told) on a fresh connection
/// and reads the whole answer,
/// all within `timeout` (the TLS handshake included). For the runner's health checks and
/// answer verification, not for load. Thread-safe (no shared state). Throws HttpProbeError.
HttpReply probeHttp(std::uint16_t port, const std::string& method, const std::string& target,
                    const std::string& body, std::chrono::milliseconds timeout,
                    ProbeTransport transport = ProbeTransport::kPlain,
                    const std::string& address = "127.0.0.1");

}  // namespace benchd::runner
