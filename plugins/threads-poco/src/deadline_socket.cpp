#include "deadline_socket.hpp"

#include <benchd/sdk/poll_until.hpp>

#include <Poco/Exception.h>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <sys/socket.h>

namespace benchd::threads_poco {

namespace {

/// Accepts like Poco's own listener, but makes each connection's socket a DeadlineSocketImpl.
class DeadlineServerSocketImpl final : public Poco::Net::ServerSocketImpl {
 public:
  Poco::Net::SocketImpl* acceptConnection(Poco::Net::SocketAddress& client) override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    poco_socket_t fd = POCO_INVALID_SOCKET;
    do {
      fd = ::accept(sockfd(), reinterpret_cast<sockaddr*>(&address), &length);
    } while (fd == POCO_INVALID_SOCKET && errno == EINTR);
    if (fd == POCO_INVALID_SOCKET)
      error();  // throws the Poco exception for errno, as Poco's accept does
    client = Poco::Net::SocketAddress(reinterpret_cast<const sockaddr*>(&address), length);
    return new DeadlineSocketImpl(fd);
  }
};

}  // namespace

void DeadlineSocketImpl::setDeadline(std::chrono::steady_clock::time_point deadline) {
  deadline_ = deadline;
}

void DeadlineSocketImpl::clearDeadline() {
  deadline_.reset();
}

void DeadlineSocketImpl::setReceiveTimeout(const Poco::Timespan& timeout) {
  read_timeout_ = timeout;
  StreamSocketImpl::setReceiveTimeout(timeout);
}

int DeadlineSocketImpl::receiveBytes(void* buffer, int length, int flags) {
  if (!deadline_)
    return StreamSocketImpl::receiveBytes(buffer, length, flags);
  for (;;) {
    const ssize_t got =
        ::recv(sockfd(), buffer, static_cast<std::size_t>(length), flags | MSG_DONTWAIT);
    if (got >= 0)
      return static_cast<int>(got);
    const int failure = errno;
    if (failure == EINTR)
      continue;
    if (failure != EAGAIN && failure != EWOULDBLOCK)
      error(failure);  // throws Poco's exception for it, as Poco's own receive does
    awaitReadableWithinDeadline();
  }
}

void DeadlineSocketImpl::awaitReadableWithinDeadline() {
  // The sooner of the deadline and the timeout per read (0 means none).
  auto until = *deadline_;
  if (read_timeout_.totalMicroseconds() > 0) {
    until = std::min(until, std::chrono::steady_clock::now() +
                                std::chrono::microseconds(read_timeout_.totalMicroseconds()));
  }
  pollfd readable{sockfd(), POLLIN, 0};
  switch (sdk::pollUntil(std::span(&readable, 1), until)) {
    case sdk::PollResult::kReady:
      return;
    case sdk::PollResult::kFailed:
      error(errno);  // throws Poco's exception for it
      return;
    case sdk::PollResult::kTimedOut:
      break;
  }
  throw Poco::TimeoutException(until == *deadline_ ? "request deadline passed"
                                                   : "no request bytes in time");
}

DeadlineServerSocket::DeadlineServerSocket() : ServerSocket(new DeadlineServerSocketImpl, true) {}

}  // namespace benchd::threads_poco
