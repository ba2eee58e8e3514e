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

/// Sends one request to 127.0.0.1:`port` on a fresh connection and reads the whole answer,
/// all within `timeout`. For the runner's health checks and answer verification, not for load.
/// Thread-safe (no shared state). Throws HttpProbeError.
HttpReply probeHttp(std::uint16_t port, const std::string& method, const std::string& target,
                    const std::string& body, std::chrono::milliseconds timeout);

}  // namespace benchd::runner
