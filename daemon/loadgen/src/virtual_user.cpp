#include "virtual_user.hpp"

#include "h2_client_connection.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstring>

namespace benchd::loadgen {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

/// Read buffer per connection; grows (doubling) only for a response header larger than this.
constexpr std::size_t kInitialBufferBytes = 4096;
constexpr std::size_t kMaxBufferBytes = std::size_t{64} * 1024;

measurement::ErrorClass classifyConnectError(const error_code& error) {
  if (error == asio::error::connection_refused) {
    return measurement::ErrorClass::kConnectionRefused;
  }
  if (error == asio::error::timed_out) {
    return measurement::ErrorClass::kConnectTimeout;
  }
  return measurement::ErrorClass::kOther;
}

/// An end of stream: the peer's FIN, or under TLS its close_notify (eof) or a FIN without one.
bool isEndOfStream(const error_code& error) {
  return error == asio::error::eof || error == asio::ssl::error::stream_truncated;
}

bool isConnectionLoss(const error_code& error) {
  return error == asio::error::connection_reset || error == asio::error::broken_pipe ||
         isEndOfStream(error) || error == asio::error::connection_aborted;
}

/// An interim response (RFC 9110 15.2: 100 Continue, 102, 103 Early Hints) precedes the final
/// one to the same request. 101 Switching Protocols is final: the load generator never asks for
/// an upgrade, so a 101 ends the request (as an error) and the connection.
bool isInterim(unsigned status) {
  return status >= 100 && status < 200 && status != 101;
}

measurement::ErrorClass classifyIoError(const error_code& error) {
  if (isConnectionLoss(error)) {
    return measurement::ErrorClass::kConnectionReset;
  }
  if (error == asio::error::timed_out) {
    return measurement::ErrorClass::kRequestTimeout;
  }
  return measurement::ErrorClass::kOther;
}

}  // namespace

VirtualUser::VirtualUser(LoopContext& loop, Owner& owner, std::uint32_t index,
                         H2ClientConnection* h2)
    : loop_(loop), owner_(owner), index_(index), h2_(h2), socket_(loop.io), pause_timer_(loop.io) {}

void VirtualUser::startRequest(const PreparedRequest& request, std::optional<TimePoint> intended) {
  request_ = &request;
  intended_ = intended;
  retried_ = false;
  sent_once_ = false;
  ++loop_.stats.counters.requests_sent;
  if (h2_ != nullptr) {
    if (!h2_attached_) {
      h2_attached_ = true;
      h2_->attach();
    }
    // Until the stream is submitted the request waits for its connection: a connect's deadline.
    state_ = State::kConnecting;
    deadline_ = Clock::now() + loop_.connect_timeout;
    h2_->start(*this, request);
    return;
  }
  if (socket_.is_open()) {
    reused_connection_ = true;
    send();
  } else {
    connect();
  }
}

void VirtualUser::connect() {
  state_ = State::kConnecting;
  reused_connection_ = false;
  deadline_ = Clock::now() + loop_.connect_timeout;
  socket_.async_connect(loop_.endpoint, [this](const error_code& error) { onConnected(error); });
}

void VirtualUser::onConnected(const error_code& error) {
  if (abort_ != Abort::kNone) {
    endAborted();
    return;
  }
  if (error) {
    failConnect(error);
    return;
  }
  ++loop_.stats.counters.connects;
  error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (loop_.tls == nullptr) {
    send();
    return;
  }
  tls_.emplace(socket_, *loop_.tls);
  tls_->async_handshake(asio::ssl::stream_base::client, [this](const error_code& handshake_error) {
    onHandshaken(handshake_error);
  });
}

void VirtualUser::onHandshaken(const error_code& error) {
  if (abort_ != Abort::kNone) {
    endAborted();
    return;
  }
  if (error) {
    failConnect(error);
    return;
  }
  send();
}

void VirtualUser::onStreamSubmitted() {
  state_ = State::kInRequest;
  if (!sent_once_) {
    sent_once_ = true;
    sent_at_ = Clock::now();
  }
  deadline_ = sent_at_ + loop_.request_timeout;
}

void VirtualUser::onStreamEnded(std::optional<measurement::ErrorClass> error, bool sent) {
  if (abort_ != Abort::kNone) {
    endAborted();
    return;
  }
  finish(error, sent, true);
}

void VirtualUser::failConnect(const error_code& error) {
  closeSocket();
  // A retry's connect failing still fails a request that went out once: it keeps its latency.
  finish(classifyConnectError(error), sent_once_, false);
}

void VirtualUser::send() {
  state_ = State::kInRequest;
  received_any_ = false;
  buffered_ = 0;
  resetParser();
  // A re-send keeps the first attempt's clock and deadline: the request took that long, and the
  // attempt the server dropped must not vanish from the latency.
  if (!sent_once_) {
    sent_once_ = true;
    sent_at_ = Clock::now();
  }
  deadline_ = sent_at_ + loop_.request_timeout;
  const auto on_written = [this](const error_code& error, std::size_t bytes) {
    onWritten(error, bytes);
  };
  if (tls_) {
    asio::async_write(*tls_, asio::buffer(request_->bytes), on_written);
  } else {
    asio::async_write(socket_, asio::buffer(request_->bytes), on_written);
  }
}

void VirtualUser::onWritten(const error_code& error, std::size_t bytes) {
  loop_.stats.counters.bytes_sent += bytes;
  if (abort_ != Abort::kNone) {
    endAborted();
    return;
  }
  if (error) {
    failIo(error);
    return;
  }
  receive();
}

void VirtualUser::receive() {
  if (!buffer_) {
    buffer_size_ = kInitialBufferBytes;
    buffer_ = std::make_unique_for_overwrite<char[]>(buffer_size_);
  }
  const auto space = asio::buffer(buffer_.get() + buffered_, buffer_size_ - buffered_);
  const auto on_received = [this](const error_code& error, std::size_t bytes) {
    onReceived(error, bytes);
  };
  if (tls_) {
    tls_->async_read_some(space, on_received);
  } else {
    socket_.async_read_some(space, on_received);
  }
}

void VirtualUser::onReceived(const error_code& error, std::size_t bytes) {
  loop_.stats.counters.bytes_received += bytes;
  if (abort_ != Abort::kNone) {
    endAborted();
    return;
  }
  if (isEndOfStream(error) && parser_->got_some()) {
    // A response framed by the end of the connection, or one cut short.
    error_code parse_error;
    parser_->put_eof(parse_error);
    if (!parse_error && parser_->is_done()) {
      completeResponse();
    } else {
      closeSocket();
      finish(measurement::ErrorClass::kConnectionReset, true, false);
    }
    return;
  }
  if (error) {
    failIo(error);
    return;
  }
  received_any_ = true;
  buffered_ += bytes;
  if (!parseBuffered()) {
    return;
  }
  // Interim responses are skipped; the bytes after one (often the final response, in the same
  // read) are parsed as the next response to the same request.
  while (parser_->is_done() && isInterim(parser_->status())) {
    resetParser();
    if (!parseBuffered()) {
      return;
    }
  }
  if (parser_->is_done()) {
    completeResponse();
    return;
  }
  if (buffered_ == buffer_size_) {
    if (buffer_size_ >= kMaxBufferBytes) {
      closeSocket();
      finish(measurement::ErrorClass::kOther, true, false);
      return;
    }
    auto larger = std::make_unique_for_overwrite<char[]>(buffer_size_ * 2);
    std::memcpy(larger.get(), buffer_.get(), buffered_);
    buffer_ = std::move(larger);
    buffer_size_ *= 2;
  }
  receive();
}

void VirtualUser::resetParser() {
  parser_.emplace();
  if (request_->head) {
    parser_->skip(true);
  }
}

bool VirtualUser::parseBuffered() {
  std::size_t offset = 0;
  while (offset < buffered_ && !parser_->is_done()) {
    error_code parse_error;
    const std::size_t consumed =
        parser_->put(asio::const_buffer(buffer_.get() + offset, buffered_ - offset), parse_error);
    offset += consumed;
    if (parse_error == http::error::need_more) {
      break;
    }
    if (parse_error) {
      closeSocket();
      finish(measurement::ErrorClass::kOther, true, false);
      return false;
    }
    if (consumed == 0) {
      break;
    }
  }
  // Keeps what the parser has not taken yet (a partial header or chunk line) at the front.
  if (offset > 0 && offset < buffered_) {
    std::memmove(buffer_.get(), buffer_.get() + offset, buffered_ - offset);
  }
  buffered_ -= std::min(offset, buffered_);
  return true;
}

void VirtualUser::completeResponse() {
  const unsigned status = parser_->status();
  const bool keep_alive = parser_->keep_alive();
  if (!keep_alive) {
    closeSocket();
  }
  finish(measurement::errorClassOfStatus(status), true, keep_alive);
}

void VirtualUser::failIo(const error_code& error) {
  closeSocket();
  // The one re-send: an idempotent request on a kept-alive connection that the server closed
  // before answering (it timed the idle connection out as the request went out). Anything else
  // fails here and is counted.
  if (request_->idempotent && reused_connection_ && !retried_ && !received_any_ &&
      isConnectionLoss(error)) {
    retried_ = true;
    connect();
    return;
  }
  finish(classifyIoError(error), true, false);
}

void VirtualUser::endAborted() {
  const Abort reason = abort_;
  abort_ = Abort::kNone;
  const bool was_connecting = state_ == State::kConnecting;
  closeSocket();
  if (reason == Abort::kInterrupt) {
    ++loop_.stats.counters.interrupted_requests;
    if (loop_.budget != nullptr) {
      loop_.budget->ended();
    }
    state_ = State::kIdle;
    owner_.onRequestDone(*this);
    return;
  }
  if (was_connecting) {
    finish(measurement::ErrorClass::kConnectTimeout, sent_once_, false);
  } else {
    finish(measurement::ErrorClass::kRequestTimeout, true, false);
  }
}

void VirtualUser::finish(std::optional<measurement::ErrorClass> error, bool sent,
                         bool keep_connection) {
  const TimePoint end = Clock::now();
  // A failed connect sent nothing: latency 0, like k6's http_req_duration of a dial error.
  const std::chrono::nanoseconds latency = sent ? end - sent_at_ : std::chrono::nanoseconds(0);
  std::optional<std::chrono::nanoseconds> corrected;
  if (intended_) {
    corrected = std::max(latency, std::chrono::nanoseconds(end - *intended_));
  }
  loop_.stats.recordRequest(error, latency, corrected);
  if (loop_.budget != nullptr) {
    loop_.budget->ended();
  }
  if (!keep_connection) {
    closeSocket();
  }
  state_ = State::kIdle;
  owner_.onRequestDone(*this);
}

void VirtualUser::enforceDeadlines(TimePoint now) noexcept {
  if (!busy() || abort_ != Abort::kNone) {
    return;
  }
  if (interrupt_at_ && now >= *interrupt_at_) {
    abort_ = Abort::kInterrupt;
  } else if (now >= deadline_) {
    abort_ = Abort::kTimeout;
  } else {
    return;
  }
  if (h2_ != nullptr) {
    h2_->cancel(*this);  // ends with onStreamEnded, which sees abort_
    return;
  }
  // The pending operation completes with an error; its handler sees abort_.
  closeSocket();
}

void VirtualUser::pauseUntil(TimePoint wake) {
  state_ = State::kPausing;
  const std::uint64_t generation = ++pause_generation_;
  pause_timer_.expires_at(wake);
  pause_timer_.async_wait([this, generation](const error_code& error) {
    if (error || generation != pause_generation_ || state_ != State::kPausing) {
      return;
    }
    state_ = State::kIdle;
    owner_.onPauseEnded(*this);
  });
}

void VirtualUser::cancelPause() {
  if (state_ != State::kPausing) {
    return;
  }
  ++pause_generation_;
  state_ = State::kIdle;
  pause_timer_.cancel();
}

void VirtualUser::close() noexcept {
  if (h2_attached_) {
    h2_attached_ = false;
    h2_->detach();
  }
  closeSocket();
  tls_.reset();
  buffer_.reset();
  buffer_size_ = 0;
  buffered_ = 0;
  parser_.reset();
}

void VirtualUser::closeSocket() noexcept {
  if (socket_.is_open()) {
    error_code ignored;
    socket_.close(ignored);
  }
}

}  // namespace benchd::loadgen
