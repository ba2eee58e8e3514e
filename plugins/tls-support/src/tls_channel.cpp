#include <benchd/sdk/poll_until.hpp>
#include <benchd/tls_support/tls_channel.hpp>

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <openssl/err.h>
#include <span>
#include <stdexcept>

namespace benchd::tls_support {

namespace {

/// "tls WHAT: " and OpenSSL's oldest queued error, the queue cleared; when the queue is empty,
/// the socket's error (`saved_errno`) or the SSL error code.
std::string describeFailure(const char* what, int ssl_error, int saved_errno) {
  std::string text = std::string("tls ") + what + ": ";
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code != 0) {
    const char* reason = ERR_reason_error_string(code);
    text += reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
  } else if (ssl_error == SSL_ERROR_SYSCALL && saved_errno != 0) {
    text += std::strerror(saved_errno);
  } else {
    text += "SSL error " + std::to_string(ssl_error);
  }
  return text;
}

}  // namespace

TlsChannel::TlsChannel(SSL_CTX* context, int fd, Role role) : ssl_(SSL_new(context)), fd_(fd) {
  if (!ssl_ || SSL_set_fd(ssl_.get(), fd) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tls: cannot make a connection's state");
  }
  // A peer that just closes its socket ends the stream like a close_notify (see the class).
  SSL_set_options(ssl_.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  if (role == Role::kServer) {
    SSL_set_accept_state(ssl_.get());
  } else {
    SSL_set_connect_state(ssl_.get());
  }
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

TlsChannel::~TlsChannel() = default;

template <typename Step>
TlsChannel::Result TlsChannel::drive(Step step, Clock::time_point until, const char* what) {
  if (failed_)
    return {Status::kFailed, 0};
  for (;;) {
    ERR_clear_error();
    errno = 0;
    const int result = step();
    if (result > 0)
      return {Status::kDone, static_cast<std::size_t>(result)};
    const int ssl_error = SSL_get_error(ssl_.get(), result);
    const int saved_errno = errno;
    short events = 0;
    switch (ssl_error) {
      case SSL_ERROR_WANT_READ:
        events = POLLIN;
        break;
      case SSL_ERROR_WANT_WRITE:
        events = POLLOUT;
        break;
      case SSL_ERROR_ZERO_RETURN:
        return {Status::kClosed, 0};
      case SSL_ERROR_SYSCALL:
        if (saved_errno == EINTR)
          continue;
        [[fallthrough]];
      default:
        failed_ = true;
        error_ = describeFailure(what, ssl_error, saved_errno);
        return {Status::kFailed, 0};
    }
    pollfd watched{fd_, events, 0};
    switch (sdk::pollUntil(std::span(&watched, 1), until)) {
      case sdk::PollResult::kReady:
        break;  // readiness, an end or an error: the next call tells which
      case sdk::PollResult::kTimedOut:
        return {Status::kTimedOut, 0};
      case sdk::PollResult::kFailed:
        failed_ = true;
        error_ = std::string("tls ") + what + ": poll: " + std::strerror(errno);
        return {Status::kFailed, 0};
    }
  }
}

TlsChannel::Result TlsChannel::handshake(Clock::time_point until) {
  return drive([this] { return SSL_do_handshake(ssl_.get()); }, until, "handshake");
}

TlsChannel::Result TlsChannel::read(void* buffer, std::size_t size, Clock::time_point until) {
  const int wanted = static_cast<int>(std::min<std::size_t>(size, INT_MAX));
  return drive([this, buffer, wanted] { return SSL_read(ssl_.get(), buffer, wanted); }, until,
               "read");
}

TlsChannel::Result TlsChannel::write(const void* buffer, std::size_t size,
                                     Clock::time_point until) {
  if (size == 0)
    return {Status::kDone, 0};
  // Without SSL_MODE_ENABLE_PARTIAL_WRITE a write succeeds only once all of it is written; a
  // retry after WANT_WRITE passes the same buffer, as OpenSSL requires.
  const int wanted = static_cast<int>(std::min<std::size_t>(size, INT_MAX));
  Result result = drive([this, buffer, wanted] { return SSL_write(ssl_.get(), buffer, wanted); },
                        until, "write");
  if (result.status == Status::kDone && result.bytes < size) {
    return write(static_cast<const char*>(buffer) + result.bytes, size - result.bytes, until);
  }
  return result;
}

TlsChannel::Result TlsChannel::shutdown(Clock::time_point until) {
  if (failed_)
    return {Status::kFailed, 0};
  // 0: close_notify sent, the peer's not yet seen; 1: both. Either ends this side's part.
  return drive(
      [this] {
        const int state = SSL_shutdown(ssl_.get());
        return state >= 0 ? 1 : state;
      },
      until, "shutdown");
}

bool TlsChannel::hasPendingInput() const noexcept {
  return SSL_has_pending(ssl_.get()) == 1;
}

bool TlsChannel::dataReadable() {
  if (failed_)
    return true;
  ERR_clear_error();
  char first = 0;
  const int result = SSL_peek(ssl_.get(), &first, 1);
  if (result > 0)
    return true;
  const int ssl_error = SSL_get_error(ssl_.get(), result);
  ERR_clear_error();
  return ssl_error != SSL_ERROR_WANT_READ;
}

}  // namespace benchd::tls_support
