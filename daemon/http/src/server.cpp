#include "stream_state.hpp"

#include <benchd/http/problem.hpp>
#include <benchd/http/server.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_set>

namespace benchd::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

class Session;

/// After a response that closes the connection, input is read and discarded for at most this
/// long (or until the client closes): closing a socket with unread input makes the kernel send
/// a reset, which can destroy the response (e.g. a 413) before the client has read it.
constexpr std::chrono::milliseconds kLingerTime{2'000};
/// Backoff after a failed accept (e.g. out of file descriptors), so it does not spin.
constexpr std::chrono::milliseconds kAcceptRetryDelay{50};
/// Read granularity while waiting for a request and while discarding.
constexpr std::size_t kReadChunk = 4096;

/// The server whose loop the current thread runs, if any (so stop() can refuse to join itself).
thread_local const void* tl_current_server = nullptr;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";

/// One event-loop thread with its io_context. Connections live on exactly one loop, so their
/// state needs no locks.
struct Loop {
  /// Live sessions of this loop (loop thread only, or any thread after the loop has ended).
  /// Declared before `io` so it outlives the handlers `io` destroys.
  std::unordered_set<Session*> sessions;
  asio::io_context io{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread thread;
};

/// State shared by every session of a server; outlives them all.
struct Core {
  Core(Router r, ServerOptions o) : router(std::move(r)), options(std::move(o)) {}

  Response dispatch(Request& request) const;
  void registerStream(const std::shared_ptr<detail::StreamState>& state);
  /// After the loops have ended: closes every stream still alive and tells the application.
  void sweepStreams();

  const Router router;
  const ServerOptions options;
  std::atomic<std::size_t> connections{0};
  std::atomic<std::size_t> streams{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<bool> stopping{false};

  std::mutex live_mutex;
  std::vector<std::weak_ptr<detail::StreamState>> live_streams;  ///< guarded by live_mutex
};

Response Core::dispatch(Request& request) const {
  auto parsed = parseTarget(request.target);
  if (!parsed.ok)
    return problemResponse(400, parsed.reason, parsed.detail);
  request.path = std::move(parsed.path);
  request.segments = std::move(parsed.segments);
  request.query = std::move(parsed.query);
  auto match = router.match(request.method, request.segments, parsed.trailing_slash);
  const RouteTraits traits{match.kind != Router::Match::Kind::NotFound,
                           match.kind != Router::Match::Kind::NotFound && match.options.is_public};
  // Policies run before 404/405 so that a caller without a token cannot map the routes.
  try {
    for (const auto& policy : options.policies) {
      if (auto refusal = policy(request, traits))
        return std::move(*refusal);
    }
    switch (match.kind) {
      case Router::Match::Kind::NotFound:
        return problemResponse(404, "unknown-route",
                               "no resource at " + request.path.substr(0, 200));
      case Router::Match::Kind::MethodNotAllowed: {
        auto refusal = problemResponse(
            405, "method-not-allowed",
            request.method.substr(0, 32) + " is not allowed here; allowed: " + match.allow);
        refusal.headers.set("Allow", match.allow);
        return refusal;
      }
      case Router::Match::Kind::Found:
        break;
    }
    request.path_params = std::move(match.params);
    return (*match.handler)(request);
  } catch (const std::exception& error) {
    if (options.on_handler_error)
      options.on_handler_error(request, error.what());
  } catch (...) {
    if (options.on_handler_error)
      options.on_handler_error(request, "unknown exception");
  }
  return problemResponse(500, "internal-error", "the server failed to handle the request");
}

void Core::registerStream(const std::shared_ptr<detail::StreamState>& state) {
  std::lock_guard lock(live_mutex);
  std::erase_if(live_streams, [](const auto& weak) { return weak.expired(); });
  live_streams.push_back(state);
}

void Core::sweepStreams() {
  std::vector<std::shared_ptr<detail::StreamState>> alive;
  {
    std::lock_guard lock(live_mutex);
    for (const auto& weak : live_streams) {
      if (auto state = weak.lock())
        alive.push_back(std::move(state));
    }
    live_streams.clear();
  }
  for (const auto& state : alive) {
    state->markClosed(StreamEnd::ServerStopping);
    state->notifyClosed();
  }
}

std::string endpointAddress(const tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  return address.to_string();
}

std::string hex(std::size_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value % 16]);
    value /= 16;
  } while (value != 0);
  return out;
}

bool hasLineBreak(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

/// One client connection. Lives on one loop; every member function runs on that loop's thread
/// (the destructor too, or on the thread that destroys the loop after it ended).
///
/// Lifecycle: waitForRequest -> readHeader -> readBody -> handleRequest -> sendResponse ->
/// (keep-alive) waitForRequest ... or startStream -> stream until it ends -> close. Pending
/// asynchronous operations hold the session through shared_from_this().
class Session : public std::enable_shared_from_this<Session>, public detail::StreamOwner {
 public:
  Session(Core& core, Loop& loop, tcp::socket socket)
      : core_(core),
        loop_(loop),
        stream_(std::move(socket)),
        buffer_(core.options.max_header_bytes + std::size_t{64} * 1024),
        heartbeat_(loop.io) {
    error_code ignored;
    const auto remote = stream_.socket().remote_endpoint(ignored);
    remote_address_ = endpointAddress(remote);
    remote_port_ = remote.port();
    const auto local = stream_.socket().local_endpoint(ignored);
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
    waitForRequest();
  }

  /// The server is stopping: close if idle, finish the current exchange otherwise.
  void shutdown() {
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
      stream_.expires_at(header_deadline_);
    else
      stream_.expires_after(core_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = shared_from_this()](error_code error, std::size_t bytes) {
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
    stream_.expires_at(header_deadline_);
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](error_code error, std::size_t) { self->onHeader(error); });
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
      stream_.expires_after(core_.options.write_timeout);
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](error_code write_error, std::size_t) {
                          if (write_error)
                            return self->closeNow();
                          self->readBody();
                        });
      return;
    }
    readBody();
  }

  void readBody() {
    stream_.expires_after(core_.options.body_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](error_code error, std::size_t) {
                        if (error)
                          return self->handleReadError(error);
                        self->handleRequest();
                      });
  }

  Response bodyTooLarge() const {
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
    stream_.expires_after(core_.options.write_timeout);
    bhttp::async_write(
        stream_, *message,
        [self = shared_from_this(), message, keep_alive](error_code error, std::size_t) {
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
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    discard();
  }

  void discard() {
    stream_.async_read_some(asio::buffer(discard_),
                            [self = shared_from_this()](error_code error, std::size_t) {
                              if (error)
                                return self->closeNow();
                              self->discard();
                            });
  }

  void closeNow() {
    phase_ = Phase::Closing;
    heartbeat_.cancel();
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
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
    stream_state_ = std::make_shared<detail::StreamState>(
        loop_.io.get_executor(), std::weak_ptr<detail::StreamOwner>(shared_from_this()),
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
  /// something, which is discarded). It does not use stream_'s timer (writes do).
  void watchClient() {
    stream_.socket().async_read_some(asio::buffer(discard_),
                                     [self = shared_from_this()](error_code error, std::size_t) {
                                       if (self->stream_done_)
                                         return;
                                       if (error)
                                         return self->endStream(StreamEnd::ClientLeft, false);
                                       self->watchClient();
                                     });
  }

  void armHeartbeat() {
    heartbeat_.expires_after(core_.options.streams.heartbeat_interval);
    heartbeat_.async_wait([self = shared_from_this()](error_code error) {
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
    stream_.expires_after(core_.options.write_timeout);
    asio::async_write(stream_, asio::buffer(stream_out_),
                      [self = shared_from_this()](error_code error, std::size_t) {
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
  beast::tcp_stream stream_;
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

  std::shared_ptr<detail::StreamState> stream_state_;
  asio::steady_timer heartbeat_;
  std::string stream_prefix_;  ///< the response header, sent with the first write
  std::string stream_out_;     ///< the write in flight
  std::size_t written_accounted_ = 0;
  bool stream_writing_ = false;
  bool final_write_ = false;
  bool stream_done_ = false;
  bool holds_stream_slot_ = false;
};

}  // namespace

struct HttpServer::Impl {
  Impl(Router router, ServerOptions options) : core(std::move(router), std::move(options)) {}

  void accept();
  void onAccept(error_code error, tcp::socket socket, Loop& target);
  [[nodiscard]] bool onServerThread() const;
  void stop();

  Core core;
  std::vector<std::unique_ptr<Loop>> loops;
  /// On loops[0]; declared after `loops` so it is destroyed before them.
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_retry;
  std::size_t next_loop = 0;  ///< loops[0]'s thread only
  std::uint16_t bound_port = 0;
  std::string bound_address;

  std::mutex stop_mutex;  ///< serialises stop(); held for its whole run
  bool stopped = false;   ///< guarded by stop_mutex
  std::mutex exit_mutex;
  std::condition_variable exited;
  std::size_t running_threads = 0;  ///< guarded by exit_mutex
};

void HttpServer::Impl::accept() {
  Loop& target = *loops[next_loop++ % loops.size()];
  acceptor->async_accept(target.io, [this, &target](error_code error, tcp::socket socket) {
    onAccept(error, std::move(socket), target);
  });
}

void HttpServer::Impl::onAccept(error_code error, tcp::socket socket, Loop& target) {
  if (error == asio::error::operation_aborted || core.stopping || !acceptor->is_open())
    return;
  if (error) {
    // Typically EMFILE/ENFILE: wait a little instead of spinning on the failing accept.
    accept_retry->expires_after(kAcceptRetryDelay);
    accept_retry->async_wait([this](error_code wait_error) {
      if (!wait_error && !core.stopping)
        accept();
    });
    return;
  }
  if (core.connections.load() >= core.options.max_connections) {
    error_code ignored;
    socket.close(ignored);  // over the limit: refuse by closing, costs nothing to keep
  } else {
    core.connections.fetch_add(1);
    auto session = std::make_shared<Session>(core, target, std::move(socket));
    asio::post(target.io, [session] { session->start(); });
  }
  accept();
}

bool HttpServer::Impl::onServerThread() const {
  return tl_current_server == this;
}

void HttpServer::Impl::stop() {
  if (onServerThread())
    throw std::logic_error("HttpServer::stop() must not be called from a server thread");
  std::lock_guard stop_lock(stop_mutex);
  if (stopped)
    return;
  core.stopping = true;
  asio::post(loops[0]->io, [this] {
    error_code ignored;
    acceptor->close(ignored);
    accept_retry->cancel();
  });
  for (auto& loop : loops) {
    asio::post(loop->io, [&target = *loop] {
      const std::vector<Session*> sessions(target.sessions.begin(), target.sessions.end());
      for (auto* session : sessions)
        session->shutdown();
      target.work.reset();
    });
  }
  {
    std::unique_lock lock(exit_mutex);
    exited.wait_for(lock, core.options.stop_grace, [this] { return running_threads == 0; });
  }
  for (auto& loop : loops)
    loop->io.stop();  // whatever is still open after the grace period is cut off
  for (auto& loop : loops) {
    if (loop->thread.joinable())
      loop->thread.join();
  }
  core.sweepStreams();
  stopped = true;
}

HttpServer::HttpServer(Router router, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(router), std::move(options))) {
  auto& impl = *impl_;
  const auto& opts = impl.core.options;
  if (opts.threads == 0)
    throw std::invalid_argument("HttpServer: threads must be at least 1");
  error_code error;
  const auto address = asio::ip::make_address(opts.address, error);
  if (error) {
    throw std::invalid_argument("HttpServer: '" + opts.address +
                                "' is not a numeric IPv4 or IPv6 address");
  }
  for (unsigned i = 0; i < opts.threads; ++i) {
    impl.loops.push_back(std::make_unique<Loop>());
    impl.loops.back()->work.emplace(impl.loops.back()->io.get_executor());
  }
  const tcp::endpoint endpoint(address, opts.port);
  const std::string where = opts.address + " port " + std::to_string(opts.port);
  impl.acceptor.emplace(impl.loops[0]->io);
  impl.accept_retry.emplace(impl.loops[0]->io);
  impl.acceptor->open(endpoint.protocol(), error);
  if (!error)
    impl.acceptor->set_option(asio::socket_base::reuse_address(true), error);
  if (!error)
    impl.acceptor->bind(endpoint, error);
  if (!error)
    impl.acceptor->listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    throw std::system_error(error.value(), std::generic_category(),
                            "HttpServer: cannot listen on " + where);
  }
  const auto local = impl.acceptor->local_endpoint();
  impl.bound_port = local.port();
  impl.bound_address = local.address().to_string();
  impl.accept();
  impl.running_threads = impl.loops.size();
  std::size_t index = 0;
  for (auto& loop : impl.loops) {
    loop->thread = std::thread([&impl, &own = *loop] {
      tl_current_server = &impl;
      // A handler's exception never reaches here (dispatch() catches them); anything else that
      // escapes must not end a loop that other connections depend on.
      for (;;) {
        try {
          own.io.run();
          break;
        } catch (...) {
        }
      }
      {
        std::lock_guard lock(impl.exit_mutex);
        --impl.running_threads;
      }
      impl.exited.notify_all();
    });
    // Named so per-thread CPU in /proc/<pid>/task/*/comm tells the server from its host
    // process's other threads (bench/daemon/sse-cpu.sh).
    const std::string name = "benchd-http-" + std::to_string(index++);
    ::pthread_setname_np(loop->thread.native_handle(), name.c_str());
  }
}

HttpServer::~HttpServer() {
  stop();
}

std::uint16_t HttpServer::port() const noexcept {
  return impl_->bound_port;
}

std::string HttpServer::address() const {
  return impl_->bound_address;
}

ServerStats HttpServer::stats() const noexcept {
  ServerStats stats;
  stats.open_connections = impl_->core.connections.load();
  stats.open_streams = impl_->core.streams.load();
  stats.requests = impl_->core.requests.load();
  return stats;
}

void HttpServer::stop() {
  impl_->stop();
}

}  // namespace benchd::http
