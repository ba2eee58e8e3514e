#include "connection_acceptor.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/eventfd.h>
#include <sys/socket.h>

namespace benchd::libmicrohttpd {

namespace {

int makeEventFd() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0)
    throw sdk::PluginError(BENCHD_ERR_IO, std::string("eventfd: ") + std::strerror(errno));
  return fd;
}

void signal(int fd) noexcept {
  const std::uint64_t one = 1;
  (void)!::write(fd, &one, sizeof(one));
}

void drainEvents(int fd) noexcept {
  std::uint64_t count = 0;
  (void)!::read(fd, &count, sizeof(count));
}

bool outOfResources(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

}  // namespace

ConnectionAcceptor::ConnectionAcceptor(int listen_fd, MHD_Daemon* daemon, ServerState& state,
                                       std::int64_t max_connections)
    : listen_fd_(listen_fd),
      daemon_(daemon),
      state_(state),
      max_connections_(max_connections),
      stop_fd_(makeEventFd()),
      freed_fd_(makeEventFd()) {}

ConnectionAcceptor::~ConnectionAcceptor() {
  stop();
  ::close(stop_fd_);
  ::close(freed_fd_);
}

void ConnectionAcceptor::start() {
  thread_ = std::thread([this] { run(); });
}

void ConnectionAcceptor::stop() {
  if (!thread_.joinable())
    return;
  signal(stop_fd_);
  thread_.join();
}

void ConnectionAcceptor::connectionClosed() noexcept {
  admitted_.fetch_sub(1, std::memory_order_relaxed);
  signal(freed_fd_);
}

bool ConnectionAcceptor::waitForStopOrFreedPlace(int millis) {
  pollfd watched[2] = {{stop_fd_, POLLIN, 0}, {freed_fd_, POLLIN, 0}};
  const int ready = ::poll(watched, 2, millis);
  if (ready > 0 && (watched[0].revents & POLLIN) != 0)
    return false;
  if (ready > 0 && (watched[1].revents & POLLIN) != 0)
    drainEvents(freed_fd_);
  return true;
}

void ConnectionAcceptor::run() {
  for (;;) {
    if (admitted_.load(std::memory_order_relaxed) >= max_connections_) {
      // At the cap: the next connection waits in the backlog until one closes.
      if (!waitForStopOrFreedPlace(-1))
        return;
      continue;
    }
    pollfd watched[2] = {{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    if (::poll(watched, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    if ((watched[0].revents & POLLIN) != 0)
      return;
    if ((watched[1].revents & POLLIN) == 0)
      continue;
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    const int fd =
        ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length, SOCK_CLOEXEC);
    if (fd < 0) {
      if (outOfResources(errno)) {
        // Out of descriptors: the connection stays in the backlog; try again later rather than
        // at once (sdk::kAcceptBackoff), so the loop does not spin.
        accept_errors_.fetch_add(1, std::memory_order_relaxed);
        if (!waitForStopOrFreedPlace(static_cast<int>(sdk::kAcceptBackoff.count())))
          return;
      }
      continue;  // EAGAIN, ECONNABORTED, ...: the next one
    }
    admitted_.fetch_add(1, std::memory_order_relaxed);
    // MHD owns the socket from here, and closes it when it cannot take it.
    if (MHD_add_connection(daemon_, fd, reinterpret_cast<const sockaddr*>(&address), length) !=
        MHD_YES) {
      admitted_.fetch_sub(1, std::memory_order_relaxed);
      accept_errors_.fetch_add(1, std::memory_order_relaxed);
      if (!waitForStopOrFreedPlace(static_cast<int>(sdk::kAcceptBackoff.count())))
        return;
    }
  }
}

}  // namespace benchd::libmicrohttpd
