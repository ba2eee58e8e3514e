#include "deadline_socket.hpp"

#include <Poco/Exception.h>

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
  if (!deadline_)
    return;
  deadline_.reset();
  StreamSocketImpl::setReceiveTimeout(read_timeout_);
}

void DeadlineSocketImpl::setReceiveTimeout(const Poco::Timespan& timeout) {
  read_timeout_ = timeout;
  StreamSocketImpl::setReceiveTimeout(timeout);
}

int DeadlineSocketImpl::receiveBytes(void* buffer, int length, int flags) {
  if (deadline_) {
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
        *deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw Poco::TimeoutException("request deadline passed");
    // The sooner of the deadline and the usual timeout per read (0 means none).
    Poco::Timespan::TimeDiff micros = left.count();
    if (read_timeout_.totalMicroseconds() > 0)
      micros = std::min(micros, read_timeout_.totalMicroseconds());
    StreamSocketImpl::setReceiveTimeout(Poco::Timespan(micros));
  }
  return StreamSocketImpl::receiveBytes(buffer, length, flags);
}

DeadlineServerSocket::DeadlineServerSocket() : ServerSocket(new DeadlineServerSocketImpl, true) {}

}  // namespace benchd::threads_poco
