#pragma once
// One client connection of HttpServer, over a plain TCP stream or over TLS. Private to the
// server's translation units; server.cpp instantiates both.

#include "server_core.hpp"
#include "stream_state.hpp"

#include <benchd/http/problem.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace benchd::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

/// After a response that closes the connection, input is read and discarded for at most this
/// long (or until the client closes): closing a socket with unread input makes the kernel send
/// a reset, which can destroy the response (e.g. a 413) before the client has read it. Under
/// TLS the close_notify exchange comes first, within the same time.
constexpr std::chrono::milliseconds kLingerTime{2'000};
/// Read granularity while waiting for a request and while discarding.
constexpr std::size_t kReadChunk = 4096;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";

inline std::string endpointAddress(const tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  return address.to_string();
}

inline std::string hex(std::size_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value % 16]);
    value /= 16;
  } while (value != 0);
  return out;
}

inline bool hasLineBreak(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

/// One client connection on `Stream`: PlainStream, or TlsStream (HTTP over TLS, handshake
/// first). Lives on one loop; every member function runs on that loop's thread (the destructor
/// too, or on the thread that destroys the loop after it ended).
///
/// Lifecycle: waitForRequest -> readHeader -> readBody -> handleRequest -> sendResponse ->
/// (keep-alive) waitForRequest ... or startStream -> stream until it ends -> close. Pending
/// asynchronous operations hold the session through shared_from_this().
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>>,
                public StreamOwner,
                public LoopSession {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  /// Under TLS, `core.tls` holds the server's context.
  Session(Core& core, Loop& loop, tcp::socket socket)
      : core_(core),
        loop_(loop),
        stream_(makeStream(core, std::move(socket))),
        buffer_(core.options.max_header_bytes + std::size_t{64} * 1024),
        heartbeat_(loop.io) {
    error_code ignored;
    const auto remote = transport().socket().remote_endpoint(ignored);
    remote_address_ = endpointAddress(remote);
    remote_port_ = remote.port();
    const auto local = transport().socket().local_endpoint(ignored);
    local_address_ = endpointAddress(local);
    local_port_ = local.port();
    header_deadline_ = std::chrono::steady_clock::now() + core.options.header_timeout;
  }

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  ~Session() override {
    loop_.sessions.erase(this);
    if (stream_state_) {
      stream_state_->markClosed(StreamEnd::ClientLeft);
      stream_state_->notifyClosed();
    }
    releaseStreamSlot();
    core_.connections.fetch_sub(1);
  }

  void start() {
    loop_.sessions.insert(this);
    if (core_.stopping)
      return closeNow();
    if constexpr (kTls) {
      // The handshake counts against the first request's header deadline: a client that
      // trickles its handshake is cut off as one that trickles its header.
      transport().expires_at(header_deadline_);
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](error_code error) {
                                if (error)
                                  return self->closeNow();
                                self->waitForRequest();
                              });
    } else {
      waitForRequest();
    }
  }

  /// The server is stopping: close if idle, finish the current exchange otherwise.
  void shutdown() override {
    closing_ = true;
    switch (phase_) {
      case Phase::Idle:
      case Phase::Closing:
        closeNow();
        break;
      case Phase::Reading:
      case Phase::Responding:
        break;  // closes once the response is written (closing_)
      case Phase::Streaming:
        endStream(StreamEnd::ServerStopping, true);
        break;
    }
  }

  void onStreamActivity() override {
    if (phase_ != Phase::Streaming || stream_done_)
      return;
    // A too-slow client is cut off at once, even while a write to it is still pending.
    if (stream_state_->closedReason() == StreamEnd::ClientTooSlow)
      return endStream(StreamEnd::ClientTooSlow, false);
    flushStream();
  }

 private:
  enum class Phase { Idle = 1, Reading, Responding, Streaming, Closing };

  static Stream makeStream(Core& core, tcp::socket socket) {
    if constexpr (kTls)
      return Stream(std::move(socket), *core.tls);
    else
      return Stream(std::move(socket));
  }

  /// The TCP stream below TLS (the stream itself in clear): its timer bounds every read and
  /// write, TLS records included.
  beast::tcp_stream& transport() { return beast::get_lowest_layer(stream_); }

  // ---- requests ----

  void waitForRequest() {
    phase_ = Phase::Idle;
    if (closing_)
      return closeNow();
    if (buffer_.size() > 0) {  // a pipelined request is already here
      header_deadline_ = std::chrono::steady_clock::now() + core_.options.header_timeout;
      return readHeader();
    }
    // The first request's header must complete within header_timeout of the accept; later
    // ones may wait idle_timeout for their first byte, then get header_timeout.
    if (first_request_)
      transport().expires_at(header_deadline_);
    else
      transport().expires_after(core_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = this->shared_from_this()](error_code error, std::size_t bytes) {
                              self->onFirstBytes(error, bytes);
                            });
  }

  void onFirstBytes(error_code error, std::size_t bytes) {
    buffer_.commit(bytes);
    if (error)
      return closeNow();
    if (!first_request_)
      header_deadline_ = std::chrono::steady_clock::now() + core_.options.header_timeout;
    readHeader();
  }

  void readHeader() {
    phase_ = Phase::Reading;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<std::size_t>(core_.options.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(core_.options.max_body_bytes);
    transport().expires_at(header_deadline_);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = this->shared_from_this()](error_code error, std::size_t) {
                               self->onHeader(error);
                             });
  }

  void onHeader(error_code error) {
    if (error)
      return handleReadError(error);
    const auto& message = parser_->get();
    // The parser accepts HTTP/1.0 and HTTP/1.1 only (bad_version otherwise).
    version_ = message.version() == 10 ? 10U : 11U;
    if (const auto length = parser_->content_length();
        length && *length > core_.options.max_body_bytes) {
      return sendAndClose(bodyTooLarge());
    }
    const auto expect = message.find(bhttp::field::expect);
    if (expect != message.end() && beast::iequals(expect->value(), "100-continue") &&
        version_ == 11) {
      transport().expires_after(core_.options.write_timeout);
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = this->shared_from_this()](error_code write_error, std::size_t) {
                          if (write_error)
                            return self->closeNow();
                          self->readBody();
                        });
      return;
    }
    readBody();
  }

  void readBody() {
    transport().expires_after(core_.options.body_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = this->shared_from_this()](error_code error, std::size_t) {
                        if (error)
                          return self->handleReadError(error);
                        self->handleRequest();
                      });
  }

  [[nodiscard]] Response bodyTooLarge() const {
    return problemResponse(413, "body-too-large",
                           "the request body exceeds the limit of " +
                               std::to_string(core_.options.max_body_bytes) + " bytes");
  }

  /// Maps parser and transport errors: protocol violations get an answer, then the connection
  /// closes (the byte stream can no longer be trusted); transport failures just close.
  void handleReadError(error_code error) {
    if (error == bhttp::error::end_of_stream || error == bhttp::error::partial_message)
      return closeNow();
    if (error == bhttp::error::body_limit)
      return sendAndClose(bodyTooLarge());
    if (error == bhttp::error::header_limit) {
      return sendAndClose(problemResponse(431, "header-too-large",
                                          "the request header exceeds the limit of " +
                                              std::to_string(core_.options.max_header_bytes) +
                                              " bytes"));
    }
    if (error.category() == bhttp::make_error_code(bhttp::error::bad_method).category()) {
      return sendAndClose(problemResponse(400, "malformed-request",
                                          "the request is not valid HTTP/1.1: " + error.message()));
    }
    closeNow();  // timeout, reset, aborted, buffer overflow
  }

  void handleRequest() {
    phase_ = Phase::Responding;
    first_request_ = false;
    auto message = parser_->release();
    parser_.reset();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message)
      request.headers.add(std::string(field.name_string()), std::string(field.value()));
    request.body = std::move(message.body());
    request.remote_address = remote_address_;
    request.remote_port = remote_port_;
    request.local_address = local_address_;
    request.local_port = local_port_;
    core_.requests.fetch_add(1);
    const bool keep_alive = message.keep_alive() && !closing_ && !core_.stopping;
    const bool head = message.method() == bhttp::verb::head;

    Response response = core_.dispatch(request);
    if (response.stream && !head)
      return startStream(std::move(response), keep_alive);
    if (response.stream) {  // HEAD of a stream: the headers only
      response.stream.reset();
      response.headers.set("Content-Type", "text/event-stream");
    }
    sendResponse(std::move(response), keep_alive, head);
  }

  void sendResponse(Response response, bool keep_alive, bool head) {
    phase_ = Phase::Responding;
    auto message = std::make_shared<bhttp::response<bhttp::string_body>>();
    message->version(version_);
    message->result(response.status <= 999 ? response.status : 500U);
    for (const auto& [name, value] : response.headers.fields()) {
      if (hasLineBreak(name) || hasLineBreak(value))
        continue;  // never let a handler's value split the header
      message->insert(name, value);
    }
    message->erase(bhttp::field::content_length);
    message->erase(bhttp::field::transfer_encoding);
    message->erase(bhttp::field::connection);
    message->body() = std::move(response.body);
    message->keep_alive(keep_alive);
    message->prepare_payload();
    if (head) {
      const auto length = message->body().size();
      message->body().clear();
      message->content_length(length);
    }
    transport().expires_after(core_.options.write_timeout);
    bhttp::async_write(
        stream_, *message,
        [self = this->shared_from_this(), message, keep_alive](error_code error, std::size_t) {
          if (error)
            return self->closeNow();
          if (!keep_alive || self->closing_)
            return self->lingerAndClose();
          self->waitForRequest();
        });
  }

  void sendAndClose(Response response) { sendResponse(std::move(response), false, false); }

  void lingerAndClose() {
    phase_ = Phase::Closing;
    if (closing_ && core_.stopping)
      return closeNow();
    transport().expires_after(kLingerTime);
    if constexpr (kTls) {
      // close_notify first, so the client knows the response is whole; then the same linger
      // on the transport as in clear, whatever the client answered.
      stream_.async_shutdown([self = this->shared_from_this()](error_code) {
        if (self->phase_ == Phase::Closing && self->transport().socket().is_open())
          self->lingerOnTransport();
      });
    } else {
      lingerOnTransport();
    }
  }

  void lingerOnTransport() {
    error_code ignored;
    transport().socket().shutdown(tcp::socket::shutdown_send, ignored);
    discard();
  }

  /// Reads and drops what the client still sends, below TLS, until it closes or the linger
  /// deadline passes.
  void discard() {
    transport().async_read_some(asio::buffer(discard_),
                                [self = this->shared_from_this()](error_code error, std::size_t) {
                                  if (error)
                                    return self->closeNow();
                                  self->discard();
                                });
  }

  void closeNow() {
    phase_ = Phase::Closing;
    heartbeat_.cancel();
    error_code ignored;
    transport().socket().shutdown(tcp::socket::shutdown_both, ignored);
    transport().close();
  }

  // ---- event streams ----

  void startStream(Response response, bool keep_alive) {
    if (version_ != 11) {
      return sendAndClose(problemResponse(400, "stream-needs-http-1.1",
                                          "event streams need HTTP/1.1 (chunked transfer coding)"));
    }
    if (response.status != 200 || !response.body.empty()) {
      return sendAndClose(
          problemResponse(500, "internal-error", "the server failed to handle the request"));
    }
    if (core_.stopping) {
      return sendAndClose(problemResponse(503, "server-stopping", "the server is shutting down"));
    }
    if (core_.streams.fetch_add(1) >= core_.options.streams.max_streams) {
      core_.streams.fetch_sub(1);
      auto refusal =
          problemResponse(503, "too-many-streams",
                          "at most " + std::to_string(core_.options.streams.max_streams) +
                              " event streams may be open at once; retry later");
      refusal.headers.set("Retry-After", "5");
      return sendResponse(std::move(refusal), keep_alive, false);
    }
    holds_stream_slot_ = true;
    phase_ = Phase::Streaming;
    std::string head =
        "HTTP/1.1 200 OK\r\n"
        "Content-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\n"
        "Transfer-Encoding: chunked\r\n"
        "Connection: close\r\n"
        "X-Accel-Buffering: no\r\n";
    for (const auto& [name, value] : response.headers.fields()) {
      if (hasLineBreak(name) || hasLineBreak(value) || equalsIgnoreCase(name, "Content-Type") ||
          equalsIgnoreCase(name, "Content-Length") || equalsIgnoreCase(name, "Connection") ||
          equalsIgnoreCase(name, "Transfer-Encoding") || equalsIgnoreCase(name, "Cache-Control"))
        continue;
      head.append(name).append(": ").append(value).append("\r\n");
    }
    head += "\r\n";
    stream_prefix_ = std::move(head);
    stream_state_ = std::make_shared<StreamState>(
        loop_.io.get_executor(), std::weak_ptr<StreamOwner>(this->shared_from_this()),
        core_.options.streams.max_queued_bytes, std::move(*response.stream));
    core_.registerStream(stream_state_);
    watchClient();
    armHeartbeat();
    try {
      stream_state_->open();
    } catch (...) {
      // The application failed to subscribe: end the stream rather than leave it silent.
      stream_state_->requestClose(StreamEnd::ClosedByApplication);
    }
    flushStream();
  }

  /// A read on the raw socket while streaming: its completion means the client closed (or sent
  /// something, which is discarded). It does not use stream_'s timer (writes do). Under TLS it
  /// reads below TLS too: nothing a client sends on an event stream is ever decrypted, and the
  /// stream ends with its connection, so no record it takes is missed.
  void watchClient() {
    transport().socket().async_read_some(
        asio::buffer(discard_), [self = this->shared_from_this()](error_code error, std::size_t) {
          if (self->stream_done_)
            return;
          if (error)
            return self->endStream(StreamEnd::ClientLeft, false);
          self->watchClient();
        });
  }

  void armHeartbeat() {
    heartbeat_.expires_after(core_.options.streams.heartbeat_interval);
    heartbeat_.async_wait([self = this->shared_from_this()](error_code error) {
      if (error || self->stream_done_)
        return;
      self->stream_state_->enqueue(": keep-alive\n\n");
      self->armHeartbeat();
    });
  }

  /// Writes what is queued as one chunk (events are never split across writes by the
  /// application's pushes, and one write at a time keeps them in order).
  void flushStream() {
    if (stream_writing_ || stream_done_)
      return;
    auto taken = stream_state_->take();
    if (taken.closed == StreamEnd::ClientTooSlow)
      return endStream(StreamEnd::ClientTooSlow, false);
    std::string out = std::move(stream_prefix_);
    stream_prefix_.clear();
    if (!taken.bytes.empty()) {
      out += hex(taken.bytes.size());
      out += "\r\n";
      out += taken.bytes;
      out += "\r\n";
    }
    if (taken.closed) {
      // Graceful end: nothing more can be queued, so this is the last write.
      stream_state_->notifyClosed();
      out += kLastChunk;
      final_write_ = true;
    }
    if (out.empty())
      return;
    stream_writing_ = true;
    written_accounted_ = taken.bytes.size();
    stream_out_ = std::move(out);
    transport().expires_after(core_.options.write_timeout);
    asio::async_write(stream_, asio::buffer(stream_out_),
                      [self = this->shared_from_this()](error_code error, std::size_t) {
                        self->onStreamWritten(error);
                      });
  }

  void onStreamWritten(error_code error) {
    stream_writing_ = false;
    stream_state_->written(written_accounted_);
    written_accounted_ = 0;
    if (stream_done_)
      return;
    if (error) {
      return endStream(
          error == beast::error::timeout ? StreamEnd::ClientTooSlow : StreamEnd::ClientLeft, false);
    }
    if (final_write_)
      return endStream(StreamEnd::ServerStopping, false);  // reason already recorded
    flushStream();
  }

  /// `graceful`: stop taking events, write what is queued and the last chunk, then close.
  /// Otherwise close now. Either way the application is told once, with the first reason.
  void endStream(StreamEnd reason, bool graceful) {
    if (stream_done_)
      return;
    if (graceful) {
      stream_state_->markClosed(reason);
      flushStream();
      return;
    }
    stream_done_ = true;
    stream_state_->markClosed(reason);
    stream_state_->notifyClosed();
    releaseStreamSlot();
    if constexpr (kTls) {
      if (final_write_) {
        // The last chunk went out: close_notify, as after any response that ends its
        // connection (lingerAndClose closes at once while the server stops).
        heartbeat_.cancel();
        return lingerAndClose();
      }
    }
    closeNow();
  }

  void releaseStreamSlot() {
    if (holds_stream_slot_) {
      holds_stream_slot_ = false;
      core_.streams.fetch_sub(1);
    }
  }

  Core& core_;
  Loop& loop_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Phase phase_ = Phase::Idle;
  unsigned version_ = 11;
  bool first_request_ = true;
  bool closing_ = false;  ///< the server is stopping: close after the current exchange
  std::chrono::steady_clock::time_point header_deadline_;
  std::string remote_address_;
  std::uint16_t remote_port_ = 0;
  std::string local_address_;
  std::uint16_t local_port_ = 0;
  std::array<char, kReadChunk> discard_{};

  std::shared_ptr<StreamState> stream_state_;
  asio::steady_timer heartbeat_;
  std::string stream_prefix_;  ///< the response header, sent with the first write
  std::string stream_out_;     ///< the write in flight
  std::size_t written_accounted_ = 0;
  bool stream_writing_ = false;
  bool final_write_ = false;
  bool stream_done_ = false;
  bool holds_stream_slot_ = false;
};

}  // namespace benchd::http::detail
