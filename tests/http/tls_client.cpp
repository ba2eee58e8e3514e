#include "tls_client.hpp"

#include <benchd/tls/tls_identity.hpp>

#include <poll.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdexcept>
#include <sys/socket.h>

namespace benchd::http::testing {
namespace {

/// Waits until `fd` is ready for what `ssl` wants next, within `deadline`.
bool waitReady(int fd, SSL* ssl, int result, std::chrono::steady_clock::time_point deadline) {
  const int reason = SSL_get_error(ssl, result);
  if (reason != SSL_ERROR_WANT_READ && reason != SSL_ERROR_WANT_WRITE)
    return false;
  pollfd descriptor{fd, static_cast<short>(reason == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 && ::poll(&descriptor, 1, static_cast<int>(left.count())) > 0;
}

std::string lastError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return code == 0 ? std::string("the connection ended") : std::string(text.data());
}

}  // namespace

TlsClient::TlsClient(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 &&
      errno != EINPROGRESS)
    throw std::runtime_error("TlsClient: cannot connect");
  pollfd connected{fd_, POLLOUT, 0};
  ::poll(&connected, 1, 5000);
  context_ = SSL_CTX_new(TLS_client_method());
  ssl_ = SSL_new(context_);
  SSL_set_fd(ssl_, fd_);
}

TlsClient::~TlsClient() {
  SSL_free(ssl_);
  SSL_CTX_free(context_);
  ::close(fd_);
}

bool TlsClient::handshake(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const int result = SSL_connect(ssl_);
    if (result == 1)
      return true;
    if (!waitReady(fd_, ssl_, result, deadline)) {
      error_ = lastError();
      return false;
    }
  }
}

bool TlsClient::send(std::string_view bytes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!bytes.empty()) {
    const int written = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    if (written > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(written));
    } else if (!waitReady(fd_, ssl_, written, deadline)) {
      error_ = lastError();
      return false;
    }
  }
  return true;
}

int TlsClient::readOnce(std::chrono::steady_clock::time_point deadline) {
  std::array<char, 4096> buffer{};
  for (;;) {
    const int got = SSL_read(ssl_, buffer.data(), static_cast<int>(buffer.size()));
    if (got > 0) {
      received_.append(buffer.data(), static_cast<std::size_t>(got));
      return 1;
    }
    const int reason = SSL_get_error(ssl_, got);
    if (reason == SSL_ERROR_ZERO_RETURN)
      return 0;
    if (reason != SSL_ERROR_WANT_READ && reason != SSL_ERROR_WANT_WRITE) {
      error_ = lastError();
      return -1;
    }
    if (!waitReady(fd_, ssl_, got, deadline))
      return -2;
  }
}

bool TlsClient::readUntil(const std::function<bool(const std::string&)>& done,
                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done(received_)) {
    if (readOnce(deadline) != 1)
      return false;
  }
  return true;
}

std::optional<std::string> TlsClient::readResponse(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto end = received_.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::size_t length = 0;
      const auto at = received_.find("Content-Length: ");
      if (at != std::string::npos && at < end)
        length = std::stoul(received_.substr(at + 16));
      const std::size_t total = end + 4 + length;
      if (received_.size() >= total) {
        std::string response = received_.substr(0, total);
        received_.erase(0, total);
        return response;
      }
    }
    if (readOnce(deadline) != 1)
      return std::nullopt;
  }
}

TlsClient::End TlsClient::readToEnd(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    switch (readOnce(deadline)) {
      case 1:
        continue;
      case 0:
        return End::kCloseNotify;
      case -1:
        return End::kWithoutCloseNotify;
      default:
        return End::kStillOpen;
    }
  }
}

std::string TlsClient::peerFingerprint() const {
  X509* certificate = SSL_get1_peer_certificate(ssl_);
  if (certificate == nullptr)
    return "";
  std::string fingerprint = tls::certificateFingerprint(*certificate);
  X509_free(certificate);
  return fingerprint;
}

}  // namespace benchd::http::testing
