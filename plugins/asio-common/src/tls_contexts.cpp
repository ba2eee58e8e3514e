#include <benchd/asio_common/tls_contexts.hpp>

#include <array>
#include <openssl/ssl.h>

namespace benchd::asio_common {

namespace ssl = boost::asio::ssl;

namespace {

/// ALPN, wire format: this server speaks HTTP/1.1 only.
constexpr std::array<unsigned char, 9> kHttp11Protocols = {8,   'h', 't', 't', 'p',
                                                           '/', '1', '.', '1'};

/// Chooses "http/1.1" when the client offers it; otherwise acknowledges no protocol, so the
/// client goes on without ALPN (RFC 7301 lets a server ignore protocols it does not speak).
int selectHttp11(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_size,
                 const unsigned char* offered, unsigned int offered_size, void* /*arg*/) {
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, out_size, kHttp11Protocols.data(),
                            static_cast<unsigned int>(kHttp11Protocols.size()), offered,
                            offered_size) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

void load(ssl::context& context, const std::string& file, bool key) {
  boost::system::error_code error;
  if (key) {
    context.use_private_key_file(file, ssl::context::pem, error);
  } else {
    context.use_certificate_chain_file(file, error);
  }
  if (error)
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           std::string("tls: cannot load the ") +
                               (key ? "private key " : "certificate ") + file + ": " +
                               error.message());
}

}  // namespace

std::unique_ptr<TlsContexts> makeTlsContexts(const sdk::ServerSettings& settings) {
  if (!settings.hasProfile("tls"))
    return nullptr;
  auto contexts = std::make_unique<TlsContexts>();
  for (ssl::context* context : {&contexts->server, &contexts->client}) {
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1);
    SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  }
  load(contexts->server, settings.tls_certificate_file, false);
  load(contexts->server, settings.tls_private_key_file, true);
  if (SSL_CTX_check_private_key(contexts->server.native_handle()) != 1)
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "tls: the private key " +
                                                            settings.tls_private_key_file +
                                                            " does not belong to the certificate " +
                                                            settings.tls_certificate_file);
  SSL_CTX_set_alpn_select_cb(contexts->server.native_handle(), selectHttp11, nullptr);
  contexts->client.set_verify_mode(ssl::verify_none);
  SSL_CTX_set_alpn_protos(contexts->client.native_handle(), kHttp11Protocols.data(),
                          static_cast<unsigned int>(kHttp11Protocols.size()));
  return contexts;
}

}  // namespace benchd::asio_common
