#include "blocking_stream.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <sys/socket.h>

namespace benchd::threads_asio {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// POLLNVAL too: a descriptor closed under the wait must end it, not make poll() return at once
// forever.
constexpr short kGone = POLLRDHUP | POLLHUP | POLLERR | POLLNVAL;

/// Milliseconds from now to `deadline` for poll(): -1 for none, at most INT_MAX.
int pollTimeout(BlockingStream::Clock::time_point deadline) {
  if (deadline == BlockingStream::Clock::time_point::max())
    return -1;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - BlockingStream::Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, INT_MAX));
}

}  // namespace

BlockingStream::BlockingStream(asio::ip::tcp::socket socket, const ServerSignals& signals)
    : socket_(std::move(socket)), signals_(signals) {
  if (socket_.is_open()) {
    error_code ignored;
    socket_.non_blocking(true, ignored);
  }
}

void BlockingStream::wakeReadsOn(std::span<const int> fds) noexcept {
  wake_fds_.fill(-1);
  std::copy_n(fds.begin(), std::min(fds.size(), wake_fds_.size()), wake_fds_.begin());
}

error_code BlockingStream::wait(short events) {
  for (;;) {
    std::array<pollfd, 4 + kMaxWakeFds> fds{};
    fds[0] = {socket_.native_handle(), events, 0};
    fds[1] = {signals_.stopFd(), POLLIN, 0};
    nfds_t count = 2;
    const nfds_t drain_at = waiting_for_request_ ? count++ : 0;
    if (drain_at != 0)
      fds[drain_at] = {signals_.drainFd(), POLLIN, 0};
    const nfds_t client_at = watched_client_fd_ >= 0 ? count++ : 0;
    if (client_at != 0)
      fds[client_at] = {watched_client_fd_, POLLRDHUP, 0};
    const nfds_t wake_at = count;
    if (events == kReadable) {
      for (const int fd : wake_fds_)
        fds[count++] = {fd, POLLIN, 0};
    }
    const int timeout = pollTimeout(deadline_);
    const int ready = ::poll(fds.data(), count, timeout);
    if (ready < 0) {
      if (errno == EINTR)
        continue;
      return {errno, boost::system::system_category()};
    }
    if (fds[1].revents != 0 || (drain_at != 0 && fds[drain_at].revents != 0))
      return asio::error::operation_aborted;
    if (client_at != 0 && (fds[client_at].revents & kGone) != 0) {
      client_gone_ = true;
      return asio::error::operation_aborted;
    }
    for (nfds_t i = wake_at; i < count; ++i) {
      if (fds[i].revents != 0)
        return asio::error::interrupted;
    }
    if (fds[0].revents != 0)
      return {};  // ready, or an error the next call on the socket reports
    if (ready == 0 && timeout >= 0 && Clock::now() >= deadline_)
      return boost::beast::error::timeout;
  }
}

error_code BlockingStream::waitReadable() {
  return wait(kReadable);
}

BlockingStream::WaitEnd BlockingStream::sleepWatching(int client_fd, const ServerSignals& signals,
                                                      std::chrono::milliseconds delay) {
  const auto until = Clock::now() + delay;
  for (;;) {
    std::array<pollfd, 2> fds{};
    fds[0] = {client_fd, POLLRDHUP, 0};
    fds[1] = {signals.stopFd(), POLLIN, 0};
    const int ready = ::poll(fds.data(), fds.size(), pollTimeout(until));
    if (ready < 0 && errno != EINTR)
      return WaitEnd::kStopped;  // cannot wait: give the request up as a stop would
    if (ready > 0 && fds[1].revents != 0)
      return WaitEnd::kStopped;
    if (ready > 0 && (fds[0].revents & kGone) != 0)
      return WaitEnd::kClientGone;
    if (Clock::now() >= until)
      return WaitEnd::kElapsed;
  }
}

void BlockingStream::connect(const asio::ip::tcp::endpoint& endpoint, error_code& error) {
  socket_.open(endpoint.protocol(), error);
  if (!error)
    socket_.non_blocking(true, error);
  if (error)
    return;
  // ::connect, not socket_.connect(): Asio's synchronous connect waits without a deadline.
  if (::connect(socket_.native_handle(), endpoint.data(),
                static_cast<socklen_t>(endpoint.size())) == 0)
    return;
  if (errno != EINPROGRESS) {
    error = error_code(errno, boost::system::system_category());
    return;
  }
  error = wait(kWritable);
  if (error)
    return;
  int result = 0;
  socklen_t length = sizeof result;
  if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_ERROR, &result, &length) != 0)
    result = errno;
  error = result == 0 ? error_code{} : error_code(result, boost::system::system_category());
}

bool BlockingStream::idleUsable() noexcept {
  if (!socket_.is_open())
    return false;
  pollfd fd{socket_.native_handle(), POLLIN | POLLRDHUP, 0};
  // Readable, hung up or in error: an idle connection expects nothing from its peer, so any of
  // these means it was closed (or is out of step) and a request sent on it would fail.
  return ::poll(&fd, 1, 0) == 0;
}

void BlockingStream::close() noexcept {
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace benchd::threads_asio
