#pragma once
// The TLS side the conformance clients share (HttpConnection, Http2Connection): the context a
// client connection is made from, the name check, and what ALPN chose. Private to the library.

#include <benchd/conformance/http_client.hpp>

#include <boost/asio/ssl/context.hpp>

#include <openssl/ssl.h>
#include <string>

namespace benchd::conformance {

/// A client context that trusts only `tls.certificate`, verifies the peer, speaks TLS 1.2 or
/// newer and offers `tls.alpn`. Throws std::runtime_error naming the file or the setting that
/// OpenSSL refused.
[[nodiscard]] boost::asio::ssl::context makeClientContext(const ClientTls& tls);

/// The protocol ALPN chose on `ssl` after its handshake; empty when none.
[[nodiscard]] std::string alpnSelected(const SSL* ssl);

}  // namespace benchd::conformance
