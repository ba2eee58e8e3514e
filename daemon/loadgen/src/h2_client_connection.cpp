#include "h2_client_connection.hpp"

#include "virtual_user.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <nghttp2/nghttp2.h>
#include <string>
#include <unordered_map>

namespace benchd::loadgen {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

/// The flow-control windows the generator opens, per stream and per connection: as large as
/// HTTP/2 allows (2^31 - 1 would overflow nghttp2's arithmetic in places; h2load's -w 30 and
/// -W 30 give 2^30 - 1), so the generator never throttles a response.
constexpr std::int32_t kWindowBytes = (1 << 30) - 1;

measurement::ErrorClass connectErrorOf(const error_code& error) {
  if (error == asio::error::connection_refused)
    return measurement::ErrorClass::kConnectionRefused;
  if (error == asio::error::timed_out)
    return measurement::ErrorClass::kConnectTimeout;
  return measurement::ErrorClass::kOther;
}

}  // namespace

struct H2ClientConnection::Link {
  explicit Link(asio::io_context& io) : socket(io) {}
  ~Link() { nghttp2_session_del(session); }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  struct Stream {
    VirtualUser* user;
    const PreparedRequest* request;
    unsigned status = 0;  ///< the final response's :status once its header arrived
    std::size_t body_sent = 0;
  };

  asio::ip::tcp::socket socket;
  std::optional<asio::ssl::stream<asio::ip::tcp::socket&>> tls;
  nghttp2_session* session = nullptr;
  bool open = false;  ///< connected, handshaken, session made
  bool writing = false;
  bool going_away = false;  ///< the server sent GOAWAY: no new streams here
  std::string output;       ///< produced by the session, not yet written
  std::string sending;      ///< being written
  std::array<char, 16384> input{};
  std::unordered_map<std::int32_t, Stream> streams;
};

/// nghttp2's callbacks, on the connection's current link (they run only inside mem_recv and
/// mem_send of link_->session).
struct SessionCallbacks {
  static H2ClientConnection& of(void* self) { return *static_cast<H2ClientConnection*>(self); }

  static int onHeader(nghttp2_session* /*session*/, const nghttp2_frame* frame,
                      const std::uint8_t* name, std::size_t name_size, const std::uint8_t* value,
                      std::size_t value_size, std::uint8_t /*flags*/, void* self) {
    if (frame->hd.type != NGHTTP2_HEADERS || name_size != 7 || std::memcmp(name, ":status", 7) != 0)
      return 0;
    auto& streams = of(self).link_->streams;
    const auto found = streams.find(frame->hd.stream_id);
    if (found == streams.end())
      return 0;
    unsigned status = 0;
    const auto* text = reinterpret_cast<const char*>(value);
    std::from_chars(text, text + value_size, status);
    // An interim response (1xx) precedes the final one on the same stream.
    if (status >= 200)
      found->second.status = status;
    return 0;
  }

  static int onFrame(nghttp2_session* /*session*/, const nghttp2_frame* frame, void* self) {
    if (frame->hd.type == NGHTTP2_GOAWAY)
      of(self).link_->going_away = true;
    return 0;
  }

  static int onStreamClose(nghttp2_session* /*session*/, std::int32_t stream_id,
                           std::uint32_t error_code, void* self) {
    H2ClientConnection& connection = of(self);
    auto& streams = connection.link_->streams;
    const auto found = streams.find(stream_id);
    if (found == streams.end())
      return 0;
    const H2ClientConnection::Link::Stream stream = found->second;
    streams.erase(found);
    std::optional<measurement::ErrorClass> error;
    if (error_code == NGHTTP2_NO_ERROR && stream.status != 0) {
      error = measurement::errorClassOfStatus(stream.status);
    } else if (error_code == NGHTTP2_REFUSED_STREAM || error_code == NGHTTP2_NO_ERROR) {
      error = measurement::ErrorClass::kConnectionReset;  // refused, or closed unanswered
    } else {
      error = measurement::ErrorClass::kOther;  // reset by the server
    }
    connection.ended_.push_back({stream.user, error, true});
    return 0;
  }

  static ssize_t readBody(nghttp2_session* /*session*/, std::int32_t stream_id,
                          std::uint8_t* buffer, std::size_t size, std::uint32_t* flags,
                          nghttp2_data_source* /*source*/, void* self) {
    auto& streams = of(self).link_->streams;
    const auto found = streams.find(stream_id);
    if (found == streams.end())
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    H2ClientConnection::Link::Stream& stream = found->second;
    const std::string& body = stream.request->body;
    const std::size_t copied = std::min(size, body.size() - stream.body_sent);
    std::copy_n(body.data() + stream.body_sent, copied, buffer);
    stream.body_sent += copied;
    if (stream.body_sent == body.size())
      *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(copied);
  }

  /// Made once; nghttp2 copies them into every session.
  static const nghttp2_session_callbacks* get() {
    static const auto* callbacks = [] {
      nghttp2_session_callbacks* made = nullptr;
      if (nghttp2_session_callbacks_new(&made) != 0)
        throw std::bad_alloc();
      nghttp2_session_callbacks_set_on_header_callback(made, onHeader);
      nghttp2_session_callbacks_set_on_frame_recv_callback(made, onFrame);
      nghttp2_session_callbacks_set_on_stream_close_callback(made, onStreamClose);
      return made;
    }();
    return callbacks;
  }
};

H2ConnectionPool::H2ConnectionPool(LoopContext& loop, std::uint32_t connections)
    : streams_per_connection_(loop.http2 ? loop.streams_per_connection : 1U),
      slots_(connections * streams_per_connection_) {
  if (!loop.http2)
    return;
  connections_.reserve(connections);
  for (std::uint32_t i = 0; i < connections; ++i)
    connections_.push_back(std::make_unique<H2ClientConnection>(loop));
}

H2ClientConnection* H2ConnectionPool::forSlot(std::uint32_t slot) const noexcept {
  return connections_.empty() ? nullptr : connections_[slot / streams_per_connection_].get();
}

H2ClientConnection::H2ClientConnection(LoopContext& loop) : loop_(loop) {}

H2ClientConnection::~H2ClientConnection() = default;

void H2ClientConnection::start(VirtualUser& user, const PreparedRequest& request) {
  if (link_ && link_->open && !link_->going_away) {
    submit({&user, &request});
    pump();
    return;
  }
  queued_.push_back({&user, &request});
  if (!link_)
    connect();
}

void H2ClientConnection::cancel(VirtualUser& user) {
  const auto queued = std::find_if(queued_.begin(), queued_.end(), [&user](const Pending& pending) {
    return pending.user == &user;
  });
  if (queued != queued_.end()) {
    queued_.erase(queued);
    asio::post(loop_.io, [&user] { user.onStreamEnded(std::nullopt, false); });
    return;
  }
  if (!link_)
    return;
  for (const auto& [stream_id, stream] : link_->streams) {
    if (stream.user != &user)
      continue;
    nghttp2_submit_rst_stream(link_->session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
    // The stream closes when the RST_STREAM goes out, in a later turn: not inside the user's
    // call.
    asio::post(loop_.io, [this, link = link_] {
      if (link == link_)
        pump();
    });
    return;
  }
}

void H2ClientConnection::detach() {
  if (attached_ > 0)
    --attached_;
  if (attached_ > 0 || close_posted_)
    return;
  close_posted_ = true;
  asio::post(loop_.io, [this] { closeIfUnused(); });
}

void H2ClientConnection::closeIfUnused() {
  close_posted_ = false;
  if (attached_ > 0 || !link_ || !link_->streams.empty() || !queued_.empty())
    return;
  error_code ignored;
  link_->socket.close(ignored);
  link_.reset();
}

void H2ClientConnection::connect() {
  link_ = std::make_shared<Link>(loop_.io);
  link_->socket.async_connect(
      loop_.endpoint, [this, link = link_](const error_code& error) { onConnected(link, error); });
}

void H2ClientConnection::onConnected(const std::shared_ptr<Link>& link, const error_code& error) {
  if (link != link_)
    return;
  if (error) {
    fail(measurement::ErrorClass::kConnectionReset, connectErrorOf(error));
    return;
  }
  ++loop_.stats.counters.connects;
  error_code ignored;
  link->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (loop_.tls == nullptr) {
    openSession(link);
    return;
  }
  link->tls.emplace(link->socket, *loop_.tls);
  link->tls->async_handshake(
      asio::ssl::stream_base::client,
      [this, link](const error_code& handshake_error) { onHandshaken(link, handshake_error); });
}

void H2ClientConnection::onHandshaken(const std::shared_ptr<Link>& link, const error_code& error) {
  if (link != link_)
    return;
  const unsigned char* chosen = nullptr;
  unsigned int chosen_size = 0;
  if (!error)
    SSL_get0_alpn_selected(link->tls->native_handle(), &chosen, &chosen_size);
  // A server that did not choose h2 speaks HTTP/1.1 here: nothing this connection can send.
  if (error || chosen_size != 2 || std::memcmp(chosen, "h2", 2) != 0) {
    fail(measurement::ErrorClass::kConnectionReset, measurement::ErrorClass::kOther);
    return;
  }
  openSession(link);
}

void H2ClientConnection::openSession(const std::shared_ptr<Link>& link) {
  if (nghttp2_session_client_new(&link->session, SessionCallbacks::get(), this) != 0)
    throw std::bad_alloc();
  const std::array<nghttp2_settings_entry, 2> settings = {{
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(kWindowBytes)},
  }};
  nghttp2_submit_settings(link->session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  nghttp2_session_set_local_window_size(link->session, NGHTTP2_FLAG_NONE, 0, kWindowBytes);
  link->open = true;
  std::vector<Pending> queued;
  queued.swap(queued_);
  for (const Pending& pending : queued)
    submit(pending);
  read();
  pump();
}

void H2ClientConnection::submit(const Pending& pending) {
  const auto& fields = pending.request->h2_fields;
  std::array<nghttp2_nv, 32> nv{};
  const std::size_t count = std::min(fields.size(), nv.size());
  for (std::size_t i = 0; i < count; ++i) {
    const auto& [name, value] = fields[i];
    // nghttp2 copies names and values on submit.
    nv[i] = {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
             reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
             value.size(), NGHTTP2_NV_FLAG_NONE};
  }
  nghttp2_data_provider body{};
  body.read_callback = SessionCallbacks::readBody;
  const std::int32_t stream_id =
      nghttp2_submit_request(link_->session, nullptr, nv.data(), count,
                             pending.request->body.empty() ? nullptr : &body, nullptr);
  if (stream_id < 0) {
    // No stream id left, or the session is going away: this connection takes no new stream, and
    // the request waits for the next one (see pump()).
    link_->going_away = true;
    queued_.push_back(pending);
    return;
  }
  link_->streams.emplace(stream_id, Link::Stream{pending.user, pending.request});
  pending.user->onStreamSubmitted();
}

void H2ClientConnection::pump() {
  if (pumping_ || !link_ || !link_->open)
    return;
  pumping_ = true;
  const std::shared_ptr<Link> link = link_;
  for (;;) {
    for (;;) {
      const std::uint8_t* data = nullptr;
      const ssize_t size = nghttp2_session_mem_send(link->session, &data);
      if (size < 0) {
        pumping_ = false;
        fail(measurement::ErrorClass::kOther, measurement::ErrorClass::kOther);
        return;
      }
      if (size == 0)
        break;
      link->output.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
    }
    if (ended_.empty())
      break;
    std::vector<Ended> ended;
    ended.swap(ended_);
    for (const Ended& end : ended)
      end.user->onStreamEnded(end.error, end.sent);
    if (link != link_)
      break;  // a user's next request failed the connection
  }
  pumping_ = false;
  if (link != link_)
    return;
  write();
  // Going away (the server's GOAWAY, or no stream id left) with nothing left in flight, or a
  // session with nothing more to do: this connection is done, and requests queued behind it
  // go to a new one.
  const bool done = nghttp2_session_want_read(link->session) == 0 &&
                    nghttp2_session_want_write(link->session) == 0;
  if ((done || (link->going_away && link->streams.empty())) && !link->writing)
    fail(measurement::ErrorClass::kConnectionReset, measurement::ErrorClass::kConnectionReset);
}

void H2ClientConnection::write() {
  const std::shared_ptr<Link> link = link_;
  if (link->writing || link->output.empty())
    return;
  link->writing = true;
  link->sending.clear();
  link->sending.swap(link->output);
  auto on_written = [this, link](const error_code& error, std::size_t bytes) {
    loop_.stats.counters.bytes_sent += bytes;
    if (link != link_)
      return;
    link->writing = false;
    if (error) {
      fail(measurement::ErrorClass::kConnectionReset, measurement::ErrorClass::kConnectionReset);
      return;
    }
    pump();
  };
  if (link->tls) {
    asio::async_write(*link->tls, asio::buffer(link->sending), std::move(on_written));
  } else {
    asio::async_write(link->socket, asio::buffer(link->sending), std::move(on_written));
  }
}

void H2ClientConnection::read() {
  const std::shared_ptr<Link> link = link_;
  auto on_read = [this, link](const error_code& error, std::size_t bytes) {
    loop_.stats.counters.bytes_received += bytes;
    if (link != link_)
      return;
    if (error) {
      fail(measurement::ErrorClass::kConnectionReset, measurement::ErrorClass::kConnectionReset);
      return;
    }
    const ssize_t taken = nghttp2_session_mem_recv(
        link->session, reinterpret_cast<const std::uint8_t*>(link->input.data()), bytes);
    if (taken < 0) {
      fail(measurement::ErrorClass::kOther, measurement::ErrorClass::kOther);
      return;
    }
    pump();
    if (link == link_)
      read();
  };
  if (link->tls) {
    link->tls->async_read_some(asio::buffer(link->input), std::move(on_read));
  } else {
    link->socket.async_read_some(asio::buffer(link->input), std::move(on_read));
  }
}

void H2ClientConnection::fail(measurement::ErrorClass stream_error,
                              measurement::ErrorClass connect_error) {
  const std::shared_ptr<Link> link = std::move(link_);
  link_.reset();
  error_code ignored;
  link->socket.close(ignored);
  std::vector<Ended> ended;
  ended.swap(ended_);
  for (const auto& [stream_id, stream] : link->streams)
    ended.push_back({stream.user, stream_error, true});
  link->streams.clear();
  std::vector<Pending> retry;
  if (link->open) {
    retry.swap(queued_);  // queued behind a GOAWAY: never sent, so a new connection takes them
  } else {
    for (const Pending& pending : queued_)
      ended.push_back({pending.user, connect_error, false});
    queued_.clear();
  }
  for (const Ended& end : ended)
    end.user->onStreamEnded(end.error, end.sent);
  if (retry.empty())
    return;
  queued_.insert(queued_.end(), retry.begin(), retry.end());
  if (!link_)
    connect();
}

}  // namespace benchd::loadgen
