#pragma once

#include "server_state.hpp"

#include <boost/asio/ip/tcp.hpp>

namespace benchd::threads_asio {

/// Serves one inbound connection on the calling pool thread, request by request, with Beast's
/// synchronous parser, until the peer closes, keep-alive ends, a timeout passes, the drain
/// begins while the connection waits for its next request, or the stop gives up. Blocks
/// throughout (BlockingStream). `state` outlives the call.
void serveConnection(ServerState& state, boost::asio::ip::tcp::socket socket);

}  // namespace benchd::threads_asio
