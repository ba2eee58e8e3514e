#include <benchd/conformance/loopback_socket.hpp>

#include <poll.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>

namespace benchd::conformance {

LoopbackSocket::LoopbackSocket(std::uint16_t port)
    : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) {
    return;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  const timeval send_timeout{5, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
}

LoopbackSocket::~LoopbackSocket() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

bool LoopbackSocket::send(std::string_view bytes) {
  std::size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    const ssize_t wrote = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      return false;
    }
    sent += static_cast<std::size_t>(wrote);
  }
  return fd_ >= 0;
}

void LoopbackSocket::shutdownSend() {
  if (fd_ >= 0) {
    ::shutdown(fd_, SHUT_WR);
  }
}

void LoopbackSocket::resetAndClose() {
  if (fd_ < 0) {
    return;
  }
  const linger reset{1, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  ::close(fd_);
  fd_ = -1;
}

LoopbackSocket::ReadEnd LoopbackSocket::readUntil(
    std::string& received, const std::function<bool(const std::string&)>& done,
    std::chrono::steady_clock::time_point deadline) {
  if (fd_ < 0) {
    return ReadEnd::kReset;
  }
  char buffer[16384];
  while (!done(received)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return ReadEnd::kTimeout;
    }
    pollfd readable{fd_, POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      return ReadEnd::kTimeout;
    }
    const ssize_t got = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (got == 0) {
      return ReadEnd::kClosed;
    }
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return ReadEnd::kReset;
    }
    received.append(buffer, static_cast<std::size_t>(got));
  }
  return ReadEnd::kDone;
}

LoopbackSocket::ReadEnd LoopbackSocket::readToEnd(std::string& received,
                                                  std::chrono::steady_clock::time_point deadline) {
  return readUntil(
      received, [](const std::string&) { return false; }, deadline);
}

}  // namespace benchd::conformance
