#pragma once

#include "server_state.hpp"

#include <Poco/Net/StreamSocket.h>

#include <string_view>

namespace benchd::threads_poco {

class DeadlineSocketImpl;

/// Serves an HTTP/2 connection (`h2` after ALPN chose it, or `h2c` after the client preface) on
/// the calling pool thread, which pumps its session (h2_blocking::serveHttp2), while every
/// stream's request runs on a thread of the server's pool (a thread per stream, as the
/// connection has one), or on this thread when the pool has none left. `received`: the bytes
/// already read, from the preface on. Returns when the connection is over.
void serveHttp2Connection(ServerState& state, Poco::Net::StreamSocket& socket,
                          DeadlineSocketImpl& impl, std::string_view received);

}  // namespace benchd::threads_poco
