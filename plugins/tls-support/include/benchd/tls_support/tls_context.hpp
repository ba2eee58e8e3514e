#pragma once
// The TLS contexts of the `tls` and `h2` profiles (CONTRACT.md, "TLS", "HTTP/2"), set up on
// OpenSSL's SSL_CTX so that every plugin's TLS, Asio's stream or a plain descriptor's, starts
// from the same settings.

#include <benchd/sdk/plugin_support.hpp>

#include <memory>
#include <openssl/ssl.h>

namespace benchd::tls_support {

/// Frees an SSL_CTX (SSL_CTX_free).
struct SslContextFree {
  void operator()(SSL_CTX* context) const noexcept { SSL_CTX_free(context); }
};
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextFree>;

/// Makes `context` the server's: TLS 1.2 at least, the certificate (chain) and private key of
/// `settings` (tls_certificate_file, tls_private_key_file), and ALPN choosing "h2" when
/// `offer_h2` and the client offers it, else "http/1.1", else no protocol (the client goes on
/// without ALPN, which means HTTP/1.1). Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT)
/// naming the file when the certificate or the key cannot be loaded or do not match.
void configureServer(SSL_CTX* context, const sdk::ServerSettings& settings, bool offer_h2);

/// Makes `context` the nested calls' client: TLS 1.2 at least, ALPN "http/1.1", and no
/// verification (the nested call goes to this same server).
void configureClient(SSL_CTX* context);

/// A new SSL_CTX for a server or a client (TLS_server_method / TLS_client_method), not yet
/// configured. Throws sdk::PluginError (BENCHD_ERR_INTERNAL) when OpenSSL cannot make one.
[[nodiscard]] SslContextPtr newServerContext();
[[nodiscard]] SslContextPtr newClientContext();

/// Whether ALPN chose "h2" on `ssl`, after its handshake.
[[nodiscard]] bool negotiatedHttp2(const SSL* ssl) noexcept;

}  // namespace benchd::tls_support
