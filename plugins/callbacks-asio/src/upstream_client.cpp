#include "upstream_client.hpp"

#include "event_loop.hpp"
#include "server.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace benchd::callbacks_asio {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

/// A connection to the server's own endpoint. Counted against the pool capacity for its
/// whole life.
struct UpstreamConnection {
  explicit UpstreamConnection(EventLoop& owner) : loop(owner), stream(owner.io) {
    LoopCounters::add(owner.counters.upstream_connections_open, 1);
  }
  ~UpstreamConnection() {
    LoopCounters::add(loop.counters.upstream_connections_open, -1);
    loop.server.releaseUpstreamConnection();
  }
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  EventLoop& loop;
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
};

namespace {

/// One nested GET, from acquiring a connection to handing it back. Kept alive by its own
/// pending handlers.
class UpstreamCall : public std::enable_shared_from_this<UpstreamCall> {
 public:
  UpstreamCall(UpstreamClient& client, std::string target, UpstreamClient::Completion done)
      : client_(client), target_(std::move(target)), done_(std::move(done)) {}

  void start() {
    connection_ = client_.takeIdle();
    if (connection_) {
      reused_ = true;
      sendRequest();
    } else {
      connect();
    }
  }

 private:
  void connect() {
    reused_ = false;
    Server& server = client_.loop().server;
    if (!server.reserveUpstreamConnection()) {
      finish(boost::asio::error::no_buffer_space);
      return;
    }
    connection_ = std::make_unique<UpstreamConnection>(client_.loop());
    connection_->stream.expires_after(kConnectTimeout);
    connection_->stream.async_connect(server.selfEndpoint(),
                                      [self = shared_from_this()](error_code error) {
                                        if (error) {
                                          self->finish(error);
                                        } else {
                                          self->connection_->stream.socket().set_option(
                                              boost::asio::ip::tcp::no_delay(true));
                                          self->sendRequest();
                                        }
                                      });
  }

  void sendRequest() {
    request_ = {};
    request_.version(11);
    request_.method(http::verb::get);
    request_.target(target_);
    request_.set(http::field::host, "127.0.0.1");
    request_.keep_alive(true);
    connection_->stream.expires_after(kIoTimeout);
    http::async_write(connection_->stream, request_,
                      [self = shared_from_this()](error_code error, std::size_t) {
                        self->onWritten(error);
                      });
  }

  void onWritten(error_code error) {
    if (error) {
      retryOrFail(error);
      return;
    }
    response_ = {};
    http::async_read(connection_->stream, connection_->buffer, response_,
                     [self = shared_from_this()](error_code read_error, std::size_t) {
                       self->onRead(read_error);
                     });
  }

  void onRead(error_code error) {
    if (error) {
      retryOrFail(error);
      return;
    }
    const bool reusable = response_.keep_alive();
    UpstreamResult result{{}, response_.result_int(), std::move(response_.body())};
    if (reusable) {
      client_.giveBack(std::move(connection_));
    }
    connection_.reset();
    done_(std::move(result));
  }

  /// A reused connection may have been closed by the server while it sat in the pool; that
  /// shows as an error before any answer, so it is safe to try once more on a new one.
  void retryOrFail(error_code error) {
    if (reused_) {
      connection_.reset();
      connect();
    } else {
      finish(error);
    }
  }

  void finish(error_code error) {
    connection_.reset();
    done_(UpstreamResult{error, 0, {}});
  }

  UpstreamClient& client_;
  std::string target_;
  UpstreamClient::Completion done_;
  std::unique_ptr<UpstreamConnection> connection_;
  http::request<http::empty_body> request_;
  http::response<http::string_body> response_;
  bool reused_ = false;
};

}  // namespace

UpstreamClient::UpstreamClient(EventLoop& loop) : loop_(loop) {}

UpstreamClient::~UpstreamClient() = default;

void UpstreamClient::get(std::string target, Completion done) {
  std::make_shared<UpstreamCall>(*this, std::move(target), std::move(done))->start();
}

void UpstreamClient::closeIdle() { idle_.clear(); }

std::unique_ptr<UpstreamConnection> UpstreamClient::takeIdle() {
  if (idle_.empty()) return nullptr;
  auto connection = std::move(idle_.back());
  idle_.pop_back();
  return connection;
}

void UpstreamClient::giveBack(std::unique_ptr<UpstreamConnection> connection) {
  if (loop_.server.draining()) return;  // closes it
  connection->stream.expires_never();
  idle_.push_back(std::move(connection));
}

}  // namespace benchd::callbacks_asio
