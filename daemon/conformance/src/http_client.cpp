#include "client_tls_context.hpp"

#include <benchd/conformance/http_client.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <stdexcept>
#include <sys/resource.h>

namespace benchd::conformance {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio::ip::tcp;
using boost::system::error_code;

std::string HttpResponse::header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

tcp::endpoint loopback(std::uint16_t port) {
  return {asio::ip::address_v4::loopback(), port};
}

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

/// One connection's Asio state, driven one operation at a time from the calling thread. Under
/// TLS every operation goes through `tls`, which reads and writes `stream` (whose expiry times
/// the TLS operations too).
struct HttpConnection::Stream {
  explicit Stream(std::chrono::milliseconds limit) : stream(io), timeout(limit) {}

  void runUntilDone(bool& done) {
    io.restart();
    while (!done && io.run_one() > 0) {
    }
  }

  /// Calls `operation` with the stream requests go through: the TLS stream or the TCP one.
  template <class Operation>
  void start(Operation operation) {
    if (tls)
      operation(*tls);
    else
      operation(stream);
  }

  void connect(std::uint16_t port);
  HttpResponse readResponse(std::chrono::steady_clock::time_point started);

  asio::io_context io;
  beast::tcp_stream stream;
  std::optional<asio::ssl::context> tls_context;
  std::optional<asio::ssl::stream<beast::tcp_stream&>> tls;
  beast::flat_buffer buffer;
  std::chrono::milliseconds timeout;
};

void HttpConnection::Stream::connect(std::uint16_t port) {
  bool done = false;
  error_code result;
  stream.expires_after(timeout);
  stream.async_connect(loopback(port), [&](error_code error) {
    result = error;
    done = true;
  });
  runUntilDone(done);
  if (result)
    throw std::runtime_error("connect to port " + std::to_string(port) + ": " + result.message());
}

HttpConnection::HttpConnection(std::uint16_t port, std::chrono::milliseconds timeout)
    : stream_(std::make_unique<Stream>(timeout)) {
  stream_->connect(port);
}

HttpConnection::HttpConnection(std::uint16_t port, const ClientTls& tls,
                               std::chrono::milliseconds timeout)
    : stream_(std::make_unique<Stream>(timeout)) {
  stream_->tls_context.emplace(makeClientContext(tls));
  stream_->connect(port);
  stream_->tls.emplace(stream_->stream, *stream_->tls_context);
  stream_->tls->set_verify_callback(asio::ssl::host_name_verification("127.0.0.1"));
  bool done = false;
  error_code result;
  stream_->stream.expires_after(stream_->timeout);
  stream_->tls->async_handshake(asio::ssl::stream_base::client, [&](error_code error) {
    result = error;
    done = true;
  });
  stream_->runUntilDone(done);
  if (result)
    throw std::runtime_error("TLS handshake with port " + std::to_string(port) + ": " +
                             result.message());
}

std::string HttpConnection::negotiatedProtocol() const {
  return stream_->tls ? alpnSelected(stream_->tls->native_handle()) : std::string();
}

HttpConnection::~HttpConnection() = default;

HttpResponse HttpConnection::request(const std::string& method, const std::string& target,
                                     const std::string& body,
                                     const std::map<std::string, std::string>& headers) {
  const auto started = std::chrono::steady_clock::now();
  http::request<http::string_body> request(http::string_to_verb(method), target, 11);
  if (request.method() == http::verb::unknown)
    request.method_string(method);
  request.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers)
    request.set(name, value);
  if (!body.empty()) {
    if (headers.find("Content-Type") == headers.end()) {
      request.set(http::field::content_type, "application/json");
    }
    request.body() = body;
  }
  request.prepare_payload();
  bool done = false;
  error_code result;
  stream_->stream.expires_after(stream_->timeout);
  stream_->start([&](auto& stream) {
    http::async_write(stream, request, [&](error_code error, std::size_t) {
      result = error;
      done = true;
    });
  });
  stream_->runUntilDone(done);
  if (result)
    throw std::runtime_error("write " + method + " " + target + ": " + result.message());
  return stream_->readResponse(started);
}

HttpResponse HttpConnection::rawRequest(const std::string& bytes) {
  const auto started = std::chrono::steady_clock::now();
  bool done = false;
  error_code result;
  stream_->stream.expires_after(stream_->timeout);
  stream_->start([&](auto& stream) {
    asio::async_write(stream, asio::buffer(bytes), [&](error_code error, std::size_t) {
      result = error;
      done = true;
    });
  });
  stream_->runUntilDone(done);
  if (result)
    throw std::runtime_error("raw write: " + result.message());
  return stream_->readResponse(started);
}

HttpResponse HttpConnection::Stream::readResponse(std::chrono::steady_clock::time_point started) {
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::uint64_t{64} * 1024 * 1024);
  bool done = false;
  error_code result;
  stream.expires_after(timeout);
  start([&](auto& next) {
    http::async_read(next, buffer, parser, [&](error_code error, std::size_t) {
      result = error;
      done = true;
    });
  });
  runUntilDone(done);
  if (result)
    throw std::runtime_error("read response: " + result.message());
  auto message = parser.release();
  HttpResponse response;
  response.status = message.result_int();
  response.body = std::move(message.body());
  response.keep_alive = message.keep_alive();
  for (const auto& field : message) {
    response.headers[lowerCase(std::string(field.name_string()))] = std::string(field.value());
  }
  response.elapsed = std::chrono::steady_clock::now() - started;
  return response;
}

bool HttpConnection::closedByServer(std::chrono::milliseconds wait) {
  char byte = 0;
  bool done = false;
  error_code result;
  stream_->stream.expires_after(wait);
  stream_->start([&](auto& stream) {
    stream.async_read_some(asio::buffer(&byte, 1), [&](error_code error, std::size_t) {
      result = error;
      done = true;
    });
  });
  stream_->runUntilDone(done);
  return result == asio::error::eof || result == asio::error::connection_reset ||
         result == asio::ssl::error::stream_truncated;
}

HttpResponse httpRequest(std::uint16_t port, const std::string& method, const std::string& target,
                         const std::string& body) {
  HttpConnection connection(port);
  return connection.request(method, target, body);
}

namespace {

/// One request of concurrentGets, driven by completion handlers on the shared io_context.
struct BatchRequest : std::enable_shared_from_this<BatchRequest> {
  BatchRequest(asio::io_context& io, BatchResult& out) : stream(io), result(out) {}

  void start(std::uint16_t port, const std::string& target) {
    started = std::chrono::steady_clock::now();
    request = {http::verb::get, target, 11};
    request.set(http::field::host, "127.0.0.1");
    stream.async_connect(loopback(port), [self = shared_from_this()](error_code error) {
      if (error)
        return self->fail("connect", error);
      http::async_write(self->stream, self->request, [self](error_code write_error, std::size_t) {
        if (write_error)
          return self->fail("write", write_error);
        http::async_read(self->stream, self->buffer, self->response,
                         [self](error_code read_error, std::size_t) {
                           if (read_error)
                             return self->fail("read", read_error);
                           self->result.status = self->response.result_int();
                           self->finish();
                         });
      });
    });
  }

  void fail(const char* step, error_code error) {
    result.error = std::string(step) + ": " + error.message();
    finish();
  }

  void finish() {
    result.elapsed = std::chrono::steady_clock::now() - started;
    error_code ignored;
    stream.socket().close(ignored);
  }

  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  http::response<http::string_body> response;
  BatchResult& result;
  std::chrono::steady_clock::time_point started;
};

}  // namespace

std::vector<BatchResult> concurrentGets(std::uint16_t port, const std::string& target,
                                        std::size_t count, std::chrono::milliseconds timeout) {
  asio::io_context io;
  std::vector<BatchResult> results(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::make_shared<BatchRequest>(io, results[i])->start(port, target);
  }
  io.run_for(timeout);
  for (auto& result : results) {
    if (result.status == 0 && result.error.empty())
      result.error = "no answer before the timeout";
  }
  return results;
}

void raiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace benchd::conformance
