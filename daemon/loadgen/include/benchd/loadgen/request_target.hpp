#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::loadgen {

/// Where requests go and what the path templates' placeholders stand for.
struct RequestTarget {
  std::string host = "127.0.0.1";  ///< numeric address or a name resolved once before the run
  std::uint16_t port = 0;
  std::string approach;                ///< {approach}
  std::uint32_t delay_call_depth = 0;  ///< {delayCallDepth}
  std::uint32_t delay_millis = 0;      ///< {delayInMillis}
  /// HTTP/1.1 over TLS (a `tls` row). The generator verifies no certificate, as h2load and wrk
  /// do not: it measures a server, it does not trust one.
  bool tls = false;
  /// HTTP/2: over TLS with ALPN "h2" when `tls` (an `h2` row), else in clear with prior
  /// knowledge (an `h2c` row).
  bool http2 = false;
  /// HTTP/2's concurrent streams per connection (h2load's -m; a row's streamsPerConnection): a
  /// sub-scenario's `connections` connections carry this many VUs (closed model) or pool slots
  /// (open model) each. 1 for HTTP/1.1, which has no streams.
  std::uint32_t streams_per_connection = 1;
};

/// Host and port of an "http://host[:port][/]" or "https://host[:port][/]" URL (port 80 or 443
/// when absent; IPv6 literals in brackets; https means HTTP/1.1 over TLS, RequestTarget::tls).
/// Throws std::invalid_argument naming the problem for anything else (another scheme, a path, a
/// bad port).
struct HostAndPort {
  std::string host;
  std::uint16_t port = 80;
  bool tls = false;
  /// HTTP/2: over TLS with ALPN "h2" when `tls` (an `h2` row), else in clear with prior
  /// knowledge (an `h2c` row).
  bool http2 = false;
  /// HTTP/2's concurrent streams per connection (h2load's -m; a row's streamsPerConnection): a
  /// sub-scenario's `connections` connections carry this many VUs (closed model) or pool slots
  /// (open model) each. 1 for HTTP/1.1, which has no streams.
  std::uint32_t streams_per_connection = 1;
};
HostAndPort parseHttpUrl(std::string_view url);

}  // namespace benchd::loadgen
