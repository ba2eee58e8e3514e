#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>

namespace benchd::coroutines_asio {

inline constexpr const char* kApproachName = "coroutines-asio";

/// Produces the reply to one parsed request: validates it, makes the nested call or waits
/// the delay, then asks the host for the answer. While it waits it watches the client's
/// connection (`stream`, plain or TLS, reading ahead into `buffer`: asio_common::ClientWatch)
/// and returns
/// nothing, at once, when the client leaves. The pointees live in the awaiting caller's frame
/// and outlive this coroutine.
boost::asio::awaitable<std::optional<sdk::Reply>> handleRequest(
    asio_common::EventLoop* loop, const sdk::Host* host,
    const boost::beast::http::request<boost::beast::http::string_body>* message,
    asio_common::InboundStream stream, boost::beast::flat_buffer* buffer);

}  // namespace benchd::coroutines_asio
