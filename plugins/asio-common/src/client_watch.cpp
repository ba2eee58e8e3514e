#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/tls_contexts.hpp>

#include <algorithm>
#include <cerrno>
#include <sys/socket.h>

namespace benchd::asio_common {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

/// Shared with the pending wait's handler, which may run after the watch is gone: `active`
/// tells it whether anyone still listens.
struct ClientWatch::State {
  tcp::socket* socket;  ///< null in the watch of an HTTP/2 stream (StreamDeparture)
  TlsStream* tls;       ///< null on a plain connection
  boost::beast::flat_buffer* buffer;
  bool active = true;
  bool gone = false;
  std::function<void()> cancel;
};

namespace {

/// The most plaintext one TLS record carries (RFC 8446 section 5.1).
constexpr std::size_t kTlsRecordBytes = 16384;

void markGone(const std::shared_ptr<ClientWatch::State>& state) {
  state->gone = true;
  state->active = false;
  if (state->cancel) {
    auto cancel = std::move(state->cancel);
    state->cancel = nullptr;
    cancel();
  }
}

/// Decrypts what the client has sent without blocking; false when it is gone (its close_notify,
/// a bare end of stream, a reset, a broken record).
bool readAheadTls(ClientWatch::State& state) {
  for (;;) {
    const std::size_t size = state.buffer->size();
    // Bounded by the watch's read-ahead, the buffer's own cap, and one TLS record's plaintext.
    const std::size_t room = std::min({kMaxReadAhead > size ? kMaxReadAhead - size : 0,
                                       state.buffer->max_size() - size, kTlsRecordBytes});
    if (room == 0)
      return true;
    error_code error;
    // With the socket non-blocking, a read that needs more bytes than have arrived stops with
    // would_block and keeps the partial record inside TLS for the next read.
    const std::size_t bytes = state.tls->read_some(state.buffer->prepare(room), error);
    state.buffer->commit(bytes);
    if (error == asio::error::would_block || error == asio::error::try_again)
      return true;
    if (error)
      return false;
  }
}

/// Reads what the client has sent without blocking; false when it is gone.
bool readAhead(ClientWatch::State& state) {
  if (state.tls != nullptr)
    return readAheadTls(state);
  for (;;) {
    const std::size_t room =
        kMaxReadAhead > state.buffer->size() ? kMaxReadAhead - state.buffer->size() : 0;
    if (room == 0)
      return true;
    char probe = 0;
    // A peek tells end of stream (0) from data (1) and from a readiness that went away.
    const ssize_t peeked =
        ::recv(state.socket->native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (peeked == 0)
      return false;
    error_code error;
    const std::size_t available = state.socket->available(error);
    if (error)
      return false;
    const std::size_t bytes = state.socket->read_some(
        state.buffer->prepare(std::max<std::size_t>(1, std::min(available, room))), error);
    if (error)
      return false;
    state.buffer->commit(bytes);
  }
}

void watch(const std::shared_ptr<ClientWatch::State>& state) {
  // A readiness wait rather than a read: nothing is taken from the socket until the handler
  // runs, so a watch ended meanwhile cannot lose bytes of the next request.
  state->socket->async_wait(tcp::socket::wait_read, [state](const error_code& error) {
    if (!state->active)
      return;
    if (error || !readAhead(*state)) {
      markGone(state);
      return;
    }
    if (state->buffer->size() < kMaxReadAhead)
      watch(state);
  });
}

}  // namespace

ClientWatch::ClientWatch(boost::beast::tcp_stream& stream, boost::beast::flat_buffer& buffer)
    : ClientWatch(InboundStream{&stream, nullptr}, buffer) {}

ClientWatch::ClientWatch(TlsStream& stream, boost::beast::flat_buffer& buffer)
    : ClientWatch(InboundStream{&boost::beast::get_lowest_layer(stream), &stream}, buffer) {}

ClientWatch::ClientWatch(InboundStream stream, boost::beast::flat_buffer& buffer) {
  if (stream.h2_stream != nullptr) {
    // The connection's reader watches the socket for all its streams and tells this one.
    state_ = std::make_shared<State>(State{nullptr, nullptr, &buffer, true, false, {}});
    if (stream.h2_stream->departed()) {
      markGone(state_);
    } else {
      stream.h2_stream->watch_ = state_;
    }
    return;
  }
  state_ =
      std::make_shared<State>(State{&stream.tcp->socket(), stream.tls, &buffer, true, false, {}});
  if (stream.tls != nullptr) {
    error_code error;
    state_->socket->non_blocking(true, error);
    // Bytes TLS has already decrypted wait in the stream, not on the socket: take them first.
    if (error || !readAhead(*state_)) {
      markGone(state_);
      return;
    }
  }
  watch(state_);
}

ClientWatch::~ClientWatch() {
  if (!state_->active)
    return;
  state_->active = false;
  state_->cancel = nullptr;
  if (state_->socket == nullptr)
    return;  // an HTTP/2 stream's watch waits on nothing
  error_code ignored;
  state_->socket->cancel(ignored);
}

bool ClientWatch::clientGone() const noexcept {
  return state_->gone;
}

ClientWatch::Interruption ClientWatch::interruptWith(std::function<void()> cancel) {
  if (state_->gone) {
    cancel();
  } else {
    state_->cancel = std::move(cancel);
  }
  return Interruption(state_);
}

void StreamDeparture::depart() {
  departed_ = true;
  if (const std::shared_ptr<ClientWatch::State> state = watch_.lock(); state && state->active)
    markGone(state);
}

ClientWatch::Interruption::~Interruption() {
  if (state_)
    state_->cancel = nullptr;
}

}  // namespace benchd::asio_common
