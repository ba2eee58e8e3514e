#include <benchd/tls_support/tls_context.hpp>

#include <array>
#include <openssl/err.h>
#include <string>

namespace benchd::tls_support {

namespace {

/// ALPN, wire format: HTTP/1.1 only (the `tls` profile, and every nested call).
constexpr std::array<unsigned char, 9> kHttp11Protocols = {8,   'h', 't', 't', 'p',
                                                           '/', '1', '.', '1'};
/// ALPN, wire format, in the server's order of preference: h2, then HTTP/1.1 (the `h2` profile).
constexpr std::array<unsigned char, 12> kHttp2Protocols = {2,   'h', '2', 8,   'h', 't',
                                                           't', 'p', '/', '1', '.', '1'};

/// Chooses the first of the server's protocols (`arg`: non-null for kHttp2Protocols, else
/// kHttp11Protocols) that the client offers; otherwise acknowledges no protocol, so the client
/// goes on without ALPN (RFC 7301 lets a server ignore protocols it does not speak), which means
/// HTTP/1.1.
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

/// OpenSSL's oldest queued error as "reason (library)", and the queue cleared.
std::string takeOpensslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  const char* reason = ERR_reason_error_string(code);
  if (reason == nullptr)
    return "OpenSSL error " + std::to_string(code);
  std::string text = reason;
  if (const char* library = ERR_lib_error_string(code))
    text += std::string(" (") + library + ")";
  return text;
}

void requireTls12(SSL_CTX* context) {
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

SslContextPtr newContext(const SSL_METHOD* method) {
  SslContextPtr context(SSL_CTX_new(method));
  if (!context)
    throw sdk::PluginError(BENCHD_ERR_INTERNAL,
                           "tls: cannot make a context: " + takeOpensslError());
  return context;
}

}  // namespace

void configureServer(SSL_CTX* context, const sdk::ServerSettings& settings, bool offer_h2) {
  requireTls12(context);
  if (SSL_CTX_use_certificate_chain_file(context, settings.tls_certificate_file.c_str()) != 1) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "tls: cannot load the certificate " +
                                                            settings.tls_certificate_file + ": " +
                                                            takeOpensslError());
  }
  if (SSL_CTX_use_PrivateKey_file(context, settings.tls_private_key_file.c_str(),
                                  SSL_FILETYPE_PEM) != 1) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "tls: cannot load the private key " +
                                                            settings.tls_private_key_file + ": " +
                                                            takeOpensslError());
  }
  if (SSL_CTX_check_private_key(context) != 1) {
    ERR_clear_error();
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "tls: the private key " +
                                                            settings.tls_private_key_file +
                                                            " does not belong to the certificate " +
                                                            settings.tls_certificate_file);
  }
  // The callback's argument only says which list: non-null (the context itself) for h2; the lists
  // are constants.
  SSL_CTX_set_alpn_select_cb(context, selectProtocol, offer_h2 ? context : nullptr);
}

void configureClient(SSL_CTX* context) {
  requireTls12(context);
  SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nullptr);
  SSL_CTX_set_alpn_protos(context, kHttp11Protocols.data(),
                          static_cast<unsigned int>(kHttp11Protocols.size()));
}

SslContextPtr newServerContext() {
  return newContext(TLS_server_method());
}

SslContextPtr newClientContext() {
  return newContext(TLS_client_method());
}

bool negotiatedHttp2(const SSL* ssl) noexcept {
  const unsigned char* chosen = nullptr;
  unsigned int size = 0;
  SSL_get0_alpn_selected(ssl, &chosen, &size);
  return size == 2 && chosen[0] == 'h' && chosen[1] == '2';
}

}  // namespace benchd::tls_support
