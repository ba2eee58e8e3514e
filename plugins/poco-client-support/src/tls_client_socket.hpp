#pragma once

#include <benchd/tls_support/tls_channel.hpp>

#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocketImpl.h>
#include <Poco/Timespan.h>

#include <memory>

namespace benchd::poco_client_support {

/// The socket of a nested call's session under `tls`: Poco's TCP connect, then TLS's handshake
/// (within the same connect timeout), and every read and write through TLS with the socket's
/// timeouts; so HTTPClientSession, which connects, reconnects and closes it through these
/// virtual calls, speaks HTTPS unchanged. Used by the one thread that holds the session.
class TlsClientSocketImpl final : public Poco::Net::StreamSocketImpl {
 public:
  /// `context` (the nested calls' client context) outlives the socket.
  explicit TlsClientSocketImpl(SSL_CTX* context) : context_(context) {}

  /// Throws Poco::TimeoutException, or Poco::Net::ConnectionRefusedException naming TLS's
  /// failure, when the handshake does not complete.
  void connect(const Poco::Net::SocketAddress& address, const Poco::Timespan& timeout) override;
  void connect(const Poco::Net::SocketAddress& address) override;
  void close() override;
  int receiveBytes(void* buffer, int length, int flags) override;
  using StreamSocketImpl::receiveBytes;
  int sendBytes(const void* buffer, int length, int flags) override;
  using StreamSocketImpl::sendBytes;
  void setReceiveTimeout(const Poco::Timespan& timeout) override;
  void setSendTimeout(const Poco::Timespan& timeout) override;

  /// After poll() found the socket readable: whether an answer's bytes (or the server's end)
  /// came, not only TLS's own messages (TlsChannel::dataReadable()).
  [[nodiscard]] bool dataReadable();

 private:
  SSL_CTX* context_;
  std::unique_ptr<tls_support::TlsChannel> tls_;
  Poco::Timespan receive_timeout_;  ///< 0: none
  Poco::Timespan send_timeout_;     ///< 0: none
};

}  // namespace benchd::poco_client_support
