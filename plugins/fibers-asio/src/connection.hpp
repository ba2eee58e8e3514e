#pragma once

#include "fiber_loop.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/host.hpp>

#include <boost/asio/ip/tcp.hpp>

namespace benchd::fibers_asio {

/// The body of one connection fiber: serves the connection request by request until the peer
/// closes, keep-alive ends, a timeout passes or the server drains. Runs on `loop`'s thread;
/// the pointees outlive the fiber (the loop's thread waits for all its fibers to end).
void serveConnection(asio_common::EventLoop* loop, FiberLoop* fiber_loop, const sdk::Host* host,
                     boost::asio::ip::tcp::socket socket);

}  // namespace benchd::fibers_asio
