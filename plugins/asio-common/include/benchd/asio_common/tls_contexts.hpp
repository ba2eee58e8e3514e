#pragma once

#include <benchd/sdk/plugin_support.hpp>

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <memory>

namespace benchd::asio_common {

/// A connection of the `tls` profile, inbound or a nested call's: TLS over a Beast tcp_stream it
/// does not own, so the connection's book-keeping, its ClientWatch and closeStream keep working
/// on the TCP layer, and plain and TLS connections share their code up to the bytes. Asio's
/// stream, not Beast's ssl_stream: in Boost 1.81 the latter's operations do not take
/// asio::deferred, which the coroutines use; every reply is one buffer, so Beast's write
/// coalescing is not missed.
using TlsStream = boost::asio::ssl::stream<boost::beast::tcp_stream&>;

/// The TLS side of a server under the `tls` or `h2` profile (CONTRACT.md, "TLS", "HTTP/2"): the
/// server's context, holding the run's certificate and key (TLS 1.2 at least; ALPN chooses "h2"
/// under `h2` when the client offers it, else "http/1.1"), and the client context of the nested
/// calls, which go to this same server over HTTP/1.1 and so verify nothing.
/// Built once in the host thread before the loops start; read-only afterwards, so every loop
/// may make streams from it concurrently.
struct TlsContexts {
  boost::asio::ssl::context server{boost::asio::ssl::context::tls_server};
  boost::asio::ssl::context client{boost::asio::ssl::context::tls_client};
  /// Whether the server offers "h2" in ALPN (the `h2` profile).
  bool offers_h2 = false;
};

/// The contexts for `settings`, or null when it has neither the `tls` nor the `h2` profile. Throws
/// sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the file when the certificate or the key
/// cannot be loaded or do not match.
[[nodiscard]] std::unique_ptr<TlsContexts> makeTlsContexts(const sdk::ServerSettings& settings);

/// Whether ALPN chose "h2" for `stream`, after its handshake.
[[nodiscard]] bool negotiatedHttp2(TlsStream& stream);

}  // namespace benchd::asio_common
