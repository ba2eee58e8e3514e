#include "client_tls_context.hpp"

#include <benchd/conformance/http2_client.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <nghttp2/nghttp2.h>
#include <stdexcept>
#include <vector>

namespace benchd::conformance {

namespace asio = boost::asio;
namespace beast = boost::beast;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

std::string Http2Response::header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

/// The window the client opens for the connection and every stream, as h2load does: the
/// server is never held back by the client's flow control.
constexpr std::int32_t kWideWindow = (1 << 30) - 1;

/// One stream the client started: what it sends, and what came back.
struct ClientStream {
  std::string body;  ///< the request body, sent by the data provider from `sent` on
  std::size_t sent = 0;
  Clock::time_point started;
  Http2Response response;
  bool ended = false;
};

}  // namespace

/// The connection and its nghttp2 client session, driven one blocking step at a time from the
/// calling thread. A step that times out closes the connection (beast::tcp_stream's expiry),
/// so a timeout ends the connection's use.
struct Http2Connection::Session {
  Session(std::uint16_t port_number, std::chrono::milliseconds limit)
      : port(port_number), stream(io), timeout(limit) {}
  ~Session() {
    if (session != nullptr)
      nghttp2_session_del(session);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs the io_context until `done`.
  void runUntilDone(const bool& done) {
    io.restart();
    while (!done && io.run_one() > 0) {
    }
  }

  template <class Operation>
  void start(Operation operation) {
    if (tls)
      operation(*tls);
    else
      operation(stream);
  }

  void connect(const std::optional<ClientTls>& client_tls);
  void openSession();
  /// Writes everything the session has to send.
  void flush();
  /// Reads once (at most until `deadline`) and feeds the session; false when nothing came
  /// before the deadline. Marks `closed` when the server ended the connection.
  bool readOnce(Clock::time_point deadline);
  /// Flushes and reads until `reached()`, failing the operation with "no <what> within N ms"
  /// at `deadline`, or with "the server ended the connection before <what>".
  void runUntil(const std::function<bool()>& reached, Clock::time_point deadline,
                const std::string& what);

  [[nodiscard]] std::string waited() const { return std::to_string(timeout.count()) + " ms"; }

  static int onFrameReceived(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int onHeader(nghttp2_session* session, const nghttp2_frame* frame,
                      const std::uint8_t* name, std::size_t name_length, const std::uint8_t* value,
                      std::size_t value_length, std::uint8_t flags, void* user_data);
  static int onDataChunk(nghttp2_session* session, std::uint8_t flags, std::int32_t stream_id,
                         const std::uint8_t* data, std::size_t length, void* user_data);
  static int onStreamClose(nghttp2_session* session, std::int32_t stream_id,
                           std::uint32_t error_code, void* user_data);
  static ssize_t readBody(nghttp2_session* session, std::int32_t stream_id, std::uint8_t* buffer,
                          std::size_t length, std::uint32_t* data_flags,
                          nghttp2_data_source* source, void* user_data);

  std::uint16_t port;
  asio::io_context io;
  beast::tcp_stream stream;
  std::optional<asio::ssl::context> tls_context;
  std::optional<asio::ssl::stream<beast::tcp_stream&>> tls;
  std::chrono::milliseconds timeout;
  nghttp2_session* session = nullptr;
  std::array<char, 16384> input{};
  std::map<std::int32_t, ClientStream> streams;  ///< node-stable: the data provider points in
  bool settings_received = false;
  std::optional<std::uint32_t> max_concurrent_streams;
  std::optional<std::uint32_t> goaway_code;
  bool closed = false;
};

void Http2Connection::Session::connect(const std::optional<ClientTls>& client_tls) {
  bool done = false;
  error_code result;
  stream.expires_after(timeout);
  stream.async_connect({asio::ip::address_v4::loopback(), port}, [&](error_code error) {
    result = error;
    done = true;
  });
  runUntilDone(done);
  if (result)
    throw std::runtime_error("connect to port " + std::to_string(port) + ": " + result.message());
  if (!client_tls)
    return;
  ClientTls offer = *client_tls;
  offer.alpn = {"h2"};
  tls_context.emplace(makeClientContext(offer));
  tls.emplace(stream, *tls_context);
  tls->set_verify_callback(asio::ssl::host_name_verification("127.0.0.1"));
  done = false;
  stream.expires_after(timeout);
  tls->async_handshake(asio::ssl::stream_base::client, [&](error_code error) {
    result = error;
    done = true;
  });
  runUntilDone(done);
  if (result) {
    throw std::runtime_error("TLS handshake with port " + std::to_string(port) + ": " +
                             result.message());
  }
  const std::string chosen = alpnSelected(tls->native_handle());
  if (chosen != "h2") {
    throw std::runtime_error("offered only h2 in ALPN, but the server chose " +
                             (chosen.empty() ? std::string("none") : "'" + chosen + "'"));
  }
}

void Http2Connection::Session::openSession() {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0)
    throw std::runtime_error("nghttp2_session_callbacks_new failed");
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Session::onFrameReceived);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Session::onHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Session::onDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Session::onStreamClose);
  const int made = nghttp2_session_client_new(&session, callbacks, this);
  nghttp2_session_callbacks_del(callbacks);
  if (made != 0)
    throw std::runtime_error(std::string("nghttp2_session_client_new: ") + nghttp2_strerror(made));
  const std::array<nghttp2_settings_entry, 2> settings = {
      {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0}, {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kWideWindow}}};
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kWideWindow);
  runUntil([this] { return settings_received; }, Clock::now() + timeout,
           "SETTINGS from the server");
}

void Http2Connection::Session::flush() {
  std::string output;
  for (;;) {
    const std::uint8_t* chunk = nullptr;
    const ssize_t length = nghttp2_session_mem_send(session, &chunk);
    if (length < 0) {
      throw std::runtime_error(std::string("nghttp2_session_mem_send: ") +
                               nghttp2_strerror(static_cast<int>(length)));
    }
    if (length == 0)
      break;
    output.append(reinterpret_cast<const char*>(chunk), static_cast<std::size_t>(length));
  }
  if (output.empty() || closed)
    return;
  bool done = false;
  error_code result;
  stream.expires_after(timeout);
  start([&](auto& next) {
    asio::async_write(next, asio::buffer(output), [&](error_code error, std::size_t) {
      result = error;
      done = true;
    });
  });
  runUntilDone(done);
  if (result == asio::error::broken_pipe || result == asio::error::connection_reset) {
    closed = true;
    return;
  }
  if (result)
    throw std::runtime_error("write to port " + std::to_string(port) + ": " + result.message());
}

bool Http2Connection::Session::readOnce(Clock::time_point deadline) {
  if (closed)
    return false;
  bool done = false;
  error_code result;
  std::size_t received = 0;
  stream.expires_at(deadline);
  start([&](auto& next) {
    next.async_read_some(asio::buffer(input), [&](error_code error, std::size_t length) {
      result = error;
      received = length;
      done = true;
    });
  });
  runUntilDone(done);
  if (received > 0) {
    const ssize_t fed = nghttp2_session_mem_recv(
        session, reinterpret_cast<const std::uint8_t*>(input.data()), received);
    if (fed < 0) {
      throw std::runtime_error(std::string("the server's bytes broke the HTTP/2 session: ") +
                               nghttp2_strerror(static_cast<int>(fed)));
    }
  }
  if (result == beast::error::timeout)
    return received > 0;
  if (result == asio::error::eof || result == asio::error::connection_reset ||
      result == asio::ssl::error::stream_truncated) {
    closed = true;
    return received > 0;
  }
  if (result)
    throw std::runtime_error("read from port " + std::to_string(port) + ": " + result.message());
  return true;
}

void Http2Connection::Session::runUntil(const std::function<bool()>& reached,
                                        Clock::time_point deadline, const std::string& what) {
  while (!reached()) {
    flush();
    if (reached())
      return;
    if (closed)
      throw std::runtime_error("the server ended the connection before " + what);
    if (Clock::now() >= deadline || !readOnce(deadline)) {
      if (reached())
        return;
      if (closed)
        throw std::runtime_error("the server ended the connection before " + what);
      throw std::runtime_error("no " + what + " within " + waited());
    }
  }
}

int Http2Connection::Session::onFrameReceived(nghttp2_session* /*session*/,
                                              const nghttp2_frame* frame, void* user_data) {
  auto& self = *static_cast<Session*>(user_data);
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
      if ((frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) {
        self.settings_received = true;
        for (std::size_t i = 0; i < frame->settings.niv; ++i) {
          if (frame->settings.iv[i].settings_id == NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            self.max_concurrent_streams = frame->settings.iv[i].value;
        }
      }
      break;
    case NGHTTP2_GOAWAY:
      self.goaway_code = frame->goaway.error_code;
      break;
    case NGHTTP2_RST_STREAM:
      if (const auto it = self.streams.find(frame->hd.stream_id); it != self.streams.end()) {
        it->second.response.reset = true;
        it->second.response.reset_code = frame->rst_stream.error_code;
      }
      break;
    default:
      break;
  }
  return 0;
}

int Http2Connection::Session::onHeader(nghttp2_session* /*session*/, const nghttp2_frame* frame,
                                       const std::uint8_t* name, std::size_t name_length,
                                       const std::uint8_t* value, std::size_t value_length,
                                       std::uint8_t /*flags*/, void* user_data) {
  auto& self = *static_cast<Session*>(user_data);
  const auto it = self.streams.find(frame->hd.stream_id);
  if (it == self.streams.end())
    return 0;
  const std::string field(reinterpret_cast<const char*>(name), name_length);
  const std::string text(reinterpret_cast<const char*>(value), value_length);
  if (field == ":status") {
    it->second.response.status = static_cast<unsigned>(std::stoul(text));
  } else {
    it->second.response.headers[field] = text;
  }
  return 0;
}

int Http2Connection::Session::onDataChunk(nghttp2_session* /*session*/, std::uint8_t /*flags*/,
                                          std::int32_t stream_id, const std::uint8_t* data,
                                          std::size_t length, void* user_data) {
  auto& self = *static_cast<Session*>(user_data);
  if (const auto it = self.streams.find(stream_id); it != self.streams.end())
    it->second.response.body.append(reinterpret_cast<const char*>(data), length);
  return 0;
}

int Http2Connection::Session::onStreamClose(nghttp2_session* /*session*/, std::int32_t stream_id,
                                            std::uint32_t /*error_code*/, void* user_data) {
  auto& self = *static_cast<Session*>(user_data);
  if (const auto it = self.streams.find(stream_id); it != self.streams.end()) {
    it->second.ended = true;
    it->second.response.elapsed = Clock::now() - it->second.started;
  }
  return 0;
}

ssize_t Http2Connection::Session::readBody(nghttp2_session* /*session*/, std::int32_t /*stream_id*/,
                                           std::uint8_t* buffer, std::size_t length,
                                           std::uint32_t* data_flags, nghttp2_data_source* source,
                                           void* /*user_data*/) {
  auto& client_stream = *static_cast<ClientStream*>(source->ptr);
  const std::size_t count = std::min(length, client_stream.body.size() - client_stream.sent);
  std::copy_n(client_stream.body.data() + client_stream.sent, count, buffer);
  client_stream.sent += count;
  if (client_stream.sent == client_stream.body.size())
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(count);
}

Http2Connection::Http2Connection(std::uint16_t port, const std::optional<ClientTls>& tls,
                                 std::chrono::milliseconds timeout)
    : session_(std::make_unique<Session>(port, timeout)) {
  session_->connect(tls);
  session_->openSession();
}

Http2Connection::~Http2Connection() = default;

std::int32_t Http2Connection::submit(const std::string& method, const std::string& target,
                                     const std::string& body,
                                     const std::map<std::string, std::string>& headers) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {":method", method},
      {":scheme", session_->tls ? "https" : "http"},
      {":authority", "127.0.0.1:" + std::to_string(session_->port)},
      {":path", target}};
  if (!body.empty())
    fields.emplace_back("content-type", "application/json");
  for (const auto& [name, value] : headers)
    fields.emplace_back(name, value);
  std::vector<nghttp2_nv> nva;
  nva.reserve(fields.size());
  for (auto& [name, value] : fields) {
    // nghttp2 copies names and values (no NO_COPY flag), so `fields` may go after the call.
    nva.push_back({reinterpret_cast<std::uint8_t*>(name.data()),
                   reinterpret_cast<std::uint8_t*>(value.data()), name.size(), value.size(),
                   NGHTTP2_NV_FLAG_NONE});
  }
  // The stream's record exists before nghttp2 knows its id, so the data provider can point
  // into it; it moves under the id the session gives.
  ClientStream pending;
  pending.body = body;
  pending.started = Clock::now();
  auto& streams = session_->streams;
  auto placeholder = streams.emplace(0, std::move(pending)).first;
  nghttp2_data_provider provider{};
  provider.source.ptr = &placeholder->second;
  provider.read_callback = &Session::readBody;
  const std::int32_t id = nghttp2_submit_request(session_->session, nullptr, nva.data(), nva.size(),
                                                 body.empty() ? nullptr : &provider, nullptr);
  if (id < 0) {
    streams.erase(placeholder);
    throw std::runtime_error("nghttp2_submit_request " + method + " " + target + ": " +
                             nghttp2_strerror(id));
  }
  // std::map's node handle keeps the record's address, which the provider holds.
  auto node = streams.extract(placeholder);
  node.key() = id;
  streams.insert(std::move(node));
  session_->flush();
  return id;
}

Http2Response Http2Connection::await(std::int32_t stream) {
  const auto it = session_->streams.find(stream);
  if (it == session_->streams.end())
    throw std::logic_error("await: stream " + std::to_string(stream) + " was not submitted");
  session_->runUntil([&] { return it->second.ended; }, Clock::now() + session_->timeout,
                     "end of stream " + std::to_string(stream));
  Http2Response response = std::move(it->second.response);
  session_->streams.erase(it);
  return response;
}

Http2Response Http2Connection::request(const std::string& method, const std::string& target,
                                       const std::string& body,
                                       const std::map<std::string, std::string>& headers) {
  return await(submit(method, target, body, headers));
}

void Http2Connection::reset(std::int32_t stream) {
  nghttp2_submit_rst_stream(session_->session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
  session_->flush();
}

void Http2Connection::sendRaw(std::string_view bytes) {
  bool done = false;
  error_code result;
  session_->stream.expires_after(session_->timeout);
  session_->start([&](auto& next) {
    asio::async_write(next, asio::buffer(bytes.data(), bytes.size()),
                      [&](error_code error, std::size_t) {
                        result = error;
                        done = true;
                      });
  });
  session_->runUntilDone(done);
  if (result)
    throw std::runtime_error("raw write: " + result.message());
}

std::optional<std::uint32_t> Http2Connection::maxConcurrentStreams() const {
  return session_->max_concurrent_streams;
}

std::optional<std::uint32_t> Http2Connection::awaitGoAway(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  while (!session_->goaway_code && !session_->closed && Clock::now() < deadline) {
    session_->flush();
    if (!session_->readOnce(deadline) && !session_->closed)
      break;
  }
  return session_->goaway_code;
}

bool Http2Connection::closedByServer(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  while (!session_->closed && Clock::now() < deadline) {
    if (!session_->readOnce(deadline) && !session_->closed)
      break;
  }
  return session_->closed;
}

}  // namespace benchd::conformance
