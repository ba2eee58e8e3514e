#pragma once

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace benchd::coroutines_asio {

/// Serves one inbound connection request by request until the peer closes, keep-alive ends,
/// a timeout passes or the server drains. Runs on `loop`'s thread; `loop` and `host` outlive
/// it (the server joins the loops before it goes away).
boost::asio::awaitable<void> serveConnection(asio_common::EventLoop* loop, const sdk::Host* host,
                                             boost::asio::ip::tcp::socket socket);

}  // namespace benchd::coroutines_asio
