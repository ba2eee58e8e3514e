#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>

namespace benchd::loadgen {

/// The TLS client context of a phase against a `tls` target: TLS 1.2 or newer, ALPN
/// "http/1.1" (or "h2" alone when `http2`: an `h2` target), no certificate verification (a load
/// generator measures the server; h2load and wrk do not verify either), no session resumption
/// (every connect is a full handshake, as a new client's is). Throws std::runtime_error naming the
/// OpenSSL step that failed.
[[nodiscard]] std::unique_ptr<boost::asio::ssl::context> makeTlsClientContext(bool http2);

}  // namespace benchd::loadgen
