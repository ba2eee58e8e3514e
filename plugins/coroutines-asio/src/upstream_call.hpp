#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/upstream_pool.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>

#include <string>

namespace benchd::coroutines_asio {

using asio_common::UpstreamResult;

/// GET `target` on the server's own endpoint over a pooled keep-alive connection of `loop`
/// (a new one if none is idle); a pooled connection the server has meanwhile closed is
/// replaced once. When `watch`'s client leaves, the call ends at once with operation_aborted
/// and its connection is closed, which ends the nested request's own wait in turn. Runs on the
/// loop's thread; `loop` and `watch` outlive the call.
boost::asio::awaitable<UpstreamResult> callUpstream(asio_common::EventLoop* loop,
                                                    std::string target,
                                                    asio_common::ClientWatch* watch);

}  // namespace benchd::coroutines_asio
