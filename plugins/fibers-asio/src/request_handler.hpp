#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/core/flat_buffer.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace benchd::fibers_asio {

inline constexpr const char* kApproachName = "fibers-asio";

/// The reply to one request (an HTTP/1.1 message or an HTTP/2 stream), written as blocking
/// code: validate, make the nested call or sleep the delay, then ask the host. Suspends only
/// the calling fiber. While it waits it watches the client (`stream`: a connection, plain or
/// TLS, reading ahead into `buffer`, or an HTTP/2 stream's departure; asio_common::ClientWatch)
/// and returns nothing, at once, when the client leaves or the server closes the connection
/// (stop), so no fiber sleeps past a stop.
std::optional<sdk::Reply> handleRequest(asio_common::EventLoop& loop, const sdk::Host& host,
                                        std::string_view method, std::string_view target,
                                        const std::string& body, asio_common::InboundStream stream,
                                        boost::beast::flat_buffer& buffer);

}  // namespace benchd::fibers_asio
