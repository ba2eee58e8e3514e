#include "session.hpp"

#include "http2_connection.hpp"

#include <benchd/asio_common/buffered_request.hpp>
#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/immediate_write.hpp>
#include <benchd/asio_common/response_bytes.hpp>
#include <benchd/h2_session/client_preface.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/write.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/read.hpp>

#include <array>

namespace benchd::callbacks_asio {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

Session::Session(asio_common::EventLoop& loop, const sdk::Host& host,
                 boost::asio::ip::tcp::socket socket)
    : loop_(loop), host_(host), stream_(std::move(socket)), run_(loop, host) {
  asio_common::LoopCounters::add(loop_.counters.connections_open, 1);
  loop_.connections.insert(this);
}

Session::~Session() {
  loop_.connections.erase(this);
  asio_common::LoopCounters::add(loop_.counters.connections_open, -1);
}

template <typename Operation>
void Session::onStream(Operation&& operation) {
  if (tls_) {
    std::forward<Operation>(operation)(*tls_);
  } else {
    std::forward<Operation>(operation)(stream_);
  }
}

asio_common::InboundStream Session::inbound() noexcept {
  return {&stream_, tls_ ? &*tls_ : nullptr};
}

void Session::start() {
  asio_common::TlsContexts* tls = loop_.group.tls();
  if (tls == nullptr) {
    if (loop_.group.priorKnowledgeHttp2()) {
      readPreface();
    } else {
      readRequest();
    }
    return;
  }
  tls_.emplace(stream_, tls->server);
  idle_ = true;
  stream_.expires_after(loop_.group.headerDeadline());
  tls_->async_handshake(boost::asio::ssl::stream_base::server,
                        [self = shared_from_this(), offers_h2 = tls->offers_h2](error_code error) {
                          self->idle_ = false;
                          if (error) {
                            self->close();
                          } else if (offers_h2 && asio_common::negotiatedHttp2(*self->tls_)) {
                            self->serveHttp2();
                          } else {
                            self->readRequest();
                          }
                        });
}

void Session::readPreface() {
  idle_ = true;
  stream_.expires_after(sdk::kIoTimeout);
  stream_.async_read_some(
      buffer_.prepare(beast::read_size(buffer_, 65536)),
      [self = shared_from_this()](error_code error, std::size_t bytes) {
        self->buffer_.commit(bytes);
        const auto match = h2_session::matchClientPreface(
            {static_cast<const char*>(self->buffer_.data().data()), self->buffer_.size()});
        if (match == h2_session::PrefaceMatch::kPartial && !error) {
          self->readPreface();
        } else if (match == h2_session::PrefaceMatch::kHttp2) {
          self->idle_ = false;
          self->serveHttp2();
        } else {
          // HTTP/1.1 (or the connection's end, which its reader then sees).
          self->readRequest();
        }
      });
}

void Session::serveHttp2() {
  std::make_shared<Http2Connection>(shared_from_this(), loop_, host_, stream_,
                                    tls_ ? &*tls_ : nullptr, buffer_,
                                    [this](bool idle) { idle_ = idle; })
      ->start();
}

void Session::closeIfIdle() {
  if (idle_)
    close();
}

void Session::closeNow() {
  close();
}

void Session::readRequest() {
  if (loop_.group.draining()) {
    close();
    return;
  }
  parser_.emplace();
  parser_->body_limit(sdk::kMaxRequestBodyBytes);
  parser_->header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
  idle_ = true;
  if (buffer_.size() != 0) {
    readHeader();  // pipelined: its first bytes are here already
    return;
  }
  stream_.expires_after(sdk::kIoTimeout);
  onStream([this](auto& stream) {
    stream.async_read_some(buffer_.prepare(beast::read_size(buffer_, 65536)),
                           [self = shared_from_this()](error_code error, std::size_t bytes) {
                             self->buffer_.commit(bytes);
                             if (error) {
                               self->onRead(error);
                             } else {
                               self->readHeader();
                             }
                           });
  });
}

void Session::readHeader() {
  error_code parse_error;
  switch (asio_common::parseBufferedRequest(*parser_, buffer_, parse_error)) {
    case asio_common::BufferedRequest::kComplete:
    case asio_common::BufferedRequest::kFailed:
      onRead(parse_error);
      return;
    case asio_common::BufferedRequest::kNeedBody:
      readBody();
      return;
    case asio_common::BufferedRequest::kNeedHeader:
      break;
  }
  // One expiry for every read of the header: a total from its first byte.
  stream_.expires_after(loop_.group.headerDeadline());
  onStream([this](auto& stream) {
    http::async_read_header(stream, buffer_, *parser_,
                            [self = shared_from_this()](error_code error, std::size_t /*bytes*/) {
                              if (error) {
                                self->onRead(error);
                              } else {
                                self->readBody();
                              }
                            });
  });
}

void Session::readBody() {
  if (parser_->is_done()) {
    onRead({});
    return;
  }
  stream_.expires_after(sdk::kIoTimeout);
  onStream([this](auto& stream) {
    http::async_read(stream, buffer_, *parser_,
                     [self = shared_from_this()](error_code error, std::size_t /*bytes*/) {
                       self->onRead(error);
                     });
  });
}

void Session::onRead(error_code error) {
  idle_ = false;
  if (asio_common::endsConnection(error)) {
    close();
    return;
  }
  in_flight_.emplace(loop_);
  if (error) {
    send(asio_common::readErrorReply(error), true);
    return;
  }

  auto& message = parser_->get();
  // The run reads method and target before it returns, and takes the body. Its handlers hold
  // this session; the finish callback is stored in run_, so it must not hold it too (a cycle
  // that a stopped loop, dropping the handlers, would leave behind).
  run_.start(shared_from_this(), message.method_string(), message.target(),
             std::move(message.body()), inbound(), buffer_, [this](const RequestOutcome& outcome) {
               if (outcome.reply) {
                 send(*outcome.reply, outcome.close_after);
               } else {
                 abandon();
               }
             });
}

void Session::send(const sdk::Reply& reply, bool close_after) {
  const bool keep_alive = !close_after && parser_->is_header_done() &&
                          parser_->get().keep_alive() && loop_.group.keepAliveAllowed();
  response_ = asio_common::responseBytes(reply, keep_alive, "benchd callbacks-asio");
  // Written at once only when no pipelined request waits in the buffer: onWritten() then
  // starts a read, so a client pipelining many requests cannot nest these calls deeply. Under
  // TLS all of it goes through the TLS stream (a direct write would skip the encryption).
  error_code write_error;
  std::size_t written = 0;
  if (buffer_.size() == 0 && !tls_) {
    written = asio_common::writeWithoutWaiting(stream_.socket(), boost::asio::buffer(response_),
                                               write_error);
    if (write_error || written == response_.size()) {
      onWritten(write_error, !keep_alive);
      return;
    }
  }
  stream_.expires_after(sdk::kIoTimeout);
  onStream([this, written, keep_alive](auto& stream) {
    boost::asio::async_write(
        stream, boost::asio::buffer(response_) + written,
        [self = shared_from_this(), keep_alive](error_code error, std::size_t) {
          self->onWritten(error, !keep_alive);
        });
  });
}

void Session::abandon() {
  in_flight_.reset();
  close();
}

void Session::onWritten(error_code error, bool close_after) {
  in_flight_->answered();
  in_flight_.reset();
  if (error) {
    close();
  } else if (close_after) {
    discardInputThenClose();
  } else {
    readRequest();
  }
}

void Session::discardInputThenClose() {
  if (tls_) {
    // close_notify, which also tells the client the reply is whole; the client's own is waited
    // for a short while, whatever it still sends before it.
    stream_.expires_after(sdk::kDiscardTimeout);
    tls_->async_shutdown([self = shared_from_this()](error_code /*error*/) { self->close(); });
    return;
  }
  beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  // Reading until the peer closes (or the timeout) keeps unread request bytes from turning
  // the close into a reset that could destroy the reply before the client reads it.
  struct Discard {
    std::shared_ptr<Session> self;
    std::shared_ptr<std::array<char, 4096>> scratch;
    void operator()(error_code error, std::size_t /*bytes*/) {
      if (error) {
        self->close();
        return;
      }
      auto& stream = self->stream_;
      auto buffer = boost::asio::buffer(*scratch);
      stream.async_read_some(buffer, std::move(*this));
    }
  };
  stream_.expires_after(sdk::kDiscardTimeout);
  auto scratch = std::make_shared<std::array<char, 4096>>();
  auto buffer = boost::asio::buffer(*scratch);
  stream_.async_read_some(buffer, Discard{shared_from_this(), std::move(scratch)});
}

void Session::close() {
  beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace benchd::callbacks_asio
