#include "tls_client_socket.hpp"

#include <benchd/sdk/limits.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>

#include <chrono>

namespace benchd::poco_client_support {

namespace {

using tls_support::TlsChannel;

/// The end of a wait of `timeout` from now; a day when it is 0 (no timeout), which a nested
/// call's own timeout always ends sooner.
TlsChannel::Clock::time_point untilAfter(const Poco::Timespan& timeout) {
  const auto now = TlsChannel::Clock::now();
  if (timeout.totalMicroseconds() <= 0)
    return now + std::chrono::hours(24);
  return now + std::chrono::microseconds(timeout.totalMicroseconds());
}

[[noreturn]] void throwFailure(const TlsChannel& tls, const char* what) {
  if (tls.error().empty())
    throw Poco::Net::ConnectionResetException(std::string("the server ended the connection in ") +
                                              what);
  throw Poco::Net::ConnectionResetException(tls.error());
}

}  // namespace

void TlsClientSocketImpl::connect(const Poco::Net::SocketAddress& address,
                                  const Poco::Timespan& timeout) {
  tls_.reset();
  StreamSocketImpl::connect(address, timeout);
  tls_ = std::make_unique<TlsChannel>(context_, sockfd(), TlsChannel::Role::kClient);
  const auto result = tls_->handshake(untilAfter(timeout));
  if (result.status == TlsChannel::Status::kDone)
    return;
  const std::string reason =
      result.status == TlsChannel::Status::kTimedOut
          ? "tls handshake: no answer in time"
          : (tls_->error().empty() ? "tls handshake: the server closed" : tls_->error());
  close();
  if (result.status == TlsChannel::Status::kTimedOut)
    throw Poco::TimeoutException(reason);
  throw Poco::Net::ConnectionRefusedException(reason);
}

void TlsClientSocketImpl::connect(const Poco::Net::SocketAddress& address) {
  connect(address,
          Poco::Timespan(
              std::chrono::duration_cast<std::chrono::microseconds>(sdk::kConnectTimeout).count()));
}

void TlsClientSocketImpl::close() {
  tls_.reset();
  StreamSocketImpl::close();
}

int TlsClientSocketImpl::receiveBytes(void* buffer, int length, int flags) {
  if (!tls_)
    return StreamSocketImpl::receiveBytes(buffer, length, flags);
  const auto result =
      tls_->read(buffer, static_cast<std::size_t>(length), untilAfter(receive_timeout_));
  switch (result.status) {
    case TlsChannel::Status::kDone:
      return static_cast<int>(result.bytes);
    case TlsChannel::Status::kClosed:
      return 0;
    case TlsChannel::Status::kTimedOut:
      throw Poco::TimeoutException("no answer bytes in time");
    case TlsChannel::Status::kFailed:
      break;
  }
  throwFailure(*tls_, "a read");
}

int TlsClientSocketImpl::sendBytes(const void* buffer, int length, int flags) {
  if (!tls_)
    return StreamSocketImpl::sendBytes(buffer, length, flags);
  const auto result =
      tls_->write(buffer, static_cast<std::size_t>(length), untilAfter(send_timeout_));
  switch (result.status) {
    case TlsChannel::Status::kDone:
      return length;
    case TlsChannel::Status::kTimedOut:
      throw Poco::TimeoutException("the server took no request bytes in time");
    case TlsChannel::Status::kClosed:
    case TlsChannel::Status::kFailed:
      break;
  }
  throwFailure(*tls_, "a write");
}

void TlsClientSocketImpl::setReceiveTimeout(const Poco::Timespan& timeout) {
  receive_timeout_ = timeout;
  StreamSocketImpl::setReceiveTimeout(timeout);
}

void TlsClientSocketImpl::setSendTimeout(const Poco::Timespan& timeout) {
  send_timeout_ = timeout;
  StreamSocketImpl::setSendTimeout(timeout);
}

bool TlsClientSocketImpl::dataReadable() {
  return !tls_ || tls_->dataReadable();
}

}  // namespace benchd::poco_client_support
