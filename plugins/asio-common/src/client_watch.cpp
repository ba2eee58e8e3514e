#include <benchd/asio_common/client_watch.hpp>

#include <cerrno>
#include <sys/socket.h>

namespace benchd::asio_common {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

/// Shared with the pending wait's handler, which may run after the watch is gone: `active`
/// tells it whether anyone still listens.
struct ClientWatch::State {
  tcp::socket* socket;
  boost::beast::flat_buffer* buffer;
  bool active = true;
  bool gone = false;
  std::function<void()> cancel;
};

namespace {

void markGone(const std::shared_ptr<ClientWatch::State>& state) {
  state->gone = true;
  state->active = false;
  if (state->cancel) {
    auto cancel = std::move(state->cancel);
    state->cancel = nullptr;
    cancel();
  }
}

/// Reads what the client has sent without blocking; false when it is gone.
bool readAhead(ClientWatch::State& state) {
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
    : state_(std::make_shared<State>(State{&stream.socket(), &buffer, true, false, {}})) {
  watch(state_);
}

ClientWatch::~ClientWatch() {
  if (!state_->active)
    return;
  state_->active = false;
  state_->cancel = nullptr;
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

ClientWatch::Interruption::~Interruption() {
  if (state_)
    state_->cancel = nullptr;
}

}  // namespace benchd::asio_common
