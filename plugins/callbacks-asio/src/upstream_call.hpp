#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/upstream_pool.hpp>

#include <boost/system/error_code.hpp>

#include <functional>
#include <string>

namespace benchd::asio_common {
struct EventLoop;
}

namespace benchd::callbacks_asio {

using asio_common::UpstreamResult;

using UpstreamCompletion = std::function<void(UpstreamResult)>;

/// Sends GET `target` to the server's own endpoint on a pooled keep-alive connection of
/// `loop` (a new one if none is idle) and calls `done` on the loop's thread. A pooled
/// connection the server has meanwhile closed is replaced once, transparently. When `watch`'s
/// client leaves, the call's connection is closed, so `done` comes at once with an error and
/// the nested request's own wait ends in turn; `watch` outlives the call.
/// Loop thread only.
void callUpstream(asio_common::EventLoop& loop, const std::string& target,
                  asio_common::ClientWatch& watch, UpstreamCompletion done);

}  // namespace benchd::callbacks_asio
