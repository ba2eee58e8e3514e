#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>

namespace benchd::fibers_asio {

inline constexpr const char* kApproachName = "fibers-asio";

/// The reply to one parsed request, written as blocking code: validate, make the nested call
/// or sleep the delay, then ask the host. Suspends only the calling fiber. While it waits it
/// watches the client's connection (`stream`, plain or TLS, reading ahead into `buffer`:
/// asio_common::ClientWatch) and returns nothing, at once, when the client leaves or the
/// server closes the connection (stop), so no fiber sleeps past a stop.
std::optional<sdk::Reply> handleRequest(
    asio_common::EventLoop& loop, const sdk::Host& host,
    const boost::beast::http::request<boost::beast::http::string_body>& message,
    asio_common::InboundStream stream, boost::beast::flat_buffer& buffer);

}  // namespace benchd::fibers_asio
