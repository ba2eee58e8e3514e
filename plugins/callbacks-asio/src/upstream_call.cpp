#include "upstream_call.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <memory>
#include <optional>

namespace benchd::callbacks_asio {

namespace http = boost::beast::http;
using asio_common::EventLoop;
using asio_common::UpstreamConnection;
using boost::system::error_code;

namespace {

/// One nested GET, from acquiring a connection to handing it back. Kept alive by its own
/// pending handlers.
class UpstreamCall : public std::enable_shared_from_this<UpstreamCall> {
 public:
  UpstreamCall(EventLoop& loop, const std::string& target, UpstreamCompletion done)
      : loop_(loop),
        request_(asio_common::upstreamRequest(target)),
        response_timeout_(
            sdk::upstreamResponseTimeoutFor(target, loop.group.upstreamResponseMargin())),
        done_(std::move(done)) {}

  void start(asio_common::ClientWatch& watch) {
    // Closing the connection ends whatever the call waits for with an error, which is never
    // one that is retried.
    interruption_.emplace(watch.interruptWith([this] {
      if (connection_)
        asio_common::closeStream(connection_->stream);
    }));
    connection_ = loop_.upstream.takeIdle();
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
    connection_ = loop_.upstream.open();
    if (!connection_) {
      finish(boost::asio::error::no_buffer_space);
      return;
    }
    connection_->stream.expires_after(sdk::kConnectTimeout);
    connection_->stream.async_connect(
        loop_.group.selfEndpoint(),
        [self = shared_from_this()](error_code error) { self->onConnected(error); });
  }

  void onConnected(error_code error) {
    if (error) {
      finish(error);
      return;
    }
    error_code ignored;
    connection_->stream.socket().set_option(boost::asio::ip::tcp::no_delay(true), ignored);
    if (!connection_->tls) {
      sendRequest();
      return;
    }
    connection_->tls->async_handshake(boost::asio::ssl::stream_base::client,
                                      [self = shared_from_this()](error_code handshake_error) {
                                        if (handshake_error) {
                                          self->finish(handshake_error);
                                        } else {
                                          self->sendRequest();
                                        }
                                      });
  }

  /// Runs `operation(stream)` with the connection's stream: TLS under `tls`, else TCP.
  template <typename Operation>
  void onStream(Operation&& operation) {
    if (connection_->tls) {
      std::forward<Operation>(operation)(*connection_->tls);
    } else {
      std::forward<Operation>(operation)(connection_->stream);
    }
  }

  void sendRequest() {
    connection_->stream.expires_after(response_timeout_);
    onStream([this](auto& stream) {
      http::async_write(
          stream, request_,
          [self = shared_from_this()](error_code error, std::size_t) { self->onWritten(error); });
    });
  }

  void onWritten(error_code error) {
    if (error) {
      retryOrFail(error, false);
      return;
    }
    response_ = {};
    onStream([this](auto& stream) {
      http::async_read(stream, connection_->buffer, response_,
                       [self = shared_from_this()](error_code read_error, std::size_t read) {
                         self->onRead(read_error, read);
                       });
    });
  }

  void onRead(error_code error, std::size_t read) {
    if (error) {
      retryOrFail(error, read != 0 || connection_->buffer.size() != 0);
      return;
    }
    const bool reusable = response_.keep_alive();
    UpstreamResult result{{}, response_.result_int(), std::move(response_.body())};
    if (reusable)
      loop_.upstream.giveBack(std::move(connection_));
    connection_.reset();
    interruption_.reset();
    done_(std::move(result));
  }

  /// A reused connection may have been closed by the server while it sat in the pool; that
  /// shows as the peer's close before any answer, and only then is it safe to try once more
  /// on a new connection (asio_common::staleKeepAlive); a new one is never retried.
  void retryOrFail(error_code error, bool received_any) {
    if (asio_common::staleKeepAlive(reused_, error, received_any)) {
      connection_.reset();
      connect();
    } else {
      finish(error);
    }
  }

  void finish(error_code error) {
    interruption_.reset();
    connection_.reset();
    done_(UpstreamResult{error, 0, {}});
  }

  EventLoop& loop_;
  http::request<http::empty_body> request_;
  std::chrono::milliseconds response_timeout_;
  UpstreamCompletion done_;
  std::unique_ptr<UpstreamConnection> connection_;
  http::response<http::string_body> response_;
  bool reused_ = false;
  std::optional<asio_common::ClientWatch::Interruption> interruption_;
};

}  // namespace

void callUpstream(EventLoop& loop, const std::string& target, asio_common::ClientWatch& watch,
                  UpstreamCompletion done) {
  if (loop.curl) {  // the client-curl profile
    loop.curl->asyncGet(target, watch, std::move(done));
    return;
  }
  std::make_shared<UpstreamCall>(loop, target, std::move(done))->start(watch);
}

}  // namespace benchd::callbacks_asio
