#pragma once

#include <benchd/http/policies.hpp>
#include <benchd/http/router.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace benchd::http {

/// Limits of Server-Sent Events streams.
struct StreamOptions {
  /// Open streams at once, server-wide; a further stream request gets 503 problem+json.
  std::size_t max_streams = 16;
  /// Bytes a stream may hold queued or in flight (encoded events). A client that lets this
  /// much pile up is too slow and is disconnected (StreamEnd::ClientTooSlow): memory per
  /// stream stays bounded whatever the client does. Sized for seconds of one-per-second
  /// metric snapshots (a few KiB each) with ample headroom.
  std::size_t max_queued_bytes = std::size_t{256} * 1024;
  /// A `: keep-alive` comment is sent this often (every 15 s, docs/daemon-api.md#live-events),
  /// so proxies keep the connection and a vanished client is noticed even when no events flow.
  std::chrono::milliseconds heartbeat_interval{15'000};
};

/// A server's TLS identity: PEM files, the certificate (its chain) and its private key.
struct TlsFiles {
  std::filesystem::path certificate;
  std::filesystem::path private_key;
};

struct ServerOptions {
  /// Numeric IPv4 or IPv6 address to bind; loopback by default
  /// (docs/security.md#loopback-by-default).
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  ///< 0: an ephemeral port, see HttpServer::port()
  /// Event-loop threads. Every connection lives on one of them; handlers run there. Two keep
  /// one slow handler from stalling everything without costing a thread per connection.
  unsigned threads = 2;

  std::size_t max_body_bytes = std::size_t{1024} * 1024;  ///< larger bodies: 413
  std::size_t max_header_bytes = std::size_t{16} * 1024;  ///< request line + fields; larger: 431
  std::size_t max_connections = 512;  ///< beyond: new connections are closed at once

  /// From a connection's accept, or from the first byte of a later request, to the end of its
  /// header: a client trickling a header (slowloris) is cut off after this.
  std::chrono::milliseconds header_timeout{10'000};
  /// Reading a request body, from the end of the header.
  std::chrono::milliseconds body_timeout{30'000};
  /// A kept-alive connection waiting for its next request is closed after this.
  std::chrono::milliseconds idle_timeout{60'000};
  /// Writing one response (or one batch of stream events) to the client.
  std::chrono::milliseconds write_timeout{30'000};
  /// stop(): how long open exchanges may take to finish before the loops are stopped hard.
  std::chrono::milliseconds stop_grace{2'000};

  /// HTTP over TLS (1.2 or later) with this identity; absent: HTTP in clear. The handshake
  /// counts against header_timeout; a response that ends its connection is followed by
  /// close_notify. Plain HTTP sent to a TLS server fails its handshake and is closed.
  std::optional<TlsFiles> tls;

  StreamOptions streams;
  /// Run in order on every well-formed request, see Policy. Typically
  /// {hostCheckPolicy(), bearerTokenPolicy(token)}.
  std::vector<Policy> policies;
  /// Told (on a server thread) when a handler throws; the client gets a generic 500. Optional.
  std::function<void(const Request&, const std::string& what)> on_handler_error;
};

/// Counters for monitoring and tests; a snapshot, each value read atomically on its own.
struct ServerStats {
  std::size_t open_connections = 0;
  std::size_t open_streams = 0;
  std::uint64_t requests = 0;  ///< complete requests handed to routing, since start
};

/// An HTTP/1.1 server (Boost.Beast over Asio) for a REST API with Server-Sent Events.
///
/// Construction binds and listens, then starts `threads` event-loop threads; the server serves
/// until stop() or destruction. Per connection: keep-alive, one request at a time (pipelined
/// requests are answered in order), deadlines on every read and write (ServerOptions), bounded
/// header and body. Each request goes: target parsed and checked (400, see parseTarget()) ->
/// policies (e.g. 421/400 Host, 401 token) -> route (404, 405 with `Allow`) -> handler. Every
/// error the server produces is problem+json (problem.hpp). A request the parser rejects
/// gets 400 (431 for an oversized header, 413 for an oversized body) and its connection is
/// closed; nothing a client sends can crash the server or grow its memory without bound.
///
/// Thread-safety: port(), address(), stats() and stop() may be called from any thread,
/// concurrently, except that stop() and the destructor must not be called from a handler or
/// stream callback (they join the server's threads; doing so throws std::logic_error).
class HttpServer {
 public:
  /// Takes the routes (read-only from now on) and starts serving. Throws std::system_error
  /// when the address cannot be bound (message names address and port), std::invalid_argument
  /// for unusable options (0 threads, bad address, TLS files that cannot be read or do not
  /// pair; the message names the file).
  HttpServer(Router router, ServerOptions options);
  /// Calls stop().
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The bound port (the ephemeral one when ServerOptions::port was 0).
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// The bound address, e.g. "127.0.0.1".
  [[nodiscard]] std::string address() const;
  [[nodiscard]] ServerStats stats() const noexcept;

  /// Graceful stop; idempotent; returns when every server thread has ended. Stops accepting,
  /// closes idle connections, lets requests in flight be answered (with `Connection: close`),
  /// ends event streams (queued events flushed, then the chunked body terminated;
  /// on_close(StreamEnd::ServerStopping)). Whatever is still open after
  /// ServerOptions::stop_grace is cut off. Every opened stream's on_close has been called
  /// when stop() returns. Concurrent callers all return after the stop completed.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::http
