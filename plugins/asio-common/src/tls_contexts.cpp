#include <benchd/asio_common/tls_contexts.hpp>

#include <array>
#include <openssl/ssl.h>

namespace benchd::asio_common {

namespace ssl = boost::asio::ssl;

namespace {

/// ALPN, wire format: HTTP/1.1 only (the `tls` profile, and every nested call).
constexpr std::array<unsigned char, 9> kHttp11Protocols = {8,   'h', 't', 't', 'p',
                                                           '/', '1', '.', '1'};
/// ALPN, wire format, in the server's order of preference: h2, then HTTP/1.1 (the `h2` profile).
constexpr std::array<unsigned char, 12> kHttp2Protocols = {2,   'h', '2', 8,   'h', 't',
                                                           't', 'p', '/', '1', '.', '1'};

/// Chooses the first of the server's protocols (`arg`: kHttp11Protocols or kHttp2Protocols)
/// that the client offers; otherwise acknowledges no protocol, so the client goes on without
/// ALPN (RFC 7301 lets a server ignore protocols it does not speak), which means HTTP/1.1.
int selectProtocol(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_size,
                   const unsigned char* offered, unsigned int offered_size, void* arg) {
  const bool h2 = arg != nullptr;
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(
          &chosen, out_size, h2 ? kHttp2Protocols.data() : kHttp11Protocols.data(),
          static_cast<unsigned int>(h2 ? kHttp2Protocols.size() : kHttp11Protocols.size()), offered,
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
  if (!settings.hasProfile("tls") && !settings.hasProfile("h2"))
    return nullptr;
  auto contexts = std::make_unique<TlsContexts>();
  contexts->offers_h2 = settings.hasProfile("h2");
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
  // The callback's argument only says which list: non-null for h2 (the lists are constants).
  SSL_CTX_set_alpn_select_cb(contexts->server.native_handle(), selectProtocol,
                             contexts->offers_h2 ? contexts.get() : nullptr);
  contexts->client.set_verify_mode(ssl::verify_none);
  SSL_CTX_set_alpn_protos(contexts->client.native_handle(), kHttp11Protocols.data(),
                          static_cast<unsigned int>(kHttp11Protocols.size()));
  return contexts;
}

bool negotiatedHttp2(TlsStream& stream) {
  const unsigned char* chosen = nullptr;
  unsigned int size = 0;
  SSL_get0_alpn_selected(stream.native_handle(), &chosen, &size);
  return size == 2 && chosen[0] == 'h' && chosen[1] == '2';
}

}  // namespace benchd::asio_common
