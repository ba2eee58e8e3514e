#include "deadline_socket.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/poll_until.hpp>
#include <benchd/tls_support/tls_context.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <sys/socket.h>

namespace benchd::threads_poco {

namespace {

/// "No limit" for a TLS wait: far enough never to come, near enough not to overflow.
constexpr std::chrono::hours kNoLimit{24 * 365};

std::chrono::microseconds microsecondsOf(const Poco::Timespan& timespan) {
  return std::chrono::microseconds(timespan.totalMicroseconds());
}

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

bool DeadlineSocketImpl::acceptTls(SSL_CTX* context,
                                   std::chrono::steady_clock::time_point deadline) {
  try {
    tls_ = std::make_unique<tls_support::TlsChannel>(context, sockfd(),
                                                     tls_support::TlsChannel::Role::kServer);
  } catch (const std::exception&) {
    return false;
  }
  return tls_->handshake(deadline).status == tls_support::TlsChannel::Status::kDone;
}

bool DeadlineSocketImpl::negotiatedHttp2() const noexcept {
  return tls_ && tls_support::negotiatedHttp2(tls_->native());
}

bool DeadlineSocketImpl::hasPendingInput() const noexcept {
  return tls_ && tls_->hasPendingInput();
}

std::chrono::steady_clock::time_point DeadlineSocketImpl::readUntil() const {
  const auto now = std::chrono::steady_clock::now();
  auto until = deadline_.value_or(now + kNoLimit);
  if (read_timeout_.totalMicroseconds() > 0)
    until = std::min(until, now + microsecondsOf(read_timeout_));
  return until;
}

int DeadlineSocketImpl::receiveOverTls(void* buffer, int length) {
  const auto until = readUntil();
  const auto result = tls_->read(buffer, static_cast<std::size_t>(length), until);
  switch (result.status) {
    case tls_support::TlsChannel::Status::kDone:
      return static_cast<int>(result.bytes);
    case tls_support::TlsChannel::Status::kClosed:
      return 0;
    case tls_support::TlsChannel::Status::kTimedOut:
      throw Poco::TimeoutException(deadline_ && until == *deadline_ ? "request deadline passed"
                                                                    : "no request bytes in time");
    case tls_support::TlsChannel::Status::kFailed:
      break;
  }
  throw Poco::Net::ConnectionResetException(tls_->error());
}

int DeadlineSocketImpl::sendBytes(const void* buffer, int length, int flags) {
  if (!tls_)
    return StreamSocketImpl::sendBytes(buffer, length, flags);
  const auto until = std::chrono::steady_clock::now() +
                     (send_timeout_.totalMicroseconds() > 0
                          ? microsecondsOf(send_timeout_)
                          : std::chrono::duration_cast<std::chrono::microseconds>(kNoLimit));
  const auto result = tls_->write(buffer, static_cast<std::size_t>(length), until);
  switch (result.status) {
    case tls_support::TlsChannel::Status::kDone:
      return length;
    case tls_support::TlsChannel::Status::kTimedOut:
      throw Poco::TimeoutException("the client took no reply bytes in time");
    case tls_support::TlsChannel::Status::kClosed:
    case tls_support::TlsChannel::Status::kFailed:
      break;
  }
  throw Poco::Net::ConnectionResetException(
      tls_->error().empty() ? "the client ended the connection" : tls_->error());
}

void DeadlineSocketImpl::shutdownSend() {
  if (tls_)
    (void)tls_->shutdown(std::chrono::steady_clock::now() + sdk::kDiscardTimeout);
  StreamSocketImpl::shutdownSend();
}

void DeadlineSocketImpl::setSendTimeout(const Poco::Timespan& timeout) {
  send_timeout_ = timeout;
  StreamSocketImpl::setSendTimeout(timeout);
}

int DeadlineSocketImpl::receiveBytes(void* buffer, int length, int flags) {
  if (tls_)
    return receiveOverTls(buffer, length);
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
