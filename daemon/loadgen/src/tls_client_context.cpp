#include "tls_client_context.hpp"

#include <array>
#include <openssl/ssl.h>
#include <stdexcept>

namespace benchd::loadgen {

namespace ssl = boost::asio::ssl;

std::unique_ptr<ssl::context> makeTlsClientContext(bool http2) {
  auto context = std::make_unique<ssl::context>(ssl::context::tls_client);
  SSL_CTX* native = context->native_handle();
  if (SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) != 1)
    throw std::runtime_error("TLS client: cannot require TLS 1.2 or newer");
  context->set_verify_mode(ssl::verify_none);
  // Without resumption a reconnect costs what a new client's first connect costs.
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(native, SSL_OP_NO_TICKET);
  static constexpr std::array<unsigned char, 9> kHttp11 = {8,   'h', 't', 't', 'p',
                                                           '/', '1', '.', '1'};
  static constexpr std::array<unsigned char, 3> kHttp2 = {2, 'h', '2'};
  // Unlike most OpenSSL calls, 0 is success here.
  if ((http2 ? SSL_CTX_set_alpn_protos(native, kHttp2.data(),
                                       static_cast<unsigned int>(kHttp2.size()))
             : SSL_CTX_set_alpn_protos(native, kHttp11.data(),
                                       static_cast<unsigned int>(kHttp11.size()))) != 0)
    throw std::runtime_error(http2 ? "TLS client: cannot offer ALPN h2"
                                   : "TLS client: cannot offer ALPN http/1.1");
  return context;
}

}  // namespace benchd::loadgen
