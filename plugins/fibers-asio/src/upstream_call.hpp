#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/upstream_pool.hpp>

#include <boost/system/error_code.hpp>

#include <string>

namespace benchd::fibers_asio {

using asio_common::UpstreamResult;

/// GET `target` on the server's own endpoint over a pooled keep-alive connection of `loop`
/// (a new one if none is idle). Reads as a blocking call; suspends only the calling fiber.
/// A pooled connection the server has meanwhile closed is replaced once. Call from a fiber on
/// `loop`'s thread. When `watch`'s client leaves, the call ends at once with operation_aborted
/// and its connection is closed, which ends the nested request's own wait in turn.
UpstreamResult callUpstream(asio_common::EventLoop& loop, const std::string& target,
                            asio_common::ClientWatch& watch);

}  // namespace benchd::fibers_asio
