#pragma once

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace benchd::fibers_asio {

inline constexpr const char* kApproachName = "fibers-asio";

/// The reply to one parsed request, written as blocking code: validate, make the nested call
/// or sleep the delay, then ask the host. Suspends only the calling fiber.
sdk::Reply handleRequest(
    asio_common::EventLoop& loop, const sdk::Host& host,
    const boost::beast::http::request<boost::beast::http::string_body>& message);

}  // namespace benchd::fibers_asio
