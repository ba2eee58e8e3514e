// SPDX-License-Identifier: MIT-0
// template-cpp: a complete benchd approach plugin to copy. One OS thread per connection, blocking
// I/O, Boost.Beast's synchronous HTTP parser and serializer on Boost.Asio sockets.
//
// What the plugin must do is plugins/sdk/CONTRACT.md (installed beside plugin.h); the SDK's
// headers do the parts every plugin shares:
//   plugin_entry.hpp     the C entry points of plugin.h, generated from the Server class below;
//   service_request.hpp  routing and parameter checks of a request, and the error answers;
//   host.hpp             the final answer, from the host's microservice core;
//   limits.hpp, request_deadline.hpp  every timeout and size limit, and the options that
//                        shorten timeouts for tests.
// This file adds what is the plugin's own: threads, sockets, waits and the nested-call client.
//
// Threads: one accepting thread, and one connection thread per open connection. A connection
// thread serves its connection from accept to close, then waits for the next one while fewer
// than `threads` (the worker's --threads) wait, or ends; `threads` of them wait from the start.
// Every blocking wait is a poll() that also watches the two stop signals (Signals), so a stop
// never waits for a socket.

#include <benchd/plugin.h>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/idle_list.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/plugin_entry.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace sdk = benchd::sdk;
namespace http = boost::beast::http;
using asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The plugin's name: also the first path segment of its endpoints (/template-cpp/movies).
constexpr const char* kName = "template-cpp";

/// The category of Beast's parse errors, which are the client's and get an answer.
const boost::system::error_category& kHttpErrors =
    http::make_error_code(http::error::end_of_stream).category();

/// Adds one to a counter for the guard's lifetime (or until release()).
class Counted {
 public:
  explicit Counted(std::atomic<std::int64_t>& counter) : counter_(&counter) { ++*counter_; }
  ~Counted() { release(); }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  void release() noexcept {
    if (counter_ != nullptr)
      --*counter_;
    counter_ = nullptr;
  }

 private:
  std::atomic<std::int64_t>* counter_;
};

/// The two moments of a stop every blocked thread must notice at once: the drain begins (idle
/// connections close) and the stop gives up (every wait ends). Each is an eventfd that turns
/// readable once and stays so, for any number of poll()ing threads. Raised by the host thread.
class Signals {
 public:
  Signals() : drain_fd_(::eventfd(0, EFD_CLOEXEC)), stop_fd_(::eventfd(0, EFD_CLOEXEC)) {
    if (drain_fd_ < 0 || stop_fd_ < 0) {
      closeBoth();
      throw sdk::PluginError(BENCHD_ERR_IO, "eventfd failed");
    }
  }
  ~Signals() { closeBoth(); }
  Signals(const Signals&) = delete;
  Signals& operator=(const Signals&) = delete;

  void drain() noexcept { raise(draining_, drain_fd_); }
  void stop() noexcept { raise(stopped_, stop_fd_); }
  [[nodiscard]] bool draining() const noexcept { return draining_; }
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  [[nodiscard]] int drainFd() const noexcept { return drain_fd_; }
  [[nodiscard]] int stopFd() const noexcept { return stop_fd_; }

 private:
  void closeBoth() noexcept {
    for (const int fd : {drain_fd_, stop_fd_}) {
      if (fd >= 0)
        ::close(fd);
    }
  }
  static void raise(std::atomic<bool>& flag, int fd) noexcept {
    flag = true;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto ignored = ::write(fd, &one, sizeof one);
  }
  int drain_fd_;
  int stop_fd_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> stopped_{false};
};

/// A socket read and written in blocking style by one thread at a time, as Beast's synchronous
/// http::read and http::write expect (a SyncReadStream and SyncWriteStream). The socket is
/// non-blocking underneath and every wait is a poll() that fails the call with
///   - asio::error::timed_out at the deadline (expiresAfter(): a total over all calls until
///     the next expiresAfter(), not a timeout per read);
///   - asio::error::operation_aborted when the stop gives up, when the drain begins while
///     waitingForRequest(true), or when the watched client leaves (clientGone() is then true).
class Stream {
 public:
  Stream(tcp::socket socket, const Signals& signals)
      : socket_(std::move(socket)), signals_(signals) {
    error_code ignored;
    if (socket_.is_open())
      socket_.non_blocking(true, ignored);
  }

  void expiresAfter(milliseconds timeout) { deadline_ = Clock::now() + timeout; }
  void waitingForRequest(bool waiting) noexcept { waiting_for_request_ = waiting; }
  /// Ends every wait when the peer of `client_fd` shuts down or resets its connection (-1: none).
  void watchClient(int client_fd) noexcept { watched_fd_ = client_fd; }
  [[nodiscard]] bool clientGone() const noexcept { return client_gone_; }
  [[nodiscard]] tcp::socket& socket() noexcept { return socket_; }

  /// Waits until the socket has one of `events` (POLLIN, POLLOUT; 0 for none). Errors above.
  error_code wait(short events) {
    for (;;) {
      std::array<pollfd, 4> fds{{{socket_.native_handle(), events, 0},
                                 {signals_.stopFd(), POLLIN, 0},
                                 {waiting_for_request_ ? signals_.drainFd() : -1, POLLIN, 0},
                                 {watched_fd_, POLLRDHUP, 0}}};
      const auto left = std::chrono::ceil<milliseconds>(deadline_ - Clock::now()).count();
      const int ready = ::poll(fds.data(), fds.size(),
                               static_cast<int>(std::clamp<std::int64_t>(left, 0, INT_MAX)));
      if (ready < 0 && errno != EINTR)
        return {errno, boost::system::system_category()};
      if (fds[1].revents != 0 || fds[2].revents != 0)
        return asio::error::operation_aborted;
      if (fds[3].revents != 0) {
        client_gone_ = true;
        return asio::error::operation_aborted;
      }
      if (ready > 0 && fds[0].revents != 0)
        return {};  // ready, or an error the next call on the socket reports
      if (ready == 0 && Clock::now() >= deadline_)
        return asio::error::timed_out;
    }
  }

  /// Sleeps `delay` (a request's wait) unless the client on this socket leaves or the stop
  /// gives up: true when the delay elapsed. Bytes the client sends meanwhile stay unread.
  bool sleepWatchingClient(milliseconds delay) {
    expiresAfter(delay);
    watchClient(socket_.native_handle());
    const error_code end = wait(0);
    watchClient(-1);
    return end == asio::error::timed_out;
  }

  /// Connects to `endpoint` within the current deadline, watched as above.
  void connect(const tcp::endpoint& endpoint, error_code& error) {
    socket_.open(endpoint.protocol(), error);
    if (!error)
      socket_.non_blocking(true, error);
    if (error)
      return;
    // Not socket_.connect(): Asio's synchronous connect has no deadline.
    if (::connect(socket_.native_handle(), endpoint.data(),
                  static_cast<socklen_t>(endpoint.size())) == 0)
      return;
    if (errno != EINPROGRESS) {
      error = {errno, boost::system::system_category()};
      return;
    }
    error = wait(POLLOUT);
    int result = 0;
    socklen_t size = sizeof result;
    if (!error && ::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_ERROR, &result, &size) == 0)
      error = result == 0 ? error_code{} : error_code{result, boost::system::system_category()};
  }

  template <typename Buffers>
  std::size_t read_some(const Buffers& buffers, error_code& error) {
    for (;;) {
      const std::size_t bytes = socket_.read_some(buffers, error);
      if (error != asio::error::would_block || (error = wait(POLLIN)))
        return bytes;
    }
  }
  template <typename Buffers>
  std::size_t write_some(const Buffers& buffers, error_code& error) {
    for (;;) {
      const std::size_t bytes = socket_.write_some(buffers, error);
      if (error != asio::error::would_block || (error = wait(POLLOUT)))
        return bytes;
    }
  }
  // The throwing overloads the stream concepts also ask for.
  template <typename Buffers>
  std::size_t read_some(const Buffers& buffers) {
    error_code error;
    const std::size_t bytes = read_some(buffers, error);
    if (error)
      throw boost::system::system_error(error);
    return bytes;
  }
  template <typename Buffers>
  std::size_t write_some(const Buffers& buffers) {
    error_code error;
    const std::size_t bytes = write_some(buffers, error);
    if (error)
      throw boost::system::system_error(error);
    return bytes;
  }

 private:
  tcp::socket socket_;
  const Signals& signals_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool waiting_for_request_ = false;
  int watched_fd_ = -1;
  bool client_gone_ = false;
};

/// The nested calls' client: GET requests to the server's own endpoint over pooled keep-alive
/// connections (CONTRACT.md section 6). Idle connections are reused last in, first out, closed
/// once idle for the idle timeout (sweep()), and all closed when the drain begins; at most
/// sdk::kUpstreamPoolCapacity are open at once. Thread-safe.
class UpstreamClient {
 public:
  struct Outcome {
    error_code error;          ///< the call failed: answer 502
    unsigned status = 0;       ///< else the nested answer's status
    bool client_gone = false;  ///< the client the call was made for left: answer nothing
  };

  UpstreamClient(const Signals& signals, milliseconds margin, milliseconds idle_timeout)
      : signals_(signals), margin_(margin), idle_(idle_timeout) {}

  /// Where nested calls go, and the io_context their sockets belong to (never run).
  void setTarget(asio::io_context& io, const tcp::endpoint& self) {
    io_ = &io;
    self_ = self;
  }

  /// GET `target` (which forwards `delay_millis`) for the client on `client_fd`, whose departure
  /// ends the call at once. A pooled connection the server closed while it sat in the pool is
  /// replaced once; nothing else is retried.
  Outcome call(const std::string& target, std::int64_t delay_millis, int client_fd) {
    http::request<http::empty_body> request{http::verb::get, target, 11};
    request.set(http::field::host, "127.0.0.1");
    std::unique_ptr<Connection> connection = takeIdle();
    bool reused = connection != nullptr;
    for (;;) {
      error_code error;
      if (!connection) {
        reused = false;
        connection = open(client_fd, error);  // also on a failed connect: see clientGone()
        if (!connection)
          return {error, 0, false};
      }
      http::response<http::string_body> response;
      std::size_t received = 0;
      if (!error) {
        connection->stream.watchClient(client_fd);
        connection->stream.expiresAfter(sdk::upstreamResponseTimeout(delay_millis, margin_));
        http::write(connection->stream, request, error);
      }
      if (!error)
        received = http::read(connection->stream, connection->buffer, response, error);
      if (!error) {
        if (response.keep_alive())
          giveBack(std::move(connection));
        return {{}, response.result_int(), false};
      }
      if (connection->stream.clientGone())
        return {error, 0, true};
      const bool stale =
          reused && received == 0 && connection->buffer.size() == 0 &&
          (error == http::error::end_of_stream || error == asio::error::connection_reset ||
           error == asio::error::broken_pipe);
      connection.reset();
      if (!stale)
        return {error, 0, false};
    }
  }

  /// Closes the connections idle longer than the idle timeout.
  void sweep() {
    std::vector<std::unique_ptr<Connection>> expired;
    const std::lock_guard lock(mutex_);
    idle_.expire(Clock::now(), expired);
  }
  /// Closes every idle connection (the drain began).
  void closeIdle() {
    std::vector<std::unique_ptr<Connection>> dropped;
    const std::lock_guard lock(mutex_);
    idle_.clear(dropped);
  }
  [[nodiscard]] std::int64_t connectionsOpen() const noexcept { return open_; }

 private:
  struct Connection {
    Connection(asio::io_context& io, const Signals& signals, std::atomic<std::int64_t>& open)
        : stream(tcp::socket(io), signals), open_count(open) {}
    ~Connection() { --open_count; }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    Stream stream;
    boost::beast::flat_buffer buffer;
    std::atomic<std::int64_t>& open_count;
  };

  std::unique_ptr<Connection> takeIdle() {
    std::vector<std::unique_ptr<Connection>> dropped;  // closed after the lock is released
    const std::lock_guard lock(mutex_);
    // Usable: the server has neither closed it nor sent anything since.
    auto usable = [](std::unique_ptr<Connection>& idle) {
      pollfd fd{idle->stream.socket().native_handle(), POLLIN | POLLRDHUP, 0};
      return ::poll(&fd, 1, 0) == 0;
    };
    auto taken = idle_.take(Clock::now(), usable, dropped);
    return taken ? std::move(*taken) : nullptr;
  }

  /// A new connection to the server itself; nullptr when none is left. `error` says whether
  /// the connect failed.
  std::unique_ptr<Connection> open(int client_fd, error_code& error) {
    if (++open_ > sdk::kUpstreamPoolCapacity) {  // the place is taken before the connection
      --open_;
      error = asio::error::no_buffer_space;
      return nullptr;
    }
    auto connection = std::make_unique<Connection>(*io_, signals_, open_);
    connection->stream.watchClient(client_fd);
    connection->stream.expiresAfter(sdk::kConnectTimeout);
    connection->stream.connect(self_, error);
    if (!error)
      connection->stream.socket().set_option(tcp::no_delay(true), error);
    return connection;
  }

  void giveBack(std::unique_ptr<Connection> connection) {
    if (signals_.draining())
      return;  // closes it: the pool stays empty from the drain on
    connection->stream.watchClient(-1);
    const std::lock_guard lock(mutex_);
    idle_.put(std::move(connection), Clock::now());
  }

  const Signals& signals_;
  const milliseconds margin_;
  asio::io_context* io_ = nullptr;
  tcp::endpoint self_;
  std::atomic<std::int64_t> open_{0};
  std::mutex mutex_;
  sdk::IdleList<std::unique_ptr<Connection>> idle_;
};

/// The server behind the C entry points (the shape sdk::PluginAdapter expects). Lifecycle calls
/// come from the host thread; everything else runs on the accepting and connection threads.
class Server {
 public:
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad option value.
  Server(const benchd_host_api* host, sdk::ServerSettings settings)
      : host_(host),
        settings_(std::move(settings)),
        no_keep_alive_(settings_.hasProfile("no-keep-alive")),
        header_deadline_(sdk::headerDeadline(settings_)),
        sweep_interval_(sdk::upstreamIdleSweepInterval(sdk::upstreamIdleTimeout(settings_))),
        upstream_(signals_, sdk::upstreamResponseMargin(settings_),
                  sdk::upstreamIdleTimeout(settings_)),
        acceptor_(io_) {}

  ~Server() {
    if (acceptor_thread_.joinable())
      stop(milliseconds(0));
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The options this plugin takes: only the timeouts tests shorten. Any other is refused.
  static std::span<const std::string_view> knownOptions() { return sdk::kRequestDeadlineOptions; }

  void start() {
    error_code error;
    const tcp::endpoint endpoint(asio::ip::make_address(settings_.bind_address, error),
                                 settings_.port);
    if (error)
      throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                             "bad bind address '" + settings_.bind_address + "'");
    acceptor_.open(endpoint.protocol(), error);
    if (!error)
      acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
    if (!error)
      acceptor_.bind(endpoint, error);
    if (!error)
      acceptor_.listen(tcp::acceptor::max_listen_connections, error);
    if (!error)
      acceptor_.non_blocking(true, error);
    if (error == asio::error::address_in_use)
      throw sdk::PluginError(BENCHD_ERR_ADDRESS_IN_USE,
                             "port " + std::to_string(settings_.port) + " is in use");
    if (error)
      throw sdk::PluginError(BENCHD_ERR_IO,
                             "cannot listen on " + settings_.bind_address + ": " + error.message());
    port_ = acceptor_.local_endpoint().port();
    // Nested calls go to the bound address, or to loopback when bound to any address.
    asio::ip::address self = endpoint.address();
    if (self.is_unspecified())
      self = self.is_v6() ? asio::ip::address(asio::ip::address_v6::loopback())
                          : asio::ip::address(asio::ip::address_v4::loopback());
    upstream_.setTarget(io_, tcp::endpoint(self, port_));
    acceptor_thread_ = std::thread([this] { acceptUntilStopped(); });
    // The threads that wait for connections from the start (CONTRACT.md section 1, threads).
    const std::lock_guard lock(threads_mutex_);
    for (unsigned i = 0; i < settings_.threads; ++i)
      startThreadLocked(std::nullopt);  // one that fails is started when a connection comes
  }

  [[nodiscard]] std::uint16_t boundPort() const noexcept { return port_; }

  /// CONTRACT.md section 8: drain (idle connections close, requests in flight finish, the
  /// listener stays open for their nested calls), then end every wait and join every thread.
  /// False when requests in flight were cut off at `timeout`.
  bool stop(milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    signals_.drain();
    upstream_.closeIdle();
    while (requests_in_flight_ > 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(5));
    const bool drained = requests_in_flight_ == 0;
    signals_.stop();
    if (acceptor_thread_.joinable())
      acceptor_thread_.join();
    error_code ignored;
    acceptor_.close(ignored);
    std::map<std::thread::id, std::thread> connections;
    {
      const std::lock_guard lock(threads_mutex_);
      connections.swap(connection_threads_);
      waiting_.notify_all();  // the waiting threads see the stop and end
    }
    for (auto& [id, thread] : connections)
      thread.join();
    pending_.clear();
    upstream_.closeIdle();
    return drained;
  }

  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    sink(sink_context, "requests_served", requests_served_);
    sink(sink_context, "requests_in_flight", requests_in_flight_);
    sink(sink_context, "upstream_calls", upstream_calls_);
    sink(sink_context, "connections_open", connections_open_);
    sink(sink_context, "upstream_connections_open", upstream_.connectionsOpen());
    sink(sink_context, "accept_errors", accept_errors_);
  }

 private:
  /// The accepting thread, until the stop gives up: hands each connection to a waiting thread,
  /// or starts a new one. Between accepts it closes expired idle nested-call connections and
  /// joins ended connection threads.
  void acceptUntilStopped() {
    for (;;) {
      std::array<pollfd, 2> fds{
          {{acceptor_.native_handle(), POLLIN, 0}, {signals_.stopFd(), POLLIN, 0}}};
      ::poll(fds.data(), fds.size(), static_cast<int>(sweep_interval_.count()));
      if (fds[1].revents != 0)
        return;
      upstream_.sweep();
      joinEndedThreads();
      if (fds[0].revents == 0)
        continue;
      error_code error;
      tcp::socket socket = acceptor_.accept(error);
      if (error == asio::error::would_block || error == asio::error::try_again)
        continue;
      if (error) {
        // Out of descriptors or memory: wait (sdk::kAcceptBackoff) instead of spinning on the
        // connection that stays in the backlog; any other error is retried at once.
        ++accept_errors_;
        if (error == asio::error::no_descriptors || error == asio::error::no_memory ||
            error == asio::error::no_buffer_space || error.value() == ENFILE) {
          pollfd stop{signals_.stopFd(), POLLIN, 0};
          ::poll(&stop, 1, static_cast<int>(sdk::kAcceptBackoff.count()));
        }
        continue;
      }
      const std::lock_guard lock(threads_mutex_);
      if (pending_.size() < waiting_threads_) {
        pending_.push_back(std::move(socket));
        waiting_.notify_one();
      } else if (!startThreadLocked(std::move(socket))) {
        ++accept_errors_;  // no thread for it: the socket closes unanswered
      }
    }
  }

  /// Starts a connection thread that serves `socket` first, or first waits for a connection.
  /// False when the system has no thread to give.
  bool startThreadLocked(std::optional<tcp::socket> socket) {
    try {
      std::thread thread(
          [this, first = std::move(socket)]() mutable { connectionThread(std::move(first)); });
      connection_threads_.emplace(thread.get_id(), std::move(thread));
      return true;
    } catch (const std::system_error&) {
      return false;
    }
  }

  /// A connection thread: serves connections one at a time, each from accept to close. Between
  /// them it waits for the next while fewer than `threads` threads wait; otherwise it ends.
  void connectionThread(std::optional<tcp::socket> socket) noexcept {
    while (socket || (socket = nextConnection())) {
      try {
        serve(Stream(std::move(*socket), signals_));
      } catch (const std::exception& e) {
        sdk::Host(host_).log(BENCHD_LOG_ERROR, std::string("connection failed: ") + e.what());
      }
      socket.reset();
    }
    const std::lock_guard lock(threads_mutex_);
    ended_threads_.push_back(std::this_thread::get_id());
  }

  /// The next accepted connection, for a thread that may wait for one; nothing when enough
  /// threads wait already, or at the stop.
  std::optional<tcp::socket> nextConnection() {
    std::unique_lock lock(threads_mutex_);
    if (waiting_threads_ >= settings_.threads)
      return std::nullopt;
    ++waiting_threads_;
    waiting_.wait(lock, [this] { return !pending_.empty() || signals_.stopped(); });
    --waiting_threads_;
    if (pending_.empty())
      return std::nullopt;
    tcp::socket next = std::move(pending_.back());
    pending_.pop_back();
    return next;
  }

  void joinEndedThreads() {
    const std::lock_guard lock(threads_mutex_);
    for (const std::thread::id id : ended_threads_) {
      auto node = connection_threads_.extract(id);
      if (!node.empty())
        node.mapped().join();  // it has ended or is about to: it only returns
    }
    ended_threads_.clear();
  }

  /// One connection, start to end: read a request, answer it, until the client closes, the
  /// connection must close, or the drain begins.
  void serve(Stream stream) {
    const Counted open(connections_open_);
    // Capped: a request's unparsed bytes (a chunk-size line, trailers) beyond it get a 400.
    boost::beast::flat_buffer buffer(sdk::kMaxUnparsedRequestBytes);
    error_code ignored;
    stream.socket().set_option(tcp::no_delay(true), ignored);
    while (!signals_.draining()) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
      parser.body_limit(sdk::kMaxRequestBodyBytes);
      const error_code read_error = readRequest(stream, buffer, parser);
      // Socket errors, timeouts, the stop and a close between requests: nobody to answer.
      // Beast's parse errors (its http category) are the client's fault: they are answered.
      if (read_error &&
          (read_error.category() != kHttpErrors || read_error == http::error::end_of_stream))
        break;
      Counted in_flight(requests_in_flight_);
      std::optional<sdk::Reply> reply;
      bool keep_alive = false;
      if (read_error == http::error::body_limit) {
        reply = sdk::bodyTooLargeReply();
      } else if (read_error) {
        reply = sdk::malformedRequestReply(read_error.message());
      } else {
        reply = handle(parser.get(), stream);
        if (!reply)
          break;  // the client left while its request waited, or the stop gave up
        // message.keep_alive(): the first Connection field counts (CONTRACT.md section 7).
        keep_alive = parser.get().keep_alive() && !no_keep_alive_ && !signals_.draining();
      }
      error_code write_error;
      stream.expiresAfter(sdk::kIoTimeout);
      http::write(stream, response(*reply, keep_alive), write_error);
      ++requests_served_;
      in_flight.release();
      if (write_error)
        break;
      if (!keep_alive) {
        discardInput(stream);
        break;
      }
    }
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  /// Reads one request (sdk/request_deadline.hpp): its first byte within sdk::kIoTimeout (or
  /// until the drain begins), the header within the header deadline, the body within
  /// sdk::kIoTimeout, each a total.
  error_code readRequest(Stream& stream, boost::beast::flat_buffer& buffer,
                         http::request_parser<http::string_body>& parser) {
    error_code error;
    if (buffer.size() == 0) {
      stream.expiresAfter(sdk::kIoTimeout);
      stream.waitingForRequest(true);
      error = stream.wait(POLLIN);
      stream.waitingForRequest(false);
      if (error)
        return error;
    }
    stream.expiresAfter(header_deadline_);
    http::read_header(stream, buffer, parser, error);
    if (error)
      return error;
    stream.expiresAfter(sdk::kIoTimeout);
    http::read(stream, buffer, parser, error);
    return error;
  }

  /// The answer to a request read whole: an error answer, or the core's after the wait or
  /// the nested call (CONTRACT.md sections 4 and 6). Nothing when the client left meanwhile.
  std::optional<sdk::Reply> handle(const http::request<http::string_body>& message,
                                   Stream& client) {
    auto classified = sdk::classifyRequest(message.method_string(), message.target(), kName);
    if (auto* reply = std::get_if<sdk::Reply>(&classified))
      return std::move(*reply);
    const auto& request = std::get<sdk::ServiceRequest>(classified);
    if (request.delay_call_depth > 0) {
      ++upstream_calls_;
      const auto nested = upstream_.call(sdk::upstreamTarget(kName, request), request.delay_millis,
                                         client.socket().native_handle());
      if (nested.client_gone || signals_.stopped())
        return std::nullopt;
      if (nested.error)
        return sdk::errorReply(502, "nested call failed: " + nested.error.message());
      if (nested.status != 200)
        return sdk::errorReply(502, "nested call answered " + std::to_string(nested.status));
    } else if (request.delay_millis > 0 &&
               !client.sleepWatchingClient(milliseconds(request.delay_millis))) {
      return std::nullopt;
    }
    return sdk::Host(host_).answer(request, message.body());
  }

  /// CONTRACT.md section 5: HTTP/1.1, Content-Length, Content-Type on every answer with a body
  /// and every error, Allow on 405, Connection: close on the connection's last answer.
  static http::response<http::string_body> response(sdk::Reply& reply, bool keep_alive) {
    http::response<http::string_body> response{static_cast<http::status>(reply.status), 11};
    response.set(http::field::server, std::string("benchd ") + kName);
    if (!reply.body.empty() || reply.status != 200)
      response.set(http::field::content_type, reply.content_type);
    if (!reply.allow.empty())
      response.set(http::field::allow, reply.allow);
    response.keep_alive(keep_alive);
    response.body() = std::move(reply.body);
    response.prepare_payload();
    return response;
  }

  /// After an answer that ends the connection: stop sending, and read and drop what the client
  /// still sends for up to sdk::kDiscardTimeout, so the close cannot reset the answer away.
  static void discardInput(Stream& stream) {
    error_code error;
    stream.socket().shutdown(tcp::socket::shutdown_send, error);
    stream.expiresAfter(sdk::kDiscardTimeout);
    std::array<char, 4096> scratch{};
    while (!error)
      stream.read_some(asio::buffer(scratch), error);
  }

  const benchd_host_api* host_;
  const sdk::ServerSettings settings_;
  const bool no_keep_alive_;
  const milliseconds header_deadline_;
  const milliseconds sweep_interval_;
  Signals signals_;
  UpstreamClient upstream_;
  asio::io_context io_;  // never run: the sockets are only read and written in place
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::thread acceptor_thread_;
  std::mutex threads_mutex_;  // guards the four below
  std::map<std::thread::id, std::thread> connection_threads_;
  std::vector<std::thread::id> ended_threads_;  // returned, not joined yet
  std::vector<tcp::socket> pending_;            // accepted, handed to a waiting thread
  unsigned waiting_threads_ = 0;                // connection threads waiting for a connection
  std::condition_variable waiting_;             // a connection is pending, or the stop
  std::atomic<std::int64_t> requests_served_{0};
  std::atomic<std::int64_t> requests_in_flight_{0};
  std::atomic<std::int64_t> upstream_calls_{0};
  std::atomic<std::int64_t> connections_open_{0};
  std::atomic<std::int64_t> accept_errors_{0};
};

constexpr sdk::PluginFacts kFacts = {
    .name = kName,
    .version = "1.0.0",
    .description =
        "Template: one OS thread per open connection (--threads of them wait for "
        "connections from the start), blocking Boost.Beast HTTP on Boost.Asio sockets, "
        "a pooled blocking client for nested calls",
    .concurrency_model = BENCHD_MODEL_OS_THREADS,
    .io_stack = "Boost.Asio 1.81 + Beast, synchronous",
};

}  // namespace

// The one exported symbol (BENCHD_PLUGIN_ENTRY_SYMBOL); the adapter makes the descriptor.
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return sdk::PluginAdapter<Server>::describe(kFacts);
}
