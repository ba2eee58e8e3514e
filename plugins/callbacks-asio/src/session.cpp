#include "session.hpp"

#include "event_loop.hpp"
#include "server.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <variant>

namespace benchd::callbacks_asio {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

/// After an error reply that ends the connection, unread input is discarded for at most this
/// long, so closing does not reset the connection before the client has read the reply.
constexpr std::chrono::seconds kDiscardTimeout{2};

}  // namespace

Session::Session(EventLoop& loop, boost::asio::ip::tcp::socket socket)
    : loop_(loop), stream_(std::move(socket)), delay_timer_(loop.io) {
  LoopCounters::add(loop_.counters.connections_open, 1);
}

Session::~Session() {
  if (idle_) loop_.idle_sessions.erase(this);
  if (request_in_flight_) LoopCounters::add(loop_.counters.requests_in_flight, -1);
  LoopCounters::add(loop_.counters.connections_open, -1);
}

void Session::start() { readRequest(); }

void Session::closeIfIdle() {
  if (idle_) {
    beast::error_code ignored;
    stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    stream_.cancel();
  }
}

void Session::readRequest() {
  if (loop_.server.draining()) {
    close();
    return;
  }
  parser_.emplace();
  parser_->body_limit(sdk::kMaxRequestBodyBytes);
  idle_ = true;
  loop_.idle_sessions.insert(this);
  stream_.expires_after(kIoTimeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](error_code error, std::size_t /*bytes*/) {
                     self->onRead(error);
                   });
}

void Session::onRead(error_code error) {
  idle_ = false;
  loop_.idle_sessions.erase(this);
  if (error == http::error::body_limit) {
    request_in_flight_ = true;
    LoopCounters::add(loop_.counters.requests_in_flight, 1);
    send(sdk::errorReply(413, "request body exceeds " +
                                  std::to_string(sdk::kMaxRequestBodyBytes) + " bytes"),
         true);
    return;
  }
  if (error == http::error::end_of_stream || error == boost::asio::error::operation_aborted ||
      error == beast::error::timeout || error == boost::asio::error::connection_reset ||
      error == boost::asio::error::eof) {
    close();
    return;
  }
  request_in_flight_ = true;
  LoopCounters::add(loop_.counters.requests_in_flight, 1);
  if (error) {
    send(sdk::errorReply(400, "malformed HTTP request: " + error.message()), true);
    return;
  }

  const auto& message = parser_->get();
  auto classified = sdk::classifyRequest(message.method_string(), message.target(), kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified)) {
    send(std::move(*reply), false);
    return;
  }
  request_ = std::move(std::get<sdk::ServiceRequest>(classified));
  if (request_.delay_call_depth > 0) {
    LoopCounters::add(loop_.counters.upstream_calls, 1);
    loop_.upstream.get(sdk::upstreamTarget(kApproachName, request_),
                       [self = shared_from_this()](UpstreamResult result) {
                         self->onUpstreamDone(std::move(result));
                       });
  } else if (request_.delay_millis > 0) {
    delay_timer_.expires_after(std::chrono::milliseconds(request_.delay_millis));
    delay_timer_.async_wait(
        [self = shared_from_this()](error_code wait_error) { self->onDelayElapsed(wait_error); });
  } else {
    answer();
  }
}

void Session::onDelayElapsed(error_code error) {
  if (error) {
    send(sdk::errorReply(503, "delay interrupted: " + error.message()), true);
    return;
  }
  answer();
}

void Session::onUpstreamDone(UpstreamResult result) {
  if (result.error) {
    send(sdk::errorReply(502, "nested call failed: " + result.error.message()), false);
  } else if (result.status != 200) {
    send(sdk::errorReply(502, "nested call answered " + std::to_string(result.status)), false);
  } else {
    answer();
  }
}

void Session::answer() {
  send(loop_.server.host().answer(request_, parser_->get().body()), false);
}

void Session::send(sdk::Reply reply, bool close_after) {
  const bool keep_alive = !close_after && parser_ && parser_->is_header_done() &&
                          parser_->get().keep_alive() && loop_.server.keepAliveAllowed();
  response_ = {};
  response_.version(11);
  response_.result(static_cast<unsigned>(reply.status));
  response_.set(http::field::server, "benchd callbacks-asio");
  if (!reply.body.empty() || reply.status != 200) {
    response_.set(http::field::content_type, reply.content_type);
  }
  if (!reply.allow.empty()) response_.set(http::field::allow, reply.allow);
  response_.body() = std::move(reply.body);
  response_.keep_alive(keep_alive);
  response_.prepare_payload();
  stream_.expires_after(kIoTimeout);
  http::async_write(stream_, response_,
                    [self = shared_from_this(), keep_alive](error_code error, std::size_t) {
                      self->onWritten(error, !keep_alive);
                    });
}

void Session::onWritten(error_code error, bool close_after) {
  request_in_flight_ = false;
  LoopCounters::add(loop_.counters.requests_in_flight, -1);
  LoopCounters::add(loop_.counters.requests_served, 1);
  if (error) {
    close();
  } else if (close_after) {
    discardInputThenClose();
  } else {
    readRequest();
  }
}

void Session::discardInputThenClose() {
  beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  // Reading until the peer closes (or the timeout) keeps unread request bytes from turning
  // the close into a reset that could destroy the reply before the client reads it.
  struct Discard {
    std::shared_ptr<Session> self;
    std::shared_ptr<std::array<char, 4096>> scratch;
    void operator()(error_code error, std::size_t) {
      if (error) {
        self->close();
        return;
      }
      self->stream_.async_read_some(boost::asio::buffer(*scratch), std::move(*this));
    }
  };
  stream_.expires_after(kDiscardTimeout);
  Discard discard{shared_from_this(), std::make_shared<std::array<char, 4096>>()};
  stream_.async_read_some(boost::asio::buffer(*discard.scratch), std::move(discard));
}

void Session::close() {
  beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace benchd::callbacks_asio
