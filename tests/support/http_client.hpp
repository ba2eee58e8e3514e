#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace benchd::testing {

struct HttpResponse {
  unsigned status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< lower-case names
  bool keep_alive = false;
  std::chrono::steady_clock::duration elapsed{};

  [[nodiscard]] std::string header(const std::string& lower_case_name) const;
};

/// A blocking HTTP/1.1 client connection over loopback, kept alive between requests.
/// Every operation times out (default 30 s) and throws std::runtime_error on failure.
/// Not thread-safe: one connection per thread.
class HttpConnection {
 public:
  explicit HttpConnection(std::uint16_t port,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));

  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body = {},
                       const std::map<std::string, std::string>& headers = {});

  /// Sends raw bytes and reads one response (for malformed-request tests).
  HttpResponse rawRequest(const std::string& bytes);

  /// True when the server has closed the connection (EOF within `wait`).
  bool closedByServer(std::chrono::milliseconds wait = std::chrono::seconds(2));

 private:
  HttpResponse readResponse(std::chrono::steady_clock::time_point started);
  void runUntilDone(bool& done);

  boost::asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::chrono::milliseconds timeout_;
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

}  // namespace benchd::testing
