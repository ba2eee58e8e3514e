#pragma once

#include "fiber_loop.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/host.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace benchd::fibers_asio {

/// Serves an HTTP/2 connection (CONTRACT.md, "HTTP/2") in the calling connection fiber until the
/// client closes it, it fails, or a draining server's GOAWAY has let its streams finish: the
/// fiber reads and feeds an h2_session::ServerSession, each request stream is answered by a
/// fiber of its own (handleRequest, as for HTTP/1.1, watching its stream's departure instead of
/// the socket, blocking-style), and one writer fiber at a time sends what the session produces.
/// Returns only once every fiber it started has ended, so `stream`, `buffer` and `registration`
/// (the caller's) may go right after. `buffer` holds what was already read: at least the
/// client's preface under `h2c`, possibly nothing under `h2`.
void serveHttp2(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                boost::beast::tcp_stream& stream, boost::beast::flat_buffer& buffer,
                asio_common::ConnectionRegistration& registration);

/// The same over TLS, once ALPN chose "h2".
void serveHttp2(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                asio_common::TlsStream& stream, boost::beast::flat_buffer& buffer,
                asio_common::ConnectionRegistration& registration);

}  // namespace benchd::fibers_asio
