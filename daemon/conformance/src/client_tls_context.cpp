#include "client_tls_context.hpp"

#include <stdexcept>

namespace benchd::conformance {

namespace ssl = boost::asio::ssl;

ssl::context makeClientContext(const ClientTls& tls) {
  ssl::context context(ssl::context::tls_client);
  boost::system::error_code error;
  context.load_verify_file(tls.certificate.string(), error);
  if (error) {
    throw std::runtime_error("cannot trust the certificate " + tls.certificate.string() + ": " +
                             error.message());
  }
  context.set_verify_mode(ssl::verify_peer);
  if (SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION) != 1)
    throw std::runtime_error("OpenSSL refused TLS 1.2 as the lowest version");
  if (!tls.alpn.empty()) {
    // The wire format: each name after its length byte.
    std::string wire;
    for (const std::string& name : tls.alpn) {
      wire += static_cast<char>(name.size());
      wire += name;
    }
    // SSL_CTX_set_alpn_protos returns 0 on success, unlike most of OpenSSL.
    if (SSL_CTX_set_alpn_protos(context.native_handle(),
                                reinterpret_cast<const unsigned char*>(wire.data()),
                                static_cast<unsigned>(wire.size())) != 0)
      throw std::runtime_error("OpenSSL refused the ALPN list");
  }
  return context;
}

std::string alpnSelected(const SSL* ssl) {
  const unsigned char* name = nullptr;
  unsigned length = 0;
  SSL_get0_alpn_selected(ssl, &name, &length);
  return name == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(name), length);
}

}  // namespace benchd::conformance
